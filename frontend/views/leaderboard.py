"""The leaderboard (also the home page): one board (benchmark, split, shots) chosen on the server;
filters, search, sorting and re-ranking happen in the browser on the rows handed over."""
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.submissions.models import ModelType, Precision

from ..payloads import leaderboard as payload
from . import common
from .benchmarks import benchmark_rows

SIZE_CLASSES = [("mini", "Mini (< 5B)"), ("small", "Small (5–13B)"), ("medium", "Medium (13–50B)"),
                ("large", "Large (≥ 50B)")]
FILTERS = ("size_class", "on_device", "model_type", "precision", "flagged", "search", "include_reported")


@gzip_page  # the page carries up to ~1,000 rows of data: compressed it stays well under 300 KB
def leaderboard(request, home=False):
    benchmark = common.benchmark_from(request)
    split = common.choice_from(request, "split", common.BOARD_SPLITS, "validation")
    shots = common.shots_from(request)
    data = payload.board_payload(benchmark=benchmark, split=split, shots=shots)
    precisions = list(Precision.values) + [p for p in data["lookups"]["precision"] if p and p not in Precision.values]
    csv_query = urlencode({"benchmark": benchmark.slug, "split": split, "shots": shots, "format": "csv"})
    return render(request, "frontend/leaderboard.html", {
        "home": home, "data": data, "summary": payload.summary(data), "benchmark": benchmark,
        "benchmarks": bench_selectors.benchmark_list(), "split": split, "shots": shots,
        "shots_options": common.shots_options(benchmark=benchmark, shots=shots), "size_classes": SIZE_CLASSES,
        "model_types": ModelType.choices, "precisions": precisions,
        "filters": {name: request.GET.get(name, "") for name in FILTERS},
        "csv_url": f"{reverse('api-leaderboard')}?{csv_query}",
        "benchmark_rows": benchmark_rows() if home else None,
    })


def home(request):
    return leaderboard(request, home=True)
