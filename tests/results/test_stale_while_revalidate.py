"""After a published run the board is never recomputed on a visitor's time: readers get the previous board at once,
marked `X-Board-Updating`, while one request recomputes it; a hide or a flag is never served stale."""
import pytest
from django.test import Client
from django.urls import reverse

from leaderboard.boards import selectors as boards
from leaderboard.core import cache_generation
from leaderboard.evaluations import admin_services
from leaderboard.submissions.admin import _flag
from leaderboard.submissions.models import ModelEntry
from tests.support.concurrent_readers import gated, read_concurrently

BOARD = reverse("api-leaderboard")
READERS = 6


def _ids(response):
    return sorted(r["hub_id"] for r in response.json()["results"])


@pytest.mark.django_db(transaction=True)
def test_concurrent_cold_requests_recompute_once(make_run, monkeypatch):
    make_run("org/alpha", 300)
    before = Client().get(BOARD)
    make_run("org/beta", 200)  # published: a new results generation
    wrapper, builds = gated(boards.leaderboard, readers=READERS)
    monkeypatch.setattr(boards, "leaderboard", wrapper)

    answers = read_concurrently(BOARD, readers=READERS, wrapper=wrapper)

    assert len(builds) == 1
    for answer in answers:  # the recomputing reader too: its recompute ran after its answer was sent
        assert answer.status_code == 200 and answer["X-Board-Updating"] == "1"
        assert _ids(answer) == ["org/alpha"] and answer["ETag"] == before["ETag"]
        assert answer["Last-Modified"] == before["Last-Modified"]
    after = Client().get(BOARD)
    assert _ids(after) == ["org/alpha", "org/beta"] and "X-Board-Updating" not in after
    assert after["ETag"] != before["ETag"] and len(builds) == 1

    # The board page, in the same test (a transactional test's teardown costs seconds): its rows likewise.
    page = reverse("leaderboard")
    assert "org/beta" in Client().get(page).content.decode()
    make_run("org/gamma", 100)
    wrapper, builds = gated(boards.board_rows, readers=READERS)
    monkeypatch.setattr(boards, "board_rows", wrapper)

    answers = [a.content.decode() for a in read_concurrently(page, readers=READERS, wrapper=wrapper)]

    assert len(builds) == 1
    assert all("Updating: showing the board as of" in a and "org/beta" in a and "org/gamma" not in a for a in answers)
    after = Client().get(page).content.decode()
    assert "org/gamma" in after and "Updating:" not in after and len(builds) == 1


URGENT = {
    "hide_run": lambda run, user: admin_services.run_set_hidden(run, actor=user, reason="test"),
    "flag_run": lambda run, user: admin_services.run_set_flagged(run, actor=user, reason="test"),
    "flag_model": lambda run, user: _flag(ModelEntry.objects.get(hub_id=run.model_ref), actor=user, reason="test"),
}


@pytest.mark.parametrize("change", list(URGENT))
def test_a_hide_or_flag_is_never_served_stale(client, make_run, admin_user, change,
                                              django_capture_on_commit_callbacks):
    """Even right after a published run, whose previous board could otherwise be served while it is recomputed."""
    run = make_run("org/alpha", 300)
    assert client.get(BOARD).json()["results"][0]["flagged"] is False
    make_run("org/beta", 200)
    with django_capture_on_commit_callbacks(execute=True):
        URGENT[change](run, admin_user)
    for _ in range(2):
        response = client.get(BOARD)
        assert "X-Board-Updating" not in response
        shown = {r["hub_id"]: r for r in response.json()["results"]}
        assert "org/beta" in shown
        assert ("org/alpha" not in shown) if change.startswith("hide") else shown["org/alpha"]["flagged"]


def test_only_a_published_run_allows_stale(client, make_run):
    """results_changed() without stale_ok (every caller but the publishing one) starts a new epoch."""
    make_run("org/alpha", 300)
    client.get(BOARD)
    cache_generation.results_changed(stale_ok=True)
    assert client.get(BOARD)["X-Board-Updating"] == "1"
    cache_generation.results_changed(stale_ok=True)
    cache_generation.results_changed()
    assert "X-Board-Updating" not in client.get(BOARD)


def test_a_stale_answer_is_the_process_own_last_entry(client, make_run, monkeypatch):
    """A cold reader is not made to wait for the shared entry (megabytes for a CSV): its process's own last entry is
    served, and the recompute after the answer reads the shared one first."""
    from django.core.cache import cache

    from leaderboard.results.cache import ENTRY_PREFIX

    make_run("org/alpha", 300)
    client.get(BOARD)
    make_run("org/beta", 200)
    reads, get = [], cache.get
    monkeypatch.setattr(cache, "get", lambda key, *args, **kwargs: (
        reads.append(cache_generation.in_request()) if key.startswith(ENTRY_PREFIX) else None) or get(key, *args, **kwargs))
    answer = client.get(BOARD)
    assert answer["X-Board-Updating"] == "1" and _ids(answer) == ["org/alpha"]
    assert reads == [False]  # the recompute's, after the answer
    assert _ids(client.get(BOARD)) == ["org/alpha", "org/beta"]
