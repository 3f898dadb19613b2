"""Mobile vs general knowledge: do models rank alike on Mobile-MMLU and on MMLU-Pro or MMLU-CF (the Mobile-MMLU
paper's Table 2 question), with the figures the boards publish."""
from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.boards.selectors import GENERAL_BENCHMARKS, MOBILE_BENCHMARKS

from ..payloads import mobile_general as payload
from . import common


@gzip_page
def mobile_vs_general(request):
    mobile = bench_selectors.benchmark_get(slug=common.choice_from(request, "mobile", MOBILE_BENCHMARKS,
                                                                   MOBILE_BENCHMARKS[0]))
    if mobile is None:
        raise Http404("No such mobile benchmark on this site.")
    hosted = payload.hosted_general()
    general_slug = common.choice_from(request, "general", GENERAL_BENCHMARKS,
                                      hosted[0].slug if hosted else GENERAL_BENCHMARKS[0])
    general = bench_selectors.benchmark_get(slug=general_slug)
    general_name = general.name if general else dict(zip(GENERAL_BENCHMARKS, ("MMLU-Pro", "MMLU-CF")))[general_slug]
    split = common.choice_from(request, "split", common.BOARD_SPLITS, "validation")
    shots = common.shots_from(request)
    include_flagged = request.GET.get("flagged") == "show"
    view = payload.view_data(mobile=mobile, general_slug=general_slug, split=split, shots=shots,
                             include_flagged=include_flagged)
    names = {"mobile_name": mobile.name, "general_name": general_name}
    query = {"mobile": mobile.slug, "general": general_slug, "split": split, "shots": shots}
    if include_flagged:
        query["include_flagged"] = "true"
    return render(request, "frontend/mobile_general.html", {
        "mobile": mobile, "general_slug": general_slug, "general_name": general_name, "hosted": hosted,
        "mobile_benchmarks": [b for b in (bench_selectors.benchmark_get(slug=s) for s in MOBILE_BENCHMARKS) if b],
        "split": split, "shots": shots, "shots_options": common.shots_options(benchmark=mobile, shots=shots),
        "include_flagged": include_flagged, "view": view,
        "chart_title": f"{mobile.name} against {general_name} accuracy, one point per model",
        "summary": payload.summary(view, **names),
        "highlight": request.GET.get("model", "").strip()[:300].lower(),
        "data": payload.chart(view, highlight=request.GET.get("model", "").strip()[:300], **names),
        "csv_url": f"{reverse('api-mobile-vs-general')}?{urlencode({**query, 'format': 'csv'})}",
        "correlation_url": f"{reverse('api-mobile-vs-general-correlation')}?{urlencode(query)}",
    })
