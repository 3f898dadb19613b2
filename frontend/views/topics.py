"""Topics: easiest and hardest across models, and one topic's page (its models ranked on it, its MRScore)."""
from urllib.parse import urlencode

from django.http import Http404
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors

from .. import selectors
from ..board_cache import board_cached
from ..payloads import topics as payload
from ..payloads.board_query import BoardQuery
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


TOPIC_SORTS = ("rank", "accuracy", "name", "precision")


def _topic_query(request, benchmark):
    """The table's state from the URL: sort, page and the flagged toggle (unknown values fall back)."""
    sort = request.GET.get("sort", "rank")
    flagged = request.GET.get("flagged", "hidden")
    return BoardQuery(benchmark=benchmark.slug, sort=sort if sort.lstrip("-") in TOPIC_SORTS else "rank",
                      page=common.page_from(request),
                      flagged=flagged if flagged in ("hidden", "show") else "hidden")


@gzip_page
def topic_detail(request, slug):
    benchmark = common.benchmark_from(request)
    topic = next((t for t in bench_selectors.topic_index(benchmark=benchmark) if t.slug == slug), None)
    if topic is None:
        raise Http404("No such topic.")
    table = payload.topic_board(benchmark=benchmark, topic=topic, query=_topic_query(request, benchmark),
                                path=request.path)
    rows = table["best"]
    csv_query = urlencode({"benchmark": benchmark.slug, "split": "validation", "topic": topic.slug})
    return render(request, "frontend/topic_detail.html", {
        "benchmark": benchmark, "topic": topic, "rows": rows, "table": table, "mrscore": payload.topic_mrscore(
            benchmark=benchmark, topic=topic),
        "data": payload.topic_chart(rows), "summary": payload.topic_summary_text(topic, rows),
        "model_url": model_url_prefix(),  # one prefix instead of a reverse() per row
        "csv_url": f"{reverse('api-results-topics-csv')}?{csv_query}",
    })
