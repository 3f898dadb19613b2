"""The leaderboard (also the home page): one board (benchmark, split, shots), filtered, ranked, sorted and paged
on the server, so the first page is plain HTML rows; `?fragment=board` answers the board's part alone (the page
script swaps it in as filters change)."""
from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.results.board import SIZE_CLASSES as SIZE_CLASS_VALUES
from leaderboard.results.board import sort_names
from leaderboard.submissions.models import ModelType

from ..payloads import leaderboard as payload
from ..payloads.board_query import FLAGGED, MAX_PINS, PRESETS, BoardQuery
from . import common
from .benchmarks import benchmark_rows

SIZE_CLASSES = [("mini", "Mini (< 5B)"), ("small", "Small (5–13B)"), ("medium", "Medium (13–50B)"),
                ("large", "Large (≥ 50B)")]
LEGACY_FLAGGED = {"true": "only", "false": "hidden", "": "hidden"}  # the values of the old flags dropdown
TRUE = ("true", "on", "1")
ONDEVICE_COLUMNS = "ondevice"  # ?columns=ondevice: the On-device board (/leaderboard/on-device/)


def _billions(request, name):
    return common.number_from(request, name, valid=lambda v: 0 <= v < 1e6,
                              message=f"{name} must be a number of billions of parameters.")


def _pins(request):
    pins = [p.strip() for raw in request.GET.getlist("pin") for p in raw.split(",") if p.strip()]
    return tuple(dict.fromkeys(p[:300] for p in pins))[:MAX_PINS]


def board_query(request, *, benchmark, split, shots, categories) -> BoardQuery:
    """The page's state from its URL. Unknown filter values are a 404 (as unknown boards are); an unknown sort,
    column set or page falls back to the default."""
    flagged = request.GET.get("flagged", "")
    flagged = LEGACY_FLAGGED.get(flagged, flagged)
    common.choice_from(request, "size_class", ("", *SIZE_CLASS_VALUES), "")
    common.choice_from(request, "model_type", ("", *ModelType.values), "")
    if flagged not in FLAGGED:
        raise Http404(f"flagged must be one of {', '.join(FLAGGED)}.")
    sort = request.GET.get("sort", "rank")
    columns = request.GET.get("columns", "overview")
    low, high = _billions(request, "params_min"), _billions(request, "params_max")
    if low is not None and high is not None and low > high:
        low, high = high, low  # "from 70 to 7" means the same range
    return BoardQuery(
        benchmark=benchmark.slug, split=split, shots=shots, search=request.GET.get("search", "").strip()[:200],
        flagged=flagged, size_class=request.GET.get("size_class", ""), params_min=low, params_max=high,
        on_device=request.GET.get("on_device", "") in TRUE,
        model_type=request.GET.get("model_type", ""), precision=request.GET.get("precision", "").strip()[:20],
        include_reported=request.GET.get("include_reported", "") in TRUE,
        sort=sort if sort.lstrip("-") in sort_names(categories) else "rank",
        columns=columns if columns in dict(PRESETS) else "overview",
        page=common.page_from(request), pins=_pins(request))


@gzip_page
def leaderboard(request, home=False):
    benchmark = common.benchmark_from(request)
    split = common.choice_from(request, "split", common.BOARD_SPLITS, "validation")
    shots = common.shots_from(request)
    if request.GET.get("columns") == ONDEVICE_COLUMNS:  # the On-device column set is a page of its own (open split)
        return redirect(f"{reverse('leaderboard-on-device')}?{urlencode({'benchmark': benchmark.slug, 'shots': shots})}")
    categories = payload.categories(benchmark=benchmark)
    query = board_query(request, benchmark=benchmark, split=split, shots=shots,
                        categories=[slug for slug, _ in categories])
    board = payload.board_page(benchmark=benchmark, query=query, cats=categories)
    if request.GET.get("fragment") == "board":
        return render(request, "frontend/partials/board.html", {"board": board,
                                                                 "model_url": payload.model_url_prefix()})
    return render(request, "frontend/leaderboard.html", {
        "home": home, "board": board, "query": query, "benchmark": benchmark,
        "benchmarks": bench_selectors.benchmark_list(), "split": split, "shots": shots,
        "shots_options": common.shots_options(benchmark=benchmark, shots=shots), "size_classes": SIZE_CLASSES,
        "model_types": ModelType.choices, "precisions": board["precisions"],
        "model_url": payload.model_url_prefix(), "benchmark_rows": benchmark_rows() if home else None,
    })


def home(request):
    return leaderboard(request, home=True)
