"""The contamination page: Δ per model with intervals and flags, and the board-wide Δ over time."""
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors

from ..payloads import contamination as payload
from . import common


@gzip_page
def contamination(request):
    benchmark = common.benchmark_from(request)
    shots = common.shots_from(request)
    data, rows = payload.page_data(benchmark=benchmark, shots=shots)
    query = urlencode({"benchmark": benchmark.slug, "shots": shots, "format": "csv"})
    return render(request, "frontend/contamination.html", {
        "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(), "shots": shots,
        "shots_options": common.shots_options(benchmark=benchmark, shots=shots), "data": data, "rows": rows,
        "summaries": payload.summaries(data, rows),
        "csv_url": f"{reverse('api-contamination')}?{query}",
        "history_csv_url": f"{reverse('api-contamination-history')}?{query}",
    })
