import csv as csv_module
import io
import re
import statistics
from urllib.parse import parse_qs, urlparse

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results.models import Level, ResultAggregate
from leaderboard.submissions.models import ModelEntry
from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.frontend.seed import VARIANTS, seed_board
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db


def url(hub_id, **query):
    path = reverse("model-detail", args=[hub_id])
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def headline(page: str) -> str:
    """The headline section: what a visitor sees first."""
    match = re.search(r'<section class="headline[^"]*" id="headline".*?</section>', page, re.S)
    assert match, "no headline on the model page"
    return match.group(0)


def squash(html: str) -> str:
    """Visible text, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_it_works(client, make_run):
    run = make_run("org/alpha", 300, variants=VARIANTS, extra_correct={"fixed-A": 420, "fixed-D": 120})
    response = client.get(url("org/alpha"))
    assert response.status_code == 200
    data = page_data(response)
    assert data["run_id"] == run.pk and len(data["categories"]) == 9 and len(data["subcategories"]) == 27
    assert sum(c["n"] for c in data["categories"]) == 480
    variants = data["variants"]
    assert variants["names"] == list(VARIANTS) and variants["columns"][0] == "Overall"
    overall = dict(zip(variants["names"], (row[0] for row in variants["z"])))
    assert overall["fixed-A"] == round(100 * 420 / 480, 2) and overall["fixed-D"] == round(100 * 120 / 480, 2)
    assert "a spread of 62.5 points" in data["summaries"]["variants"]
    assert_charts(response, "radar", "subcategories", "variants")
    page = text(response)
    assert page.count('<tr><th scope="row"><a href="/topics/') == 80  # the topic table, with intervals
    assert "server measurement" in page and "1,000 tokens/s" in page  # efficiency, labelled
    assert "ffffffffffff" in page  # the template hash, on the reproducibility card
    assert elements(response).find("a", class_="csv-link")


def test_the_headline_comes_first_with_rank_accuracy_test_delta_spread_and_date(client, make_run):
    make_run("org/beta", 400)
    make_run("org/alpha", 301, variants=VARIANTS, extra_correct={"fixed-A": 420, "fixed-D": 120})
    make_run("org/gamma", 200)
    make_run("org/alpha", 290, split="test")
    page = text(client.get(url("org/alpha")))
    top = squash(headline(page))
    assert page.index('id="headline"') < page.index('id="chart-radar"') < page.index('id="topic-table"')
    assert "#2 of 3" in top and "Mobile-MMLU, validation, 0-shot" in top  # beta 83%, alpha 63%, gamma 42%
    assert "62.7%" in top and "62.71" not in top  # 301/480, one decimal on the page
    assert re.search(r"95% interval 58\.\d–66\.\d", top)
    assert "60.0%" in top and "on a 2-point grid" in top  # 290/480 = 60.4% published on the 2-point grid
    assert "60.4" not in page
    assert re.search(r"Δ -2\.\d pt", top) and "no flag" in top  # as published: 60 − 62.7 (reweighted)
    assert "62.5 pt across 9 answer orders" in top  # fixed-A 87.5% − fixed-D 25%
    assert "Last evaluated" in top and "<time" in headline(page)
    terms = elements(client.get(url("org/alpha"))).find("a", class_="term")
    assert {"/about/#delta", "/about/#intervals", "/about/#z"} <= {a["href"] for a in terms}
    assert_no_sealed_content(page)


def test_a_contaminated_model_shows_its_flag_at_the_top_and_is_not_ranked_on_the_default_board(client, make_run):
    for hub_id, correct in (("org/beta", 330), ("org/gamma", 300), ("org/delta", 280)):
        make_run(hub_id, correct)
        make_run(hub_id, correct - 5, split="test")
    make_run("org/cheat", 470)  # validation far above test: contaminated
    make_run("org/cheat", 250, split="test")
    top = squash(headline(text(client.get(url("org/cheat")))))
    assert "⚑ Possible contamination" in top and "hidden on the default board" in top
    assert "not ranked" in top and "#1 of 4 with flagged models shown" in top
    assert "⚑ flagged" in top  # beside Δ
    clean = squash(headline(text(client.get(url("org/beta")))))
    assert "#1 of 3" in clean and "⚑" not in clean  # the default board: the flagged model hidden


def test_the_headline_shows_the_sealed_run_the_ladder_rule_shows(client, make_run):
    make_run("org/alpha", 300)
    make_run("org/alpha", 150, split="test")  # 31.25% -> 32 on the 2-point grid
    make_run("org/alpha", 400, split="test")  # a significant gain: the Ladder rule publishes it (84)
    top = squash(headline(text(client.get(url("org/alpha")))))
    assert "84.0%" in top and "32.0" not in top


def test_the_headline_says_what_is_missing(client, make_run):
    make_run("org/alpha", 300)
    top = squash(headline(text(client.get(url("org/alpha")))))
    assert "#1 of 1" in top
    assert "no published test figure" in top and "needs a sealed test result" in top
    assert "one answer order evaluated" in top


def test_compare_csv_and_question_links(client, make_run):
    for hub_id, correct in (("org/beta", 400), ("org/alpha", 300), ("org/gamma", 200)):
        make_run(hub_id, correct)
    dom = elements(client.get(url("org/alpha")))
    compare = [a["href"] for a in dom.find("a") if a.get("href", "").startswith("/compare/?")]
    assert compare and parse_qs(urlparse(compare[0]).query)["models"] == ["org/alpha,org/beta,org/gamma"]
    csv = next(a["href"] for a in dom.find("a", class_="button-link secondary csv-link"))
    assert urlparse(csv).path == reverse("api-results-topics-csv")
    assert parse_qs(urlparse(csv).query) == {"benchmark": ["mobile-mmlu"], "model": ["org/alpha"]}
    rows = list(csv_module.DictReader(io.StringIO(b"".join(client.get(csv).streaming_content).decode())))
    assert len(rows) == 80 and {r["hub_id"] for r in rows} == {"org/alpha"}  # this model's topics only
    assert any(a.get("href") == reverse("model-questions", args=["org/alpha"]) for a in dom.find("a"))


def test_the_topic_table_sorts_and_compares_each_topic_with_the_board_median(client, make_run):
    for hub_id, correct in (("org/alpha", 300), ("org/beta", 200), ("org/gamma", 420), ("org/delta", 100)):
        make_run(hub_id, correct)
    response = client.get(url("org/alpha"))
    dom = elements(response)
    table = dom.find("table", id="topic-table")[0]
    assert "sortable" in table["class"].split()
    assert [th.get("data-sort") for th in dom.find("th", scope="col")][:7] == [
        "text", "num", "num", "num", None, "num", "num"]
    page = text(response)
    key = (ResultAggregate.objects.filter(result__hub_id="org/alpha", level=Level.TOPIC)
           .exclude(correct=0).order_by("key").first())
    accuracies = [100 * a.correct / a.n for a in ResultAggregate.objects.filter(level=Level.TOPIC, key=key.key)]
    median = statistics.median(accuracies)
    row = re.search(rf'<tr><th scope="row"><a href="/topics/{key.key}/.*?</tr>', page, re.S).group(0)
    cells = re.findall(r'<td class="num" data-value="([^"]*)">', row)
    assert float(cells[0]) == round(100 * key.correct / key.n, 2)  # accuracy
    assert float(cells[2]) == pytest.approx(median, abs=0.01)  # board median
    assert float(cells[1]) == pytest.approx(100 * key.correct / key.n - median, abs=0.06)  # vs board median


def test_the_board_median_takes_the_same_queries_however_many_models(client, make_run):
    make_run("org/alpha", 300)

    def queries():
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url("org/alpha")).status_code == 200
        return len(ctx.captured_queries)

    few = queries()
    seed_board(n_models=40)
    assert queries() == few


def test_it_shows_one_run_history_with_score_differences(client, make_run):
    first = make_run("org/alpha", 240)
    second = make_run("org/alpha", 288)
    page = text(client.get(url("org/alpha")))
    assert len(re.findall(r"<h2[^>]*>Run history</h2>", page)) == 1 and "<h2>Runs</h2>" not in page
    assert 'id="history-table"' not in page
    table = re.search(r'<table class="data" id="runs-table">.*?</table>', page, re.S).group(0)
    assert table.index(f">{second.pk} (shown)<") < table.index(f">{first.pk}</a>")  # newest first
    assert f"+10.0 (vs run {first.pk})" in table  # 50% -> 60%
    assert page_data(client.get(url("org/alpha")))["run_id"] == second.pk
    assert page_data(client.get(url("org/alpha", run=first.pk)))["run_id"] == first.pk


def test_open_figures_show_one_decimal(client, make_run):
    make_run("org/alpha", 301)  # 62.708...%
    page = re.sub(r'<script id="page-data".*?</script>', "", text(client.get(url("org/alpha"))), flags=re.S)
    assert "62.7" in page and "62.71" not in page  # the charts' data keeps 2 places; their labels show one


def test_sealed_run_shows_overall_only(client, make_run):
    make_run("org/alpha", 300)
    sealed = make_run("org/alpha", 250, split="test")
    response = client.get(url("org/alpha", run=sealed.pk))
    page = text(response)
    assert response.status_code == 200 and 'id="page-data"' not in page and 'id="topic-table"' not in page
    assert 'id="sealed-note"' in page and "per-category/subcategory/topic figures are withheld" in page
    assert "52.0" in page and "52.1" not in page  # 52.08%: published on the split's 2-point grid
    assert_no_sealed_content(page)


def test_it_handles_missing_models_and_runs(client, make_run):
    run = make_run("org/alpha", 300)
    other = make_run("org/beta", 300)
    assert client.get(url("org/nope")).status_code == 404
    assert client.get(url("org/alpha", run="x")).status_code == 404
    assert client.get(url("org/alpha", run=other.pk)).status_code == 404
    ModelEntry.objects.filter(hub_id="org/alpha").update(hidden=True)
    assert client.get(url("org/alpha")).status_code == 404
    ModelEntry.objects.filter(hub_id="org/alpha").update(hidden=False)
    EvaluationRun.objects.filter(pk=run.pk).update(hidden=True)
    page = text(client.get(url("org/alpha")))
    assert "No scored runs yet" in page and "not on this board yet" in page
