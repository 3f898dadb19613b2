"""Pages after a published run show the previous board at once with a note saying it is updating, and the new one
once recomputed (tests/results/test_stale_while_revalidate.py has the concurrent readers); a hide never waits."""
import pytest
from django.db import connection
from django.urls import reverse

from leaderboard.core.cache_generation import in_request
from leaderboard.evaluations.admin_services import run_set_flagged, run_set_hidden
from tests.frontend.conftest import text

NOTE = "Updating: showing the board as of"
PAGES = {  # every page whose data is cached per board state
    "leaderboard": lambda: reverse("leaderboard"),
    "topics": lambda: reverse("topics"),
    "topic": lambda: reverse("topic-detail", args=["travel-planning"]),
    "mrscore": lambda: reverse("mrscore"),
    "compare": lambda: reverse("compare"),
    "model": lambda: reverse("model-detail", args=["org/alpha"]),
    "mobile-vs-general": lambda: reverse("mobile-vs-general"),
    "on-device": lambda: reverse("leaderboard-on-device"),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_a_board_page_says_it_is_updating_then_is_not(client, make_run, page):
    make_run("org/alpha", 300)
    url = PAGES[page]()
    assert NOTE not in text(client.get(url))
    make_run("org/beta", 200)
    assert NOTE in text(client.get(url))
    again = client.get(url)
    assert again.status_code == 200 and NOTE not in text(again)


@pytest.mark.parametrize("change", ["hide", "flag"])
def test_a_hidden_or_flagged_run_leaves_the_board_at_once(client, make_run, change):
    make_run("org/alpha", 400)
    assert "org/alpha" in text(client.get(reverse("leaderboard")))
    run = make_run("org/beta", 300)  # published: its previous board could be served while recomputed ...
    (run_set_hidden if change == "hide" else run_set_flagged)(run, actor=None, reason="spam")  # ... not after this
    page = text(client.get(reverse("leaderboard")))
    assert NOTE not in page and "org/beta" not in page and "org/alpha" in page


def test_a_stale_board_is_one_state_and_reuses_its_cached_ranks(client, make_run, monkeypatch):
    """Served the previous rows, the page ranks them as cached with them (no re-ranking per request meanwhile); the
    new rows are ranked after the response, by the request that recomputed them, not by the next reader."""
    from leaderboard.results import board

    make_run("org/alpha", 300)
    assert NOTE not in text(client.get(reverse("leaderboard")))
    make_run("org/beta", 200)
    ranks = []  # whether each ranking ran on a reader's time
    monkeypatch.setattr(board, "rank", lambda *a, _rank=board.rank, **kw: ranks.append(in_request()) or _rank(*a, **kw))
    page = text(client.get(reverse("leaderboard")))
    assert NOTE in page and "org/beta" not in page and ranks == [False]
    page = text(client.get(reverse("leaderboard")))
    assert NOTE not in page and "org/beta" in page and ranks == [False]


def test_cold_reads_after_published_runs_build_nothing_on_the_readers_time(client, make_run, monkeypatch):
    """After each of several published runs, neither the first reader (given the previous board) nor the next (given
    the recomputed one, in the process that recomputed it) reads the board's rows or ranks them before its answer,
    and neither queries the database more than a warm read does."""
    from leaderboard.boards import selectors as boards
    from leaderboard.results import board

    url, on_readers_time, queries = reverse("leaderboard"), [], []

    def noted(name, build):
        def wrapper(*args, **kwargs):
            if in_request():
                on_readers_time.append(name)
            return build(*args, **kwargs)
        return wrapper

    for module, name in ((boards, "board_rows"), (board, "rank")):
        monkeypatch.setattr(module, name, noted(name, getattr(module, name)))

    def counted(execute, sql, params, many, context):
        if in_request():
            queries.append(sql)
        return execute(sql, params, many, context)

    def read():
        queries.clear()
        with connection.execute_wrapper(counted):
            return text(client.get(url)), len(queries)

    make_run("org/alpha", 300)
    read()  # the first board of all is built on its reader's time: there is no previous one
    _, warm = read()
    on_readers_time.clear()
    for i, hub in enumerate(("org/beta", "org/gamma", "org/delta")):
        make_run(hub, 200 - i)
        (first, first_queries), (then, then_queries) = read(), read()
        assert NOTE in first and hub not in first and NOTE not in then and hub in then
        assert on_readers_time == [] and first_queries <= warm and then_queries <= warm, (first_queries, then_queries)


def test_a_process_that_did_not_recompute_serves_its_own_previous_board_meanwhile(client, make_run, monkeypatch):
    """Another process recomputed the board: this one's first reader is given the previous board from this process's
    memory (no rows read from the shared cache, megabytes at 10,000 models, and nothing ranked on its time); the new
    rows are loaded and ranked after its answer, so the next reader has them at once."""
    from collections import OrderedDict

    from django.core.cache import cache

    from frontend import board_cache
    from leaderboard.results import board

    url = reverse("leaderboard")
    make_run("org/alpha", 300)
    client.get(url)
    before = OrderedDict(board_cache._recent.entries), dict(board_cache._recent.last)
    make_run("org/beta", 200)
    client.get(url), client.get(url)  # recomputed: in the shared cache, and in this process ...
    monkeypatch.setattr(board_cache._recent, "entries", before[0])  # ... which now plays another one, that had
    monkeypatch.setattr(board_cache._recent, "last", before[1])  # only the board before
    on_readers_time, get, rank = [], cache.get, board.rank
    monkeypatch.setattr(cache, "get", lambda key, *args, **kwargs: (
        on_readers_time.append(key) if in_request() and key.startswith("frontend:") and not key.startswith(
            board_cache.POINTER) else None) or get(key, *args, **kwargs))
    monkeypatch.setattr(board, "rank", lambda *args, **kwargs: (
        on_readers_time.append("rank") if in_request() else None) or rank(*args, **kwargs))
    first = text(client.get(url))
    assert NOTE in first and "org/beta" not in first
    then = text(client.get(url))
    assert NOTE not in then and "org/beta" in then and on_readers_time == []
