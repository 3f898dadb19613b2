"""The leaderboard page as the server sends it: real table rows (readable without JavaScript), flagged models hidden
by default behind a visible toggle, the paper's rows in a section of their own, column sets, pins, pages of 100,
a params range, and links (sort, CSV) that carry the page's state."""
import gzip
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from leaderboard.evaluations.admin_services import run_set_hidden
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import assert_charts, elements, text
from tests.frontend.seed import realistic_hub_ids, seed_board
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
STATIC = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend"


class Table(HTMLParser):
    """The rows of table#<id> > tbody: [{"hub": data-hub-id, "class": ..., "cells": [text of each th/td]}]
    (the text a reader sees: buttons, which need the page script, are left out; `pins` lists pressed ones)."""

    def __init__(self, body, table_id):
        super().__init__()
        self.table_id, self.inside, self.rows, self.cell, self.button = table_id, False, [], None, False
        self.headers, self.pins = [], []
        self.feed(body)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "button":
            self.button = True
            if self.inside and attrs.get("aria-pressed") == "true":
                self.pins.append(attrs.get("data-pin"))
        if tag == "table" and attrs.get("id") == self.table_id:
            self.inside = True
        if not self.inside:
            return
        if tag == "tr" and "data-hub-id" in attrs:
            self.rows.append({"hub": attrs["data-hub-id"], "class": attrs.get("class", ""), "cells": []})
        elif tag in ("td", "th"):
            self.cell = {"text": "", "attrs": attrs}

    def handle_endtag(self, tag):
        if tag == "button":
            self.button = False
        elif tag == "table" and self.inside:
            self.inside = False
        elif tag in ("td", "th") and self.cell is not None:
            text = " ".join(self.cell["text"].split())
            if self.cell["attrs"].get("scope") == "col":
                self.headers.append({"text": text, **self.cell["attrs"]})
            elif self.rows:
                self.rows[-1]["cells"].append(text)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None and not self.button:
            self.cell["text"] += data


def board(response, table_id="leaderboard-table"):
    assert response.status_code == 200, response.status_code
    return Table(response.content.decode(), table_id)


def hubs(response, table_id="leaderboard-table"):
    return [r["hub"] for r in board(response, table_id).rows]


def chart(response):
    match = re.search(r'<script id="board-chart" type="application/json">(.*?)</script>', response.content.decode(),
                      re.S)
    return json.loads(match.group(1))


def get(client, **params):
    return client.get(reverse("leaderboard"), params)


def test_the_first_page_is_html_rows_ranked_on_the_server(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 395, params=8_000_000_000, precision="float16")
    make_run("org/gamma", 200)
    response = get(client)
    table = board(response)
    assert [r["hub"] for r in table.rows] == ["org/alpha", "org/beta", "org/gamma"]
    ranks = [r["cells"][0] for r in table.rows]
    assert ranks == ["1=", "1=", "3"]  # alpha and beta are not significantly different
    alpha = table.rows[0]["cells"]
    assert alpha[1].startswith("org/alpha") and alpha[2].startswith("83.33")  # 400 / 480, with its interval
    assert re.search(r"\d\d\.\d\d–\d\d\.\d\d", alpha[2])
    assert [h["text"].rstrip(" ↕") for h in table.headers][:7] == [
        "Rank", "Model", "Accuracy (95% CI)", "Sealed test", "Δ (pt)", "Params", "Evaluated"]
    page = text(response)
    assert "Showing 3 models." in page and "Loading" not in page
    assert 'id="reported"' not in page  # the paper's rows only on request
    assert chart(response)["rows"][0][0] == "org/alpha" and "org/alpha" in chart(response)["summary"]
    assert_charts(response, "leaderboard")


