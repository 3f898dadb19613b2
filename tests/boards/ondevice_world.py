"""A 16-bit model and GGUF files of it, scored by the real path (tests/results/quantized_runs.py), with their pinned
files and stored cost profiles: the On-device board's tests (API, CSV, pages, browser) read this world.

On the 480 demo validation questions the 16-bit run answers the first 300 right; each file answers its first
`right` questions right (so every flip is right→wrong). Sizes and speeds are chosen so that the frontiers are known:
by size, Q4_0 (smallest), Q4_K_M and Q8_0; by generation speed, Q4_K_M (fastest) and Q8_0 (Q4_0 is slower and
less accurate than Q4_K_M); the file made here has no profile yet, so no speed, and is the largest file.
"""
from evaluator import ondevice_profile
from leaderboard.submissions.models import ModelEntry, Submission
from tests.results.quantized_runs import gguf_entry, letter_run, questions, right, wrong

BASE = "org/tiny"
BASE_RIGHT = 300
THREADS = 4
LABEL = ondevice_profile.label(THREADS)
# quantization -> (questions right, file bytes, generation tokens/s, prompt tokens/s, ttft s, peak RSS bytes)
FILES = {"Q8_0": (298, 1_100_000_000, 20.0, 200.0, 0.9, 1_300_000_000),
         "Q4_K_M": (280, 600_000_000, 35.0, 260.0, 0.6, 800_000_000),
         "Q4_0": (270, 550_000_000, 30.0, 250.0, 0.7, 750_000_000)}
MADE = f"{BASE}@F16"  # a file this server made from the 16-bit model (section 2b's shape)
MADE_RIGHT, MADE_BYTES = 299, 2_000_000_000


def hub_of(quant):
    return f"org/tiny-GGUF/tiny-{quant}.gguf"


def sha_of(quant):
    return (quant.lower().replace("_", "") * 64)[:64].ljust(64, "0")


def first_right(k, n):
    return [right if i < k else wrong for i in range(n)]


def profile(tg, pp, ttft, rss, size):
    def figure(value, tokens):
        return {"tokens": tokens, "tokens_per_s": value, "sd": value / 50, "runs": [value] * 3}

    return {"label": LABEL, "threads": THREADS, "file_bytes": size, "mmap": True, "repeats": 3,
            "pp": figure(pp, 512), "tg": figure(tg, 128),
            "ttft": {"prompt_chars": 1699, "prompt_tokens": 431, "seconds": ttft, "sd": ttft / 50, "runs": [ttft] * 3},
            "peak_rss_bytes": rss}


def file_run(quant, *, split="validation", letters=None, profiled=True):
    """A scored run of the submitted file `quant` (its entry and submission made once); letters: its answers (see
    quantized_runs.letter_run), else its first FILES[quant][0] right."""
    k, size, tg, pp, ttft, rss = FILES[quant]
    hub = hub_of(quant)
    submission = (Submission.objects.filter(model__hub_id=hub).first()
                  or gguf_entry(hub, base_model=BASE, quantization=quant))
    files = [{"file": f"tiny-{quant}.gguf", "size": size, "sha256": sha_of(quant)}]
    n = len(questions(split))
    efficiency = {"ondevice": profile(tg, pp, ttft, rss, size)} if profiled else {}
    return letter_run(hub, letters or first_right(k, n), split=split, precision="gguf",
                      submission=submission, model_files=files, efficiency=efficiency)


def made_run():
    """A file made here from the 16-bit model: hub id <base>@F16, made_from the base, its recipe on the run; no
    cost profile yet."""
    base = ModelEntry.objects.get(hub_id=BASE)
    ModelEntry.objects.create(hub_id=MADE, namespace="org", params=base.params, gguf_file="tiny-F16.gguf",
                              quantization="F16", made_from=base)
    # as the worker leaves it (evaluations/gguf_make.py): the file made, in the recipe; nothing pinned at intake
    recipe = {"quant": "f16", "source": BASE, "file": "tiny-F16.gguf", "bytes": MADE_BYTES, "sha256": "e" * 64,
              "steps": ["convert_hf_to_gguf.py --outtype f16"], "imatrix": None, "llama_cpp_python": "0.3.36",
              "llama_cpp_commit": "0c1e570"}
    n = len(questions())
    return letter_run(MADE, first_right(MADE_RIGHT, n), precision="gguf", gguf_recipe=recipe)


def build():
    """The world: the 16-bit run, the three submitted files' runs and the made file's run -> {name: result}."""
    n = len(questions())
    out = {"base": letter_run(BASE, first_right(BASE_RIGHT, n))}
    out.update({quant: file_run(quant) for quant in FILES})
    out["made"] = made_run()
    return out
