"""The question browser (like HELM's instances): one model's run on an open split, question by question, with the
model's letter probabilities, its prediction and the answer; filtered by topic and by right or wrong, 50 a page,
rendered on the server. The sealed test split is refused (404): its questions are never shown (ARCHITECTURE §6)."""
from urllib.parse import urlencode

from django.core.paginator import InvalidPage, Paginator
from django.http import Http404
from django.shortcuts import render
from django.urls import register_converter
from django.views.decorators.gzip import gzip_page

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.evaluations import question_browser
from leaderboard.evaluations import display
from leaderboard.results import selectors as results_selectors

from ..payloads import model as model_payload
from ..payloads import questions as payload
from . import common

PER_PAGE = 50
OPEN_SPLITS = ("validation",)


class HubIdConverter:
    """namespace/name (exactly one '/'), so /models/<org>/questions/ stays the model page of org/questions."""

    regex = r"[^/]+/[^/]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(HubIdConverter, "hub_id")  # frontend/urls.py imports this module before its patterns


def _choice(request, name, choices, default=""):
    value = request.GET.get(name) or default
    if value and value not in choices:
        raise Http404(f"{name} must be one of {', '.join(choices)}.")
    return value


@gzip_page
def model_questions(request, hub_id):
    split = request.GET.get("split") or "validation"
    if display.is_sealed(split):
        raise Http404("The test split is sealed: its questions are never shown.")
    _choice(request, "split", OPEN_SPLITS)
    results = [r for r in results_selectors.model_results(hub_id=hub_id) if r.split == split]
    if not results:
        raise Http404("No scored open-split run of this model.")
    chosen = model_payload.choose_result(results, common.run_from(request))
    if chosen is None:
        raise Http404("No such run of this model on this split.")
    run = chosen.run
    variant = _choice(request, "variant", run.variants or [chosen.primary_variant], chosen.primary_variant)
    topics = sorted(bench_selectors.topic_index(benchmark=chosen.benchmark), key=lambda t: t.order)
    topic = _choice(request, "topic", [t.slug for t in topics])
    outcome = _choice(request, "outcome", question_browser.OUTCOMES)
    listed = question_browser.entries(run=run, variant=variant, topic_slug=topic or None)
    right = sum(e.correct for e in listed)
    shown = [e for e in listed if not outcome or e.correct == (outcome == "right")]
    page_number = request.GET.get("page") or "1"
    try:
        page = Paginator(shown, PER_PAGE, allow_empty_first_page=True).page(page_number)
    except InvalidPage:
        raise Http404("No such page.") from None
    texts = question_browser.question_texts(run=run, uids=[e.uid for e in page])
    filters = {k: v for k, v in (("run", chosen.run_id), ("variant", variant if variant != chosen.primary_variant
                                                                     else ""), ("topic", topic), ("outcome", outcome))
               if v}
    return render(request, "frontend/model_questions.html", {
        "hub_id": chosen.hub_id, "chosen": chosen, "runs": results, "variant": variant, "variants": run.variants,
        "topics": topics, "topic": topic, "outcome": outcome, "page": page, "items": payload.items(
            page.object_list, texts, start=page.start_index()),
        "counts": {"listed": len(listed), "right": right, "wrong": len(listed) - right, "shown": len(shown)},
        "query": urlencode(filters), "per_page": PER_PAGE,
    })
