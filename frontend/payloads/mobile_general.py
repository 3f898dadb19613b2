"""The mobile-vs-general page: models measured on a Mobile-MMLU board and on a general-knowledge one, paired
(leaderboard.boards.selectors.mobile_vs_general: the boards' published figures), as a scatter with intervals both
ways, beside the paper's Table 2 as a separate, labelled trace."""
from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.boards import selectors as boards

from ..board_cache import board_cached


def hosted_general() -> list:
    """The general benchmarks with imported questions (the page's picker)."""
    found = (bench_selectors.benchmark_get(slug=slug) for slug in boards.GENERAL_BENCHMARKS)
    return [b for b in found if b is not None and bench_selectors.version_current(benchmark=b) is not None]


def view_data(*, mobile, general_slug, split, shots, include_flagged) -> dict:
    """The selector's view, cached per board state (a new result anywhere starts a new results generation)."""
    return board_cached(f"mobile-vs-general|{general_slug}|{include_flagged}", benchmark=mobile, split=split,
                        shots=shots, build=lambda: boards.mobile_vs_general(
                            mobile=mobile.slug, general=general_slug, split=split, shots=shots,
                            include_flagged=include_flagged))


def _point(p):
    return [p["hub_id"], p["general_accuracy"], p["general_ci95_low"], p["general_ci95_high"], p["mobile_accuracy"],
            p["mobile_ci95_low"], p["mobile_ci95_high"], p["mobile_rank"], p["general_rank"], p["rank_change"]]


def chart(view, *, mobile_name, general_name, highlight="") -> dict:
    return {"mobile": mobile_name, "general": general_name, "highlight": highlight.lower(),
            "measured": [_point(p) for p in view["measured"]], "paper": [_point(p) for p in view["paper"]]}


def _rho(c) -> str:
    if c["rho"] is None:
        return f"no correlation with {c['n']} model{'s' * (c['n'] != 1)} (at least 3, not all tied, are needed)"
    interval = (f", 95% interval {c['ci95_low']:.2f} to {c['ci95_high']:.2f}" if c["ci95_low"] is not None
                else " (no interval below 4 models)")
    return f"Spearman's ρ = {c['rho']:.2f}{interval}, n = {c['n']}"


def summary(view, *, mobile_name, general_name) -> dict:
    measured = view["measured"]
    movers = sorted(measured, key=lambda p: -p["rank_change"])
    lead = (f" {movers[0]['hub_id']} places {movers[0]['rank_change']} higher on {mobile_name} than on "
            f"{general_name}." if movers and movers[0]["rank_change"] > 0 else "")
    return {"measured": _rho(view["correlation"]), "paper": _rho(view["paper_correlation"]),
            "chart": (f"{len(measured)} model{'s' * (len(measured) != 1)} measured here on both {mobile_name} and "
                      f"{general_name}: {_rho(view['correlation'])}.{lead} The paper's Table 2 "
                      f"({len(view['paper'])} models, reported, not measured here): "
                      f"{_rho(view['paper_correlation'])}.")}
