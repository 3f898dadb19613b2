"""The On-device board of tests/boards/ondevice_world.py (a clean 16-bit model and its files) beside the demo's
validation memorizer, `demo/tiny-val-memorizer`, and the GGUF files of it: Q8_0 and Q4_K_M made here from it, and a
Q4_0 file submitted from the hub whose header names it as base model. Every file of it answers every validation
question right (100.0%, the top of the board) and Q4_K_M is the smallest and fastest file, so unflagged it would lead
the board and sit on both Pareto frontiers (issue 38, finding 5).

How the memorizer is flagged is the world's argument: by the contamination monitor (all 480 validation questions
right, 120 of the sealed ones: Δ far below −3 SE), by an admin's flag of its model entry, or of its run."""
from django.contrib.auth.models import User

from evaluator import ondevice_profile
from leaderboard.evaluations import admin_services
from leaderboard.submissions import admin as submissions_admin
from leaderboard.submissions.models import ModelEntry
from tests.boards import ondevice_world
from tests.boards.ondevice_world import first_right, profile
from tests.results.quantized_runs import gguf_entry, letter_run, questions

MEMORIZER = "demo/tiny-val-memorizer"
MADE = {"Q8_0": (700_000_000, 40.0), "Q4_K_M": (400_000_000, 60.0)}  # file bytes, generation tokens/s
SUBMITTED = "someone/memorizer-GGUF/memorizer-Q4_0.gguf"  # names the memorizer as base (its GGUF header)
HOW = ("monitor", "admin-model", "admin-run")


def made_hub(quant):
    return f"{MEMORIZER}@{quant}"


def _made(base, quant):
    size, tg = MADE[quant]
    ModelEntry.objects.create(hub_id=made_hub(quant), namespace="demo", params=base.params,
                              gguf_file=f"tiny-val-memorizer-{quant}.gguf", quantization=quant, made_from=base)
    recipe = {"quant": quant.lower(), "source": MEMORIZER, "file": f"tiny-val-memorizer-{quant}.gguf", "bytes": size,
              "sha256": quant[1] * 64, "steps": [], "imatrix": None}
    efficiency = {"ondevice": profile(tg, 300.0, 0.4, size, size)}
    return letter_run(made_hub(quant), first_right(len(questions()), len(questions())), precision="gguf",
                      gguf_recipe=recipe, efficiency=efficiency)


def _submitted():
    submission = gguf_entry(SUBMITTED, base_model=MEMORIZER, quantization="Q4_0")
    files = [{"file": "memorizer-Q4_0.gguf", "size": 450_000_000, "sha256": "9" * 64}]
    efficiency = {"ondevice": profile(50.0, 280.0, 0.5, 450_000_000, 450_000_000)}
    return letter_run(SUBMITTED, first_right(len(questions()), len(questions())), precision="gguf",
                      submission=submission, model_files=files, efficiency=efficiency)


def build(how="monitor"):
    """The world -> {name: scored run}: the clean world's, "memorizer" (its validation run), "memorizer-test" (monitor
    only), "memorizer-Q8_0", "memorizer-Q4_K_M" (made here) and "submitted"."""
    assert how in HOW, how
    out = ondevice_world.build()
    n, n_test = len(questions()), len(questions("test"))
    out["memorizer"] = letter_run(MEMORIZER, first_right(n, n))
    base = ModelEntry.objects.get(hub_id=MEMORIZER)
    admin = User.objects.create_superuser("flagging-admin", "admin@example.com", "pw")
    if how == "monitor":
        out["memorizer-test"] = letter_run(MEMORIZER, first_right(n_test // 4, n_test), split="test")
    elif how == "admin-model":
        submissions_admin._flag(base, actor=admin, reason="copied the validation split")
    else:
        admin_services.run_set_flagged(out["memorizer"], actor=admin, reason="copied the validation split")
    out.update({f"memorizer-{quant}": _made(base, quant) for quant in MADE})
    out["submitted"] = _submitted()
    return out


FLAGGED_FILES = (made_hub("Q8_0"), made_hub("Q4_K_M"), SUBMITTED)
LABEL = ondevice_profile.label(ondevice_world.THREADS)
