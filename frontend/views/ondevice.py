"""The On-device board: the leaderboard's On-device column set, a row per GGUF file of a benchmark's open validation
split with its Pareto charts (payloads/ondevice.py). Unknown filter values are a 404 naming the parameter, as on the
board; an unknown sort falls back to the default."""
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.boards import ondevice

from ..payloads import ondevice as payload
from ..payloads.board_query import FLAGGED
from . import common

MAX_GB = 1e6


def _fits_gb(request):
    return common.number_from(request, "fits_gb", valid=lambda v: 0 <= v < MAX_GB,
                              message="fits_gb must be a number of GB (10⁹ bytes), e.g. fits_gb=4.")


def _quantizations(request, present):
    asked = [q.strip() for raw in request.GET.getlist("quantization") for q in raw.split(",") if q.strip()]
    known = {p.upper(): p for p in present}
    unknown = [q for q in asked if q.upper() not in known]
    if unknown:
        raise Http404(f"quantization must be among the types on this board: {', '.join(present) or 'none yet'}.")
    return tuple(dict.fromkeys(known[q.upper()] for q in asked))


def board_query(request, *, benchmark, shots, present) -> payload.OnDeviceQuery:
    sort = request.GET.get("sort", ondevice.DEFAULT_SORT)
    flagged = request.GET.get("flagged", "hidden")
    if flagged not in FLAGGED:
        raise Http404(f"flagged must be one of {', '.join(FLAGGED)}.")
    return payload.OnDeviceQuery(
        benchmark=benchmark.slug, shots=shots, quantization=_quantizations(request, present),
        fits_gb=_fits_gb(request), search=request.GET.get("search", "").strip()[:200],
        sort=sort if sort.lstrip("-") in ondevice.sort_names() else ondevice.DEFAULT_SORT, flagged=flagged,
        page=common.page_from(request))


@gzip_page
def page(request):
    benchmark = common.benchmark_from(request)
    shots = common.shots_from(request)
    rows = payload.file_rows(benchmark=benchmark, shots=shots)
    query = board_query(request, benchmark=benchmark, shots=shots, present=ondevice.quantizations(rows))
    board = payload.ondevice_page(benchmark=benchmark, query=query, rows=rows)
    return render(request, "frontend/ondevice.html", {
        "board": board, "query": query, "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(),
        "shots_options": common.shots_options(benchmark=benchmark, shots=shots),
        "data": {"chart": board["chart"], "summaries": board["summaries"]},
    })
