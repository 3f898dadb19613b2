"""Cached results responses: served from the cache until results change, ETag / Last-Modified, 304s."""
import time

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils.http import http_date, parse_http_date

from leaderboard.evaluations import admin_services
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.core import cache_generation
from leaderboard.results import cache as results_cache
from leaderboard.submissions.admin import _flag, _hide
from leaderboard.submissions.models import ModelEntry, Submission

pytestmark = pytest.mark.django_db
BOARD = reverse("api-leaderboard")


def _ids(response):
    return sorted(r["hub_id"] for r in response.json()["results"])


def _body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_it_works(client, make_run, django_assert_num_queries):
    make_run("org/alpha", 300)
    first = client.get(BOARD)
    assert first.status_code == 200 and first["ETag"].startswith('W/"') and first["Last-Modified"]
    with django_assert_num_queries(0):  # served from the cache
        again = client.get(BOARD)
    assert again.content == first.content and again["ETag"] == first["ETag"]
    assert again["Last-Modified"] == first["Last-Modified"]


def test_it_keys_entries_by_the_full_query_and_format(client, make_run):
    make_run("org/alpha", 300)
    make_run("org/beta", 200)
    by_name = client.get(BOARD, {"sort": "name"}).json()["results"]
    by_name_desc = client.get(BOARD, {"sort": "-name"}).json()["results"]
    assert [r["hub_id"] for r in by_name] == ["org/alpha", "org/beta"]
    assert [r["hub_id"] for r in by_name_desc] == ["org/beta", "org/alpha"]
    as_csv = client.get(BOARD, {"format": "csv", "sort": "name"})
    body = _body(as_csv)
    assert as_csv["Content-Type"].startswith("text/csv") and body.startswith(b"rank,")
    again = client.get(BOARD, {"sort": "name", "format": "csv"})  # same query, other order: a hit
    assert again["Content-Type"].startswith("text/csv") and again.content == body
    assert again["Content-Disposition"] == as_csv["Content-Disposition"]
    assert client.get(BOARD, {"sort": "name"})["ETag"] != again["ETag"]


def test_it_shows_new_results_once_recomputed(client, make_run):
    """A published run: the next reader is answered at once with the previous board, marked as updating (its
    validators those of that board), and the board is recomputed after that response; the reader after sees it."""
    make_run("org/alpha", 300)
    before = client.get(BOARD)
    make_run("org/beta", 200)
    updating = client.get(BOARD)
    assert _ids(updating) == ["org/alpha"] and updating["X-Board-Updating"] == "1"
    assert updating["ETag"] == before["ETag"] and updating["Last-Modified"] == before["Last-Modified"]
    after = client.get(BOARD)
    assert _ids(before) == ["org/alpha"] and _ids(after) == ["org/alpha", "org/beta"]
    assert after["ETag"] != before["ETag"] and "X-Board-Updating" not in after
    assert parse_http_date(after["Last-Modified"]) >= parse_http_date(before["Last-Modified"])


def _admin_edit(client, admin_user, model, **changes):
    client.force_login(admin_user)
    data = {"hub_id": model.hub_id, "namespace": model.namespace, "params": model.params,
            "model_type": model.model_type, "flag_reason": "", **changes}
    response = client.post(reverse("admin:submissions_modelentry_change", args=[model.pk]), data)
    assert response.status_code == 302, response.content
    client.logout()


def _hide_submission(run, admin_user):
    model = ModelEntry.objects.get(hub_id=run.model_ref)
    submission = Submission.objects.create(submitter=admin_user, model=model, revision_sha=run.model_revision)
    EvaluationRun.objects.filter(pk=run.pk).update(submission=submission)
    _hide(submission, actor=admin_user, reason="test")


