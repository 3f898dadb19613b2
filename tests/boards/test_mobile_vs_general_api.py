"""The mobile-vs-general API and CSV on a database: the boards' published figures paired, places and rank change,
Spearman's correlation, the paper's Table 2 rows apart, flagged and hidden models as on the board, the sealed split
as published."""
import csv
import io

import pytest

from leaderboard.boards.serializers import ROW_COLUMNS
from leaderboard.evaluations import display
from leaderboard.submissions.models import ModelEntry

pytestmark = pytest.mark.django_db
URL = "/api/v1/mobile-vs-general/"
# hub id, correct of the 480 demo validation questions, correct of the 42 of the demo MMLU-Pro
MODELS = (("org/a", 400, 30), ("org/b", 350, 35), ("org/c", 300, 20), ("org/d", 250, 10))


@pytest.fixture
def boards(general_board, make_run):
    for hub_id, mobile, general in MODELS:
        make_run(hub_id, mobile)
        make_run(hub_id, general, benchmark="mmlu-pro")
    make_run("org/mobile-only", 420)


def _rows(client, query=""):
    body = client.get(URL + query).json()
    return ([r for r in body["results"] if r["source"] == "measured"],
            [r for r in body["results"] if r["source"] != "measured"])


def test_it_pairs_the_models_measured_on_both_boards_with_the_figures_the_boards_publish(client, boards):
    measured, paper = _rows(client)
    assert [r["hub_id"] for r in measured] == ["org/a", "org/b", "org/c", "org/d"]  # mobile order; mobile-only left out
    by_hub = {r["hub_id"]: r for r in measured}
    places = {hub: (r["mobile_rank"], r["general_rank"], r["rank_change"]) for hub, r in by_hub.items()}
    assert places["org/a"] == (1, 2, 1) and places["org/b"] == (2, 1, -1)
    for slug, side in (("mobile-mmlu", "mobile"), ("mmlu-pro", "general")):
        board = {r["hub_id"]: r for r in client.get(f"/api/v1/leaderboard/?benchmark={slug}").json()["results"]}
        for hub_id, row in by_hub.items():
            published = board[hub_id]
            assert (row[f"{side}_accuracy"], row[f"{side}_ci95_low"], row[f"{side}_ci95_high"],
                    row[f"{side}_board_rank"], row[f"{side}_run_id"]) == (
                published["accuracy"], published["ci95_low"], published["ci95_high"], published["rank"],
                published["run_id"])
    # The paper's Table 2 rows come after, labelled, with no run, their places among themselves only.
    assert paper and {r["source"] for r in paper} == {"paper, Table 2"}
    assert all(r["mobile_run_id"] is None and r["mobile_board_rank"] is None for r in paper)
    assert sorted(r["mobile_rank"] for r in paper)[0] == 1 and len(paper) == 22


def test_the_correlation_of_measured_models_is_apart_from_the_papers(client, boards):
    body = client.get(URL + "correlation/").json()
    # mobile places 1,2,3,4; general 2,1,3,4: rho = 1 - 6·2 / (4·15) = 0.8; 4 models: an interval
    assert body["measured"]["n"] == 4 and body["measured"]["rho"] == pytest.approx(0.8)
    assert body["measured"]["ci95_low"] < 0.8 < body["measured"]["ci95_high"]
    assert "Fisher" in body["measured"]["method"]
    assert body["paper"]["n"] == 22 and body["paper"]["rho"] is not None
    assert (body["mobile"], body["general"], body["split"], body["shots"]) == ("mobile-mmlu", "mmlu-pro",
                                                                               "validation", 0)
    response = client.get(URL + "correlation/?format=csv")
    table = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [r["source"] for r in table] == ["measured", "paper, Table 2"] and table[0]["n"] == "4"


def test_flagged_models_are_left_out_unless_asked_for_and_hidden_ones_always(client, boards):
    ModelEntry.objects.filter(hub_id="org/b").update(flagged=True)
    ModelEntry.objects.filter(hub_id="org/c").update(hidden=True)
    from leaderboard.core.cache_generation import results_changed

    results_changed()
    measured, _ = _rows(client)
    assert [r["hub_id"] for r in measured] == ["org/a", "org/d"]
    assert client.get(URL + "correlation/").json()["flagged_hidden"] == 1
    measured, _ = _rows(client, "?include_flagged=true")
    assert [(r["hub_id"], r["flagged"]) for r in measured] == [("org/a", False), ("org/b", True), ("org/d", False)]


def test_the_sealed_split_is_compared_as_published_ties_included(client, general_board, make_run):
    for hub_id, test_correct in (("org/x", 300), ("org/y", 301), ("org/z", 200)):
        make_run(hub_id, test_correct)  # validation as test: no contamination flag
        make_run(hub_id, test_correct, split="test")
        make_run(hub_id, 20, benchmark="mmlu-pro")
    x, y = (display.cell(split="test", n=480, correct=c)["accuracy"] for c in (300, 301))
    assert x == y  # the same published figure for different counts
    measured, _ = _rows(client, "?split=test")
    by_hub = {r["hub_id"]: r for r in measured}
    assert by_hub["org/x"]["mobile_rank"] == by_hub["org/y"]["mobile_rank"] == 1
    assert by_hub["org/x"]["mobile_accuracy"] == x and by_hub["org/x"]["mobile_grid"]
    assert by_hub["org/z"]["mobile_rank"] == 3
    assert all("correct" not in r and "n" not in r for r in measured)


def test_the_csv_has_the_documented_columns_and_labels_the_papers_rows(client, boards):
    response = client.get(URL + "?format=csv&sort=-rank_change")
    assert response["Content-Disposition"].endswith('mobile-mmlu-vs-mmlu-pro-validation-0shot.csv"')
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert list(rows[0]) == ROW_COLUMNS
    assert [r["hub_id"] for r in rows[:2]] == ["org/a", "org/c"]  # rank change +1 (the mobile specialist), then 0
    assert rows[4]["source"] == "paper, Table 2" and rows[4]["mobile_run_id"] == ""


def test_a_general_benchmark_not_hosted_has_no_measured_rows_and_bad_parameters_are_refused(client, boards):
    measured, paper = _rows(client, "?general=mmlu-cf")
    assert measured == [] and paper == []  # the paper reports no MMLU-CF figures
    assert client.get(URL + "?sort=bogus").status_code == 400
    assert client.get(URL + "?general=mmlu").status_code == 400
    assert client.get(URL + "?zz=1").json()["code"] == "UNKNOWN_PARAMETER"
    schema = client.get("/api/schema/").content.decode()
    assert "/api/v1/mobile-vs-general/" in schema and "/api/v1/mobile-vs-general/correlation/" in schema
