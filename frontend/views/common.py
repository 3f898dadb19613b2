"""Query-string parsing shared by the pages: unknown values are a 404, not a silent default."""
from django.http import Http404

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.shots import shots_problem

from .. import selectors

DEFAULT_BENCHMARK = "mobile-mmlu"
BOARD_SPLITS = ("validation", "test")


def benchmark_from(request, default=DEFAULT_BENCHMARK):
    slug = request.GET.get("benchmark") or default
    benchmark = bench_selectors.benchmark_get(slug=slug)
    if benchmark is None:
        benchmark = bench_selectors.benchmark_list().first() if "benchmark" not in request.GET else None
    if benchmark is None:
        raise Http404(f"No benchmark {slug!r}.")
    return benchmark


def choice_from(request, name, choices, default):
    value = request.GET.get(name) or default
    if value not in choices:
        raise Http404(f"{name} must be one of {', '.join(map(str, choices))}.")
    return value


def shots_from(request):
    raw = request.GET.get("shots") or "0"
    problem = shots_problem(raw)
    if problem:
        raise Http404(f"{problem}.")
    return int(raw)


def shots_options(*, benchmark, shots) -> list[int]:
    """The shots dropdown: the settings with results, and the one asked for, so ?shots=5 shows "5-shot" selected
    (on an empty board too) instead of silently showing the first option."""
    return sorted(set(selectors.board_shots(benchmark=benchmark)) | {shots})
