"""Submitted predictions: uploads scored here from their owners' files, on a page of their own. Never ranked
with, or shown as, the models we evaluated (the leaderboard)."""
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS, Split
from leaderboard.results import selectors as results_selectors

from . import common

OPEN_SPLITS = tuple(split for split in Split.values if split not in SEALED_SPLITS)  # uploads are refused on sealed


@gzip_page
def page(request):
    benchmark = common.benchmark_from(request)
    split = common.choice_from(request, "split", OPEN_SPLITS, "validation")
    rows = results_selectors.submitted_predictions(benchmark=benchmark, split=split)
    query = urlencode({"benchmark": benchmark.slug, "split": split, "format": "csv"})
    return render(request, "frontend/submitted_predictions.html", {
        "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(), "split": split,
        "splits": OPEN_SPLITS, "rows": rows, "csv_url": f"{reverse('api-submitted-predictions')}?{query}",
    })