def test_it_carries_the_hooks_the_page_script_and_browser_tests_use(client, make_run):
    make_run("org/alpha", 400)
    response = get(client)
    dom = elements(response)
    assert dom.find("form", id="leaderboard-filters") and dom.find("details", id="filter-drawer")
    for tag, name in (("select", "benchmark"), ("select", "split"), ("select", "shots"), ("select", "size_class"),
                      ("select", "model_type"), ("select", "precision"), ("input", "search"),
                      ("input", "params_min"), ("input", "params_max")):
        assert dom.find(tag, name=name), name
    for name in ("on_device", "include_reported", "flagged"):
        assert dom.find("input", name=name, type="checkbox"), name
    sorts = {a["data-sort"] for a in dom.find("th") if "data-sort" in a}
    assert {"rank", "name", "accuracy", "params", "test", "delta", "date"} <= sorts
    assert len(dom.find("a", data_nav=True)) >= len(sorts) + 4  # sort links and the four column sets
    csv = dom.find("a", class_="csv-link")[0]["href"]
    assert csv.startswith(reverse("api-leaderboard")) and "format=csv" in csv and "flagged=false" in csv
    assert client.get(csv).status_code == 200
    assert dom.find("a", id="compare-link") and dom.find("input", class_="pick needs-js")
    assert dom.find("button", class_="pin needs-js")
    scripts = [a["src"] for a in dom.find("script") if "src" in a]
    assert any("pages/leaderboard.js" in s for s in scripts) and not any(s.startswith("http") for s in scripts)
    # The table never waits for the chart library: no <script> loads Plotly; charts.js fetches it later.
    assert not any("plotly" in s for s in scripts)
    plotly = dom.find("script", data_plotly=True)[0]["data-plotly"]
    assert "vendor/plotly-" in plotly and (STATIC / plotly.split("/static/frontend/")[1]).exists()


def test_home_is_the_leaderboard_with_the_benchmarks(client, demo_loaded):
    response = client.get(reverse("home"))
    page = text(response)
    assert 'id="leaderboard-table"' in page and "<h1>Mobile-MMLU Leaderboard</h1>" in page
    assert "<td>240</td><td>480</td><td>480</td>" in page  # demo split counts
    assert "No model has been evaluated on Mobile-MMLU (validation, 0-shot) yet" in page
    assert re.search(r'<p id="no-rows" class="note" role="status">No model has been evaluated', page)


def test_it_handles_unknown_boards_and_filters(client, demo_loaded):
    for query in ({"benchmark": "nope"}, {"split": "dev"}, {"split": "nope"}, {"shots": "x"}, {"shots": "-1"},
                  {"size_class": "huge"}, {"params_min": "many"}, {"flagged": "maybe"}, {"model_type": "x"}):
        assert get(client, **query).status_code == 404, query
    for query in ({"sort": "nope"}, {"columns": "nope"}, {"page": "x"}, {"page": "99"}):  # fall back, not fail
        assert get(client, **query).status_code == 200, query


def test_sealed_split_shows_overall_accuracy_only(client, make_run):
    make_run("org/alpha", 300, split="test")
    make_run("org/beta", 100, split="test")
    response = get(client, split="test")
    table = board(response)
    alpha = next(r for r in table.rows if r["hub"] == "org/alpha")
    assert alpha["cells"][2].startswith("62.0")  # 62.5% on the split's 2-point grid
    assert "Sealed test" not in [h["text"].rstrip(" ↕") for h in table.headers]
    page = text(response)
    assert "sealed: overall accuracy only" in page
    assert_no_sealed_content(page)
    categories = text(get(client, split="test", columns="categories"))
    assert "Category figures of the sealed test split are not published" in categories
    assert_no_sealed_content(categories)


def test_the_contaminated_model_is_not_first_by_default_and_appears_with_the_toggle(client, make_run):
    make_run("org/memorizer", 480)  # 100% on validation
    make_run("org/memorizer", 120, split="test")  # chance on the sealed test: Δ far below zero
    make_run("org/honest", 300)
    default = get(client)
    assert hubs(default) == ["org/honest"] and board(default).rows[0]["cells"][0] == "1"
    page = text(default)
    assert "1 flagged model hidden" in page and "org/memorizer" not in chart(default)["summary"]
    show = re.search(r'<a href="([^"]+)" data-nav>Show it</a>', page).group(1)
    assert parse_qs(urlsplit(show).query)["flagged"] == ["show"]
    shown = client.get(show.replace("&amp;", "&"))
    rows = {r["hub"]: r for r in board(shown).rows}
    assert list(rows) == ["org/memorizer", "org/honest"]
    memorizer = rows["org/memorizer"]["cells"]
    assert memorizer[0] == "1" and "possible contamination" in memorizer[1] and "⚑" in memorizer[4]
    assert memorizer[3].startswith("2")  # sealed test as published: 25% on the 2-point grid
    assert "flagged for possible contamination" in chart(shown)["summary"]
    assert hubs(get(client, flagged="only")) == ["org/memorizer"]


