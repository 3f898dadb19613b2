"""The MRScore page: distribution, topic bins, accuracy against MRScore, and the judge."""
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors

from .. import selectors
from ..board_cache import board_cached
from ..payloads import mrscore as payload
from . import common


@gzip_page
def mrscore(request):
    benchmark = common.benchmark_from(request)
    summary = board_cached("topic-summary", benchmark=benchmark, split="validation", shots=0,
                           build=lambda: selectors.topic_summary(benchmark=benchmark))
    data = payload.page_data(benchmark=benchmark, topic_summary=summary)
    return render(request, "frontend/mrscore.html", {
        "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(), "data": data,
        "summaries": payload.summaries(data),
        "csv_url": reverse("api-mrscore-topics", args=[benchmark.slug]) + "?format=csv",
    })
