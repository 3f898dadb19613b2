"""Query-string parsing shared by the pages: unknown values are a 404, not a silent default."""
import math

from django.http import Http404

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.shots import shots_problem
from leaderboard.core.converters import parse_id

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


def number_from(request, name, *, valid, message):
    """?name= as a number, None when absent or blank; a 404 saying `message` when it is not a number (NaN included)
    or `valid(value)` is false."""
    raw = request.GET.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if math.isnan(value) or not valid(value):
        raise Http404(message)
    return value


def page_from(request) -> int:
    """?page=: a page number, 1 when absent or not one (ASCII digits, at most an id's size)."""
    return parse_id(request.GET.get("page", "1")) or 1


def run_from(request) -> int | None:
    """?run=: a run id, None when absent; anything else is a 404."""
    raw = request.GET.get("run")
    run_id = None if raw is None else parse_id(raw)
    if raw is not None and run_id is None:
        raise Http404("No such run.")
    return run_id


def shots_options(*, benchmark, shots) -> list[int]:
    """The shots dropdown: the settings with results, and the one asked for, so ?shots=5 shows "5-shot" selected
    (on an empty board too) instead of silently showing the first option."""
    return sorted(set(selectors.board_shots(benchmark=benchmark)) | {shots})
