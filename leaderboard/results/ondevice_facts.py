"""What the On-device board and the compare page show of a GGUF run beyond its board row: the file (name, type, bytes,
sha256), its cost profile's figures with their label, and its comparison with the base model's 16-bit run.

A submitted file and one this server made from a 16-bit model (`<base>@<QUANT>`) are read alike
(`evaluations.gguf_make.file_facts`): the file's sha256 (the first part's: its pin) and size (every part's) from the
run's pinned `model_files`, or what the worker made (`gguf_recipe`); the type from the model entry. The profile (evaluator/ondevice_profile.py,
`efficiency.ondevice`) is a server CPU's: its label says so wherever its figures go. Open splits only: a sealed run
is never compared per question (quantization_truth), so it is never read here.
"""
from django.conf import settings

from evaluator.ondevice_profile import reliability
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.evaluations.gguf_make import file_facts

from . import quantization_truth
from .selectors import visible_results

LLAMACPP = "llamacpp"
# The comparison's figures the board shows, renamed where the board's row has a figure of the same name (its own n).
COMPARISON_COLUMNS = {"base_hub_id": "base_hub_id", "base_run_id": "base_run_id", "compared": "compared",
                      "reason_code": "reason_code", "reason": "reason", "n": "paired_n",
                      "accuracy_change": "accuracy_change", "change_ci95_low": "change_ci95_low",
                      "change_ci95_high": "change_ci95_high", "flips": "flips", "flip_rate": "flip_rate",
                      "right_to_wrong_rate": "right_to_wrong_rate", "wrong_to_right_rate": "wrong_to_right_rate",
                      "mean_kl": "mean_kl"}


def profile_columns(profile: dict | None) -> dict:
    """A cost profile's figures as flat columns (None where it was not measured, or failed: `profile_error`), and
    whether they can be trusted (`profile_reliable`; `profile_noise` says why not: a noisy profile's speeds are kept
    off the speed frontier)."""
    profile = profile or {}
    measured = {} if profile.get("error") else profile
    verdict = reliability(profile, max_cv=settings.ONDEVICE_PROFILE_MAX_CV)
    pp, tg, ttft = (measured.get(name) or {} for name in ("pp", "tg", "ttft"))
    return {"prompt_tokens_per_s": pp.get("tokens_per_s"), "prompt_tokens_per_s_sd": pp.get("sd"),
            "gen_tokens_per_s": tg.get("tokens_per_s"), "gen_tokens_per_s_sd": tg.get("sd"),
            "ttft_s": ttft.get("seconds"), "peak_rss_bytes": measured.get("peak_rss_bytes"),
            "mmap": measured.get("mmap"), "profile_threads": profile.get("threads"),
            "profile_label": profile.get("label", ""), "profile_error": profile.get("error", ""),
            "profile_reliable": verdict and verdict["reliable"], "profile_noise": "; ".join((verdict or {}).get(
                "reasons", []))}


def file_columns(result) -> dict:
    """The file a GGUF run loaded: its name, type, bytes and sha256 (gguf_make.file_facts: pinned, or made here)."""
    run, model = result.run, result.model
    facts = file_facts(run) or {}
    profile = (run.efficiency or {}).get("ondevice") or {}
    name = (model.gguf_file if model else "") or facts.get("file") or profile.get("file", "")
    return {"file": name, "quantization": model.quantization if model else "",
            "file_bytes": facts.get("bytes") or profile.get("file_bytes"), "file_sha256": facts.get("sha256", "")}


def ondevice_facts(*, run_ids) -> dict[int, dict]:
    """run id -> the file's, the profile's and the comparison's columns, for the open-split GGUF runs among
    `run_ids` (visible results only), in a fixed number of queries whatever their number."""
    results = [r for r in visible_results(run_id__in=list(run_ids), protocol=None, run__backend=LLAMACPP)
               .select_related("benchmark_version") if r.split not in SEALED_SPLITS]
    compared = quantization_truth.comparisons(results)
    return {r.run_id: {**file_columns(r), **profile_columns((r.run.efficiency or {}).get("ondevice")),
                       **{name: row[key] for key, name in COMPARISON_COLUMNS.items()}}
            for r, row in zip(results, compared)}