def test_admin_flags_hide_rows_too(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/bad", 300)
    ModelEntry.objects.filter(hub_id="org/bad").update(flagged=True)
    assert hubs(get(client)) == ["org/alpha"]
    shown = board(get(client, flagged="show"))
    assert "⚑ flagged" in next(r for r in shown.rows if r["hub"] == "org/bad")["cells"][1]


def test_the_papers_rows_are_a_section_of_their_own(client, make_run):
    make_run("org/alpha", 400, params=1_000_000_000)
    response = get(client, include_reported="true")
    assert hubs(response) == ["org/alpha"]  # the ranked table holds measured rows only
    paper = board(response, "reported-table").rows
    assert len(paper) == 22 and all(len(r["cells"]) == 3 for r in paper)
    page = text(response)
    assert "Showing 1 model." in page and "never ranked" in page
    narrowed = text(get(client, include_reported="true", size_class="mini"))
    assert 'id="reported-excluded"' in narrowed and 'id="reported-table"' not in narrowed
    assert "have no parameter count" in narrowed


def test_params_range_and_the_drawer(client, make_run):
    make_run("org/tiny", 300, params=500_000_000)
    make_run("org/phone", 310, params=2_000_000_000)
    make_run("org/big", 320, params=70_000_000_000)
    closed = text(get(client))
    assert '<details id="filter-drawer" class="drawer">' in closed
    response = get(client, params_min="1", params_max="10")
    assert hubs(response) == ["org/phone"]
    assert '<details id="filter-drawer" class="drawer" open>' in text(response)
    csv = elements(response).find("a", class_="csv-link")[0]["href"]
    query = parse_qs(urlsplit(csv).query)
    assert query["params_min"] == ["1"] and query["params_max"] == ["10"]


def test_column_sets(client, make_run):
    make_run("org/alpha", 400, variants=("original", "fixed-A"), extra_correct={"fixed-A": 304})
    categories = board(get(client, columns="categories"))
    assert len(categories.headers) == 3 + 9 and len(categories.rows[0]["cells"]) == 12
    robustness = board(get(client, columns="robustness"))
    assert [h["text"].rstrip(" ↕") for h in robustness.headers][3:] == [
        "Order spread (pt)", "Latency p50 (ms)", "Peak memory (GB)", "Energy (J/question)"]
    assert robustness.rows[0]["cells"][3] == "20.0"  # (400 - 304) / 480 points
    provenance = board(get(client, columns="provenance"))
    assert provenance.rows[0]["cells"][3] == "a" * 12 and provenance.rows[0]["cells"][5] == "default"
    assert re.search(r'aria-current="true">Robustness<span class="wide-only"> &amp; efficiency</span></a>',
                     get(client, columns="robustness").content.decode())


def test_pins_stay_on_top_through_filters_and_sorting(client, make_run):
    make_run("org/alpha", 400, params=1_000_000_000)
    make_run("org/beta", 300, params=1_000_000_000)
    make_run("org/gamma", 200, params=70_000_000_000)
    pinned = board(get(client, pin="org/gamma", sort="-accuracy"))
    assert [r["hub"] for r in pinned.rows] == ["org/gamma", "org/alpha", "org/beta"]
    assert "pinned" in pinned.rows[0]["class"] and pinned.pins == ["org/gamma"]
    outside = board(get(client, pin="org/gamma", size_class="mini"))
    assert [r["hub"] for r in outside.rows] == ["org/gamma", "org/alpha", "org/beta"]
    assert outside.rows[0]["cells"][0] == "–" and "outside these filters" in outside.rows[0]["cells"][1]
    assert "Showing 2 models, 1 pinned above." in text(get(client, pin="org/gamma", size_class="mini"))


def test_sort_links_carry_the_state_and_set_aria_sort(client, make_run):
    make_run("org/alpha", 400, params=8_000_000_000)
    make_run("org/beta", 300, params=1_000_000_000)
    response = get(client, search="org", columns="overview")
    heads = {h["data-sort"]: h for h in board(response).headers}
    assert heads["rank"]["aria-sort"] == "ascending"
    links = dict(re.findall(r'data-sort="([^"]+)"[^>]*><a href="([^"]+)"', response.content.decode()))
    accuracy = parse_qs(urlsplit(links["accuracy"].replace("&amp;", "&")).query)
    assert accuracy["sort"] == ["-accuracy"] and accuracy["search"] == ["org"]
    by_params = get(client, sort="params")
    assert hubs(by_params) == ["org/beta", "org/alpha"]
    assert {h["data-sort"]: h.get("aria-sort") for h in board(by_params).headers}["params"] == "ascending"


def test_the_fragment_is_the_board_alone(client, make_run):
    make_run("org/alpha", 400)
    response = get(client, fragment="board", size_class="mini")
    body = response.content.decode()
    assert "<html" not in body and 'id="leaderboard-table"' in body and 'id="board-chart"' in body
    assert hubs(response) == ["org/alpha"]


def test_it_shows_new_results_once_recomputed_and_hides_hidden_runs_at_once(client, make_run):
    make_run("org/alpha", 400)
    assert hubs(get(client)) == ["org/alpha"]
    run = make_run("org/beta", 300)
    updating = get(client)  # the previous rows at once, said to be updating; recomputed after this answer
    assert hubs(updating) == ["org/alpha"] and "Updating: showing the board as of" in updating.content.decode()
    assert set(hubs(get(client))) == {"org/alpha", "org/beta"}  # the cached rows were replaced
    run_set_hidden(run, actor=None, reason="spam")  # the admin action
    assert hubs(get(client)) == ["org/alpha"]


def test_1000_models_render_100_rows_on_the_server_in_a_few_queries(client, demo_loaded,
                                                                    django_assert_max_num_queries):
    hub_ids = seed_board(n_models=1000, breakdown=False, hub_ids=realistic_hub_ids(1000))
    with django_assert_max_num_queries(25):  # no query per model
        response = client.get(reverse("leaderboard"), {"flagged": "show"}, HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    body = gzip.decompress(response.content).decode()
    rows = Table(body, "leaderboard-table").rows
    accuracies = [float(r["cells"][2].split()[0][:5]) for r in rows]
    assert len(rows) == 100 and rows[0]["cells"][0].startswith("1") and accuracies == sorted(accuracies, reverse=True)
    assert "Showing 1–100 of 1,000 models." in body and 'aria-label="Pages of the board"' in body
    second = Table(client.get(reverse("leaderboard"), {"flagged": "show", "page": 2}).content.decode(),
                   "leaderboard-table").rows
    assert len(second) == 100 and not {r["hub"] for r in second} & {r["hub"] for r in rows}
    scripts = sum(len(gzip.compress((STATIC / name).read_bytes())) for name in ("charts.js", "pages/leaderboard.js"))
    assert len(response.content) + scripts <= 60_000  # a page of rows, not the whole board
    default = Table(client.get(reverse("leaderboard")).content.decode(), "leaderboard-table").rows
    flagged = {h for i, h in enumerate(hub_ids) if i % 97 == 13}  # seed.py's admin flags
    assert len(default) == 100 and not flagged & {r["hub"] for r in default}


def test_it_handles_a_cache_outage(client, make_run, monkeypatch):
    from frontend import board_cache

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    make_run("org/alpha", 400)
    monkeypatch.setattr(board_cache.cache, "get", broken)
    assert hubs(get(client)) == ["org/alpha"]
