import gzip
from pathlib import Path

import pytest
from django.urls import reverse

from leaderboard.evaluations.admin_services import run_set_hidden
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.frontend.seed import realistic_hub_ids, seed_board
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
STATIC = Path(__file__).resolve().parents[2] / "frontend" / "static" / "frontend"


def rows_by_hub(data):
    f = {name: i for i, name in enumerate(data["fields"])}
    return {r[f["hub_id"]]: {name: r[i] for name, i in f.items()} for r in data["rows"]}, f


def test_it_works(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/beta", 395, params=8_000_000_000, precision="float16")
    make_run("org/gamma", 200)
    response = client.get(reverse("leaderboard"))
    assert response.status_code == 200
    data = page_data(response)
    rows, f = rows_by_hub(data)
    measured = {h: r for h, r in rows.items() if data["lookups"]["source"][r["source"]] == "measured"}
    assert sorted(measured) == ["org/alpha", "org/beta", "org/gamma"] and data["measured"] == 3
    assert [measured[h]["rank"] for h in ("org/alpha", "org/beta", "org/gamma")] == [1, 1, 3]
    assert measured["org/beta"]["correct"] == 395 and measured["org/beta"]["n"] == 480
    assert data["lookups"]["precision"][measured["org/beta"]["precision"]] == "float16"
    assert measured["org/beta"]["params"] == 8_000_000_000 and len(measured["org/beta"]["revision"]) == 12
    reported = [r for h, r in rows.items() if h not in measured]
    assert len(reported) == 22 and all(r["rank"] is None and r["run_id"] is None for r in reported)
    assert "reported by the paper" in text(response)
    assert "org/alpha" in text(response)  # named in the chart summary


def test_it_carries_the_hooks_the_page_script_and_browser_tests_use(client, make_run):
    make_run("org/alpha", 400)
    response = client.get(reverse("leaderboard"))
    dom = elements(response)
    assert dom.find("form", id="leaderboard-filters")
    for tag, name in (("select", "benchmark"), ("select", "split"), ("select", "shots"), ("select", "size_class"),
                      ("select", "model_type"), ("select", "precision"), ("select", "flagged"),
                      ("input", "search")):
        assert dom.find(tag, name=name), name
    for name in ("on_device", "include_reported"):
        assert dom.find("input", name=name, type="checkbox"), name
    assert dom.find("table", id="leaderboard-table")
    sorts = [a["data-sort"] for a in dom.find("th") if "data-sort" in a]
    assert {"rank", "name", "accuracy", "params"} <= set(sorts)
    assert dom.find("details", id="column-chooser") and len(dom.find("input", data_column=True)) >= 8
    csv = dom.find("a", class_="csv-link")[0]["href"]
    assert csv.startswith(reverse("api-leaderboard")) and "format=csv" in csv
    assert client.get(csv).status_code == 200
    assert_charts(response, "leaderboard")
    scripts = [a["src"] for a in dom.find("script") if "src" in a]
    assert any("vendor/plotly-" in s for s in scripts) and any("pages/leaderboard.js" in s for s in scripts)
    assert not any(s.startswith("http") for s in scripts)  # no CDN


def test_home_is_the_leaderboard_with_the_benchmarks(client, demo_loaded):
    page = text(client.get(reverse("home")))
    assert 'id="leaderboard-table"' in page and "<h1>Mobile-MMLU Leaderboard</h1>" in page
    assert "<td>240</td><td>480</td><td>480</td>" in page  # demo split counts
    assert "No measured results yet" in page


def test_it_handles_unknown_boards(client, demo_loaded):
    for query in ({"benchmark": "nope"}, {"split": "dev"}, {"split": "nope"}, {"shots": "x"}, {"shots": "-1"}):
        assert client.get(reverse("leaderboard"), query).status_code == 404, query


def test_sealed_split_shows_overall_accuracy_only(client, make_run):
    make_run("org/alpha", 300, split="test")
    make_run("org/beta", 100, split="test")
    response = client.get(reverse("leaderboard"), {"split": "test"})
    data = page_data(response)
    rows, _ = rows_by_hub(data)
    assert data["sealed"] is True
    alpha = rows["org/alpha"]
    assert alpha["correct"] is None and alpha["accuracy"] == 62.0  # 62.5% on the split's 2-point grid
    assert alpha["ci95_low"] == round(alpha["ci95_low"], 1)
    assert "sealed: overall accuracy only" in text(response)
    assert_no_sealed_content(text(response))


def test_it_flags_rows(client, make_run):
    make_run("org/alpha", 400)
    make_run("org/bad", 300)
    ModelEntry.objects.filter(hub_id="org/bad").update(flagged=True)  # before the first page: nothing cached
    rows, _ = rows_by_hub(page_data(client.get(reverse("leaderboard"))))
    assert rows["org/bad"]["flags"] & 1 and not rows["org/alpha"]["flags"]


def test_it_shows_new_results_and_hides_hidden_runs_at_once(client, make_run):
    make_run("org/alpha", 400)
    assert set(rows_by_hub(page_data(client.get(reverse("leaderboard"))))[0]) >= {"org/alpha"}
    run = make_run("org/beta", 300)
    rows, _ = rows_by_hub(page_data(client.get(reverse("leaderboard"))))
    assert "org/beta" in rows  # the cached data was replaced
    run_set_hidden(run, actor=None, reason="spam")  # the admin action
    rows, _ = rows_by_hub(page_data(client.get(reverse("leaderboard"))))
    assert "org/beta" not in rows


def test_it_stays_small_and_reads_only_aggregates_with_1000_models(client, demo_loaded,
                                                                   django_assert_max_num_queries):
    hub_ids = seed_board(n_models=1000, breakdown=False, hub_ids=realistic_hub_ids(1000))
    with django_assert_max_num_queries(20):  # no query per model
        response = client.get(reverse("leaderboard"), HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    body = gzip.decompress(response.content).decode()
    assert all(f'"{hub_id}"' in body for hub_id in hub_ids)
    scripts = sum(len(gzip.compress((STATIC / name).read_bytes())) for name in ("charts.js", "pages/leaderboard.js"))
    assert len(response.content) + scripts <= 300_000


def test_it_handles_a_cache_outage(client, make_run, monkeypatch):
    from frontend import board_cache

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    make_run("org/alpha", 400)
    monkeypatch.setattr(board_cache.cache, "get", broken)
    response = client.get(reverse("leaderboard"))
    assert response.status_code == 200 and "org/alpha" in rows_by_hub(page_data(response))[0]
