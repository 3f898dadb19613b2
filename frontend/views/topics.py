"""Topics: easiest and hardest across models, and one topic's page (its accuracy across models, its MRScore)."""
from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors

from .. import selectors
from ..board_cache import board_cached
from ..payloads import topics as payload
from ..payloads.leaderboard import model_url_prefix
from . import common


@gzip_page
def topic_list(request):
    benchmark = common.benchmark_from(request)
    summary = board_cached("topic-summary", benchmark=benchmark, split="validation", shots=0,
                           build=lambda: selectors.topic_summary(benchmark=benchmark))
    data = payload.extremes(summary)
    return render(request, "frontend/topics.html", {
        "benchmark": benchmark, "benchmarks": bench_selectors.benchmark_list(), "topics": summary, "data": data,
        "summaries": payload.extremes_summaries(data, len(summary)),
        "csv_url": f"{reverse('api-results-topics-csv')}?benchmark={benchmark.slug}&split=validation",
    })


@gzip_page
def topic_detail(request, slug):
    benchmark = common.benchmark_from(request)
    topic = next((t for t in bench_selectors.topic_index(benchmark=benchmark) if t.slug == slug), None)
    if topic is None:
        raise Http404("No such topic.")
    rows = board_cached(f"topic:{topic.slug}", benchmark=benchmark, split="validation", shots=0,
                        build=lambda: selectors.topic_across_models(benchmark=benchmark, topic=topic))
    return render(request, "frontend/topic_detail.html", {
        "benchmark": benchmark, "topic": topic, "rows": rows, "mrscore": payload.topic_mrscore(
            benchmark=benchmark, topic=topic),
        "data": payload.topic_chart(rows), "summary": payload.topic_summary_text(topic, rows),
        "model_url": model_url_prefix(),  # one prefix instead of a reverse() per row (up to ~1,000 rows)
        "csv_url": f"{reverse('api-results-topics-csv')}?benchmark={benchmark.slug}&split=validation",
    })