CHANGES = {
    "hide_run": lambda run, model, user, client: admin_services.run_set_hidden(run, actor=user, reason="test"),
    "flag_run": lambda run, model, user, client: admin_services.run_set_flagged(run, actor=user, reason="test"),
    "flag_model": lambda run, model, user, client: _flag(model, actor=user, reason="test"),
    "hide_submission": lambda run, model, user, client: _hide_submission(run, user),
    "hide_model_in_admin": lambda run, model, user, client: _admin_edit(client, user, model, hidden="on"),
    "edit_params_in_admin": lambda run, model, user, client: _admin_edit(client, user, model, params=70_000_000_000),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_it_handles_admin_changes(client, make_run, admin_user, change, django_capture_on_commit_callbacks):
    run = make_run("org/alpha", 300)
    make_run("org/beta", 200)
    detail = reverse("api-model-detail", args=["org/alpha"])
    before = {r["hub_id"]: r for r in client.get(BOARD).json()["results"]}
    assert before["org/alpha"]["size_class"] == "mini" and not before["org/alpha"]["flagged"]
    assert client.get(detail).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        CHANGES[change](run, ModelEntry.objects.get(hub_id="org/alpha"), admin_user, client)
    after = {r["hub_id"]: r for r in client.get(BOARD).json()["results"]}
    if change.startswith("hide"):
        assert "org/alpha" not in after
        gone = client.get(detail)
        assert gone.status_code == 404 or gone.json()["runs"] == []
    elif change == "edit_params_in_admin":
        assert after["org/alpha"]["size_class"] == "large" and client.get(detail).json()["size_class"] == "large"
    else:
        assert after["org/alpha"]["flagged"]


def test_it_answers_conditional_requests(client, make_run, django_assert_num_queries):
    make_run("org/alpha", 300)
    first = client.get(BOARD)
    with django_assert_num_queries(0):
        not_modified = client.get(BOARD, HTTP_IF_NONE_MATCH=first["ETag"])
    assert not_modified.status_code == 304 and not_modified.content == b""
    assert not_modified["ETag"] == first["ETag"]
    assert client.get(BOARD, HTTP_IF_NONE_MATCH='W/"other"').status_code == 200
    make_run("org/beta", 200)
    updating = client.get(BOARD, HTTP_IF_NONE_MATCH=first["ETag"])  # the client holds the board served meanwhile
    assert updating.status_code == 304 and updating["X-Board-Updating"] == "1"
    changed = client.get(BOARD, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and _ids(changed) == ["org/alpha", "org/beta"]
    assert client.get(BOARD, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 200


def test_it_never_answers_304_to_a_change_within_the_same_second(client, make_run):
    """Last-Modified has 1 s resolution: a change in the same second as the copy a client holds must
    not be taken for "not modified"."""
    make_run("org/alpha", 300)
    first = client.get(BOARD)
    ModelEntry.objects.filter(hub_id="org/alpha").update(flagged=True)
    cache_generation.results_changed()  # well within the second of `first`, most of the time
    again = client.get(BOARD, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 200 and again.json()["results"][0]["flagged"] is True
    assert parse_http_date(again["Last-Modified"]) >= parse_http_date(first["Last-Modified"])


def test_it_answers_if_modified_since_once_the_second_is_unambiguous(client, make_run):
    make_run("org/alpha", 300)
    current = cache.get(cache_generation.GENERATION_KEY) or cache_generation.generation()
    cache.set(cache_generation.GENERATION_KEY, {**current, "at": current["at"] - 5, "ambiguous": False}, None)
    first = client.get(BOARD)
    assert client.get(BOARD, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 304
    assert client.get(BOARD, HTTP_IF_MODIFIED_SINCE=http_date(time.time() - 3600)).status_code == 200


def test_it_never_serves_an_old_entry_after_losing_the_generation(client, make_run):
    make_run("org/alpha", 300)
    assert client.get(BOARD).json()["results"][0]["flagged"] is False
    ModelEntry.objects.filter(hub_id="org/alpha").update(flagged=True)  # a write that forgot to signal ...
    cache.delete(cache_generation.GENERATION_KEY)  # ... and an evicted generation key
    assert client.get(BOARD).json()["results"][0]["flagged"] is True


def test_it_caches_streamed_csv(client, make_run, django_assert_num_queries):
    make_run("org/alpha", 300)
    url = reverse("api-results-topics-csv")
    first = client.get(url, {"benchmark": "mobile-mmlu"})
    assert first.streaming
    body = _body(first)
    with django_assert_num_queries(0):
        again = client.get(url, {"benchmark": "mobile-mmlu"})
    assert again.content == body and body.count(b"\n") == 1 + 80


def test_it_does_not_cache_errors_or_the_browsable_page(client, make_run):
    assert client.get(reverse("api-model-detail", args=["org/alpha"])).status_code == 404
    make_run("org/alpha", 300)
    assert client.get(reverse("api-model-detail", args=["org/alpha"])).status_code == 200
    page = client.get(BOARD, HTTP_ACCEPT="text/html")
    assert page["Content-Type"].startswith("text/html") and "ETag" not in page


@pytest.mark.parametrize("failing", ["get", "set"])
def test_it_serves_uncached_when_the_cache_fails(client, make_run, monkeypatch, failing):
    make_run("org/alpha", 300)

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    # DRF's throttles read and write the same cache (and fail with it); out of the way here.
    monkeypatch.setattr("rest_framework.throttling.SimpleRateThrottle.allow_request", lambda *a: True)
    monkeypatch.setattr(results_cache.cache, failing, broken)
    for _ in range(2):
        response = client.get(BOARD)
        assert response.status_code == 200 and _ids(response) == ["org/alpha"]
