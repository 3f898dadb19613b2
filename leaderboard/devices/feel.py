"""The figures a phone user feels (phone_figures.py) for a group of reports of one file: time to first token at the
benchmark's median prompt (derived from the figure's prompt speed; measured where a report ran that prompt length),
the drop in generation speed over llama-bench's repetitions, medians per llama.cpp build, and whether the file fits
the device's RAM. Counted as the figures are (consensus.py): one vote per account, over the accounts whose votes
make the figure. Read from what intake stored on each report (phone_figures.report_figures), never from its tests'
repetitions, so a page's cost does not grow with the samples stored."""
import statistics
from dataclasses import dataclass

from . import board_files, consensus, phone_figures


@dataclass(frozen=True)
class FileContext:
    """What the figures need of the file: its median prompt in tokens (and where that comes from), its bytes, the
    profile's context and the KV cache there (None when its header facts were not stored)."""
    prompt_tokens: int
    prompt_source: str
    file_bytes: int | None
    context: int
    kv_bytes: int | None


def file_context(*, model_id: int, sha256: str) -> FileContext:
    file = next((f for f in board_files.files_with_sha256(sha256) if f.model_id == model_id), None)
    profile, kv = (file.profile, file.kv) if file else ({}, {})
    tokens, source = phone_figures.median_prompt(profile)
    context = phone_figures.profile_context(profile)
    return FileContext(prompt_tokens=tokens, prompt_source=source,
                       file_bytes=(file and file.bytes) or profile.get("file_bytes"), context=context,
                       kv_bytes=phone_figures.kv_cache_bytes(kv, context))


def _median_of_votes(pairs) -> float | None:
    votes = consensus.votes(pairs)
    return statistics.median(votes.values()) if votes else None


def _drops(kept) -> dict:
    """account -> the sustained drops of its reports' generation figures (at least 5 repetitions), as intake stored
    them (phone_figures.report_figures)."""
    drops: dict = {}
    for report in kept:
        drop = phone_figures.finite(report.tg_sustained_drop)
        if drop is not None:
            drops.setdefault(report.owner_id, []).append(drop)
    return drops


def _build_order(group) -> tuple:
    """Newest first: llama.cpp's build number (its commit count), then the newest measurement."""
    return (-(max((r.build_number or 0) for r in group)), -max(r.measured_at.timestamp() for r in group))


def per_build(kept, ctx: FileContext) -> list[dict]:
    """The medians of the accounts' votes per llama.cpp build (build_commit), newest first."""
    builds: dict = {}
    for report in kept:
        builds.setdefault(report.build_commit or "unknown", []).append(report)
    rows = []
    for commit, group in sorted(builds.items(), key=lambda item: _build_order(item[1])):
        pp = _median_of_votes((r.owner_id, r.pp_tokens_per_s) for r in group)
        rows.append({"build_commit": commit, "build_number": max((r.build_number or 0) for r in group) or None,
                     "people": len({r.owner_id for r in group}), "reports": len(group),
                     "tg_median": _median_of_votes((r.owner_id, r.tg_tokens_per_s) for r in group), "pp_median": pp,
                     "ttft_derived_s": phone_figures.ttft_derived(pp, ctx.prompt_tokens)})
    return rows


def figures(kept, *, pp_median, ram_gb, ctx: FileContext | None) -> dict:
    """The felt figures of a group's kept reports (the accounts that make its figure), with its prompt median and
    the RAM sizes reported (the smallest is judged: a model sold with 8 or 12 GB must fit the 8)."""
    ctx = ctx or FileContext(phone_figures.PUBLISHED_MEDIAN_PROMPT_TOKENS, phone_figures.SOURCE_PUBLISHED, None,
                             phone_figures.PROFILE_MIN_CONTEXT, None)
    measured = consensus.votes((r.owner_id, phone_figures.ttft_measured(r.prompt_rates, ctx.prompt_tokens))
                               for r in kept)
    drops = _drops(kept)
    fit = phone_figures.fit(ctx.file_bytes, ctx.kv_bytes, min(ram_gb, default=None))
    return {
        "prompt_tokens": ctx.prompt_tokens, "prompt_tokens_source": ctx.prompt_source,
        "ttft_derived_s": phone_figures.ttft_derived(pp_median, ctx.prompt_tokens),
        "ttft_measured_s": phone_figures.finite(statistics.median(measured.values())) if measured else None,
        "ttft_measured_people": len(measured),
        "tg_sustained_drop": phone_figures.finite(phone_figures.median_drop(drops)),
        "tg_sustained_people": len(drops),
        "build_medians": per_build(kept, ctx),
        "file_bytes": fit["file_bytes"], "kv_context": ctx.context, "kv_cache_bytes": fit["kv_bytes"],
        "memory_need_bytes": fit["need_bytes"], "fit_ram_gb": fit["ram_gb"], "app_ram_share": phone_figures.APP_RAM_SHARE,
        "app_budget_bytes": fit["budget_bytes"], "fit": fit["verdict"],
    }
