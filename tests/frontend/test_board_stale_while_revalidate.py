"""Pages after a published run show the previous board at once with a note saying it is updating, and the new one
once recomputed (tests/results/test_stale_while_revalidate.py has the concurrent readers); a hide never waits."""
import pytest
from django.urls import reverse

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
    """Served the previous rows, the page ranks them as cached with them (no re-ranking per request meanwhile)."""
    from leaderboard.results import board

    make_run("org/alpha", 300)
    assert NOTE not in text(client.get(reverse("leaderboard")))
    make_run("org/beta", 200)
    ranks = []
    monkeypatch.setattr(board, "rank", lambda *a, _rank=board.rank, **kw: ranks.append(1) or _rank(*a, **kw))
    page = text(client.get(reverse("leaderboard")))
    assert NOTE in page and "org/beta" not in page and ranks == []
    page = text(client.get(reverse("leaderboard")))
    assert NOTE not in page and "org/beta" in page and ranks == [1]
