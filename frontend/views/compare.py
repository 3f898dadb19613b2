"""Compare models: topic heatmap and size against accuracy with the paper's figures."""
from urllib.parse import urlencode

from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from .. import selectors
from ..board_cache import board_cached
from ..payloads import compare as payload
from . import common

CHOOSER_OPTIONS = 500  # the datalist of model ids (best first)


@gzip_page
def compare(request):
    benchmark = common.benchmark_from(request)
    flagged = payload.flagged_rows(benchmark=benchmark)
    options = payload.unflagged(board_cached(
        "chooser", benchmark=benchmark, split="validation", shots=0,
        build=lambda: selectors.models_with_results(benchmark=benchmark, limit=CHOOSER_OPTIONS)), flagged)
    # `models=a,b` (a shared link) or `models=a&models=b` (the board's compare picks sent by a plain form)
    asked = payload.parse_models(",".join(request.GET.getlist("models"))) if "models" in request.GET else options[:3]
    results, missing = payload.chosen_results(benchmark=benchmark, hub_ids=asked)
    heat = payload.heatmap(benchmark=benchmark, results=results)
    points = payload.scatter(benchmark=benchmark, chosen_ids={r.hub_id for r in results})
    overall = selectors.overall_cells(results=results, variant=None)
    topic_rows = [{"name": name, "slug": slug, "cells": [row[j] for row in heat["z"]]}
                  for j, (name, slug) in enumerate(zip(heat["topics"], heat["slugs"]))]
    return render(request, "frontend/compare.html", {
        "benchmark": benchmark, "options": options, "asked": asked, "missing": missing,
        "models": [{"result": r, "flag": payload.flag_of(r, flagged), **overall.get(r.pk, {})} for r in results],
        "topic_rows": topic_rows, "ondevice": payload.ondevice(results, flagged),
        "max_models": payload.MAX_MODELS, "summaries": payload.summaries(heat, points),
        "data": {"heatmap": heat, "scatter": points},
        "csv_url": f"{reverse('api-results-topics-csv')}?"
                   + urlencode([("benchmark", benchmark.slug), ("split", "validation")]
                               + [("model", r.hub_id) for r in results]),
    })
