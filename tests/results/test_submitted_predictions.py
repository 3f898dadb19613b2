"""Uploaded predictions never stand in a model's measured row (leaderboard, model results and history, topic
tables, compare, CSV, API); they are listed on a board of their own, labelled "submitted predictions"."""
import csv
import io

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.models import Benchmark, Question
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.evaluations import display
from leaderboard.submissions.models import Submission
from tests.support.boards import current

pytestmark = pytest.mark.django_db


def _predictions(letter=lambda q: q.answer.split(",")[0]):
    rows = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation").order_by("position")
    file = io.BytesIO(("question_id,predicted_answer\n" + "".join(f"{q.uid},{letter(q)}\n" for q in rows)).encode())
    file.name = "predictions.csv"
    return file


@pytest.fixture
def board(client, make_run):
    """org/alpha measured at 25.0% (120 of 480); then its owner uploads predictions that score 100%."""
    measured = make_run("org/alpha", 120)
    client.force_login(User.objects.create_user("org", "org@example.com", "pw"))

    def upload(name="org/alpha", **kwargs):
        response = client.post(reverse("api-prediction-upload"), {
            "name": name, "benchmark": "mobile-mmlu", "split": "validation", "file": _predictions(**kwargs)})
        assert response.status_code == 201, response.content
        return EvaluationRun.objects.get(submission_id=response.json()["id"])

    uploaded = upload()
    client.logout()
    return {"measured": measured, "uploaded": uploaded, "upload": upload, "client": client}


def _csv(response):
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_an_upload_never_replaces_the_measured_row(client, board):
    (row,) = client.get(reverse("api-leaderboard")).json()["results"]
    assert (row["hub_id"], row["accuracy"], row["source"]) == ("org/alpha", 25.0, "measured")
    assert row["run_id"] == board["measured"].pk
    (line,) = _csv(client.get(reverse("api-leaderboard"), {"format": "csv"}))
    assert (line["accuracy"], line["run_id"]) == ("25.0", str(board["measured"].pk))


def test_the_model_api_and_history_show_measured_runs_only(client, board):
    detail = client.get(reverse("api-model-detail", args=["org/alpha"])).json()
    assert [r["run_id"] for r in detail["runs"]] == [board["measured"].pk]
    history = client.get(reverse("api-model-history", args=["org/alpha"])).json()
    assert [(r["run_id"], r["accuracy"]) for r in history] == [(board["measured"].pk, 25.0)]
    assert client.get(reverse("api-run-lm-eval", args=[board["uploaded"].pk])).status_code == 404


def test_topic_tables_and_compare_leave_uploads_out(client, board):
    from frontend import selectors as page_selectors

    rows = _csv(client.get(reverse("api-results-topics-csv"), {"benchmark": "mobile-mmlu"}))
    assert rows and {r["run_id"] for r in rows} == {str(board["measured"].pk)}
    benchmark = Benchmark.objects.get(slug="mobile-mmlu")
    assert list(page_selectors.open_board(benchmark=benchmark).values()) == [("org/alpha", "a" * 40, "bfloat16")]
    assert page_selectors.latest_result(hub_id="org/alpha", benchmark=benchmark).run_id == board["measured"].pk
    page = client.get(reverse("compare"), {"models": "org/alpha"}).content.decode()
    assert f"?run={board['measured'].pk}" in page and f"?run={board['uploaded'].pk}" not in page


def test_the_submitted_predictions_board(client, board):
    data = client.get(reverse("api-submitted-predictions")).json()
    assert data["count"] == 1
    (row,) = data["results"]
    assert row == {"source": "submitted predictions", "hub_id": "org/alpha", "uploaded_by": "org",
                   "run_id": board["uploaded"].pk, "submission_id": board["uploaded"].submission_id,
                   "scored_at": row["scored_at"], **display.cell(split="validation", n=480, correct=480)}
    assert "rank" not in row  # never ranked among measured rows

    client.force_login(User.objects.get(username="org"))
    latest = board["upload"](letter=lambda q: "A")  # a newer upload of the same model replaces its row
    client.logout()
    (row,) = current(client, reverse("api-submitted-predictions")).json()["results"]
    assert row["run_id"] == latest.pk and row["accuracy"] < 100.0
    (line,) = _csv(client.get(reverse("api-submitted-predictions"), {"format": "csv"}))
    assert (line["hub_id"], line["source"], line["run_id"]) == ("org/alpha", "submitted predictions", str(latest.pk))


def test_a_hidden_upload_leaves_the_submitted_board(client, board):
    Submission.objects.filter(pk=board["uploaded"].submission_id).update(hidden=True)
    assert client.get(reverse("api-submitted-predictions")).json()["count"] == 0


def test_the_submitted_board_is_open_splits_only_and_documented(client, board):
    assert client.get(reverse("api-submitted-predictions"), {"split": "test"}).status_code == 400
    schema = client.get("/api/schema/", {"format": "json"}).json()
    operation = schema["paths"]["/api/v1/leaderboard/submitted-predictions/"]["get"]
    assert operation["operationId"] == "v1_leaderboard_submitted_predictions_list"
    assert {p["name"] for p in operation["parameters"]} >= {"benchmark", "split", "version", "format"}


def test_the_submitted_predictions_page(client, board):
    response = client.get(reverse("submitted-predictions"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Submitted predictions <small>(not evaluated by us)</small>" in page
    assert 'data-hub-id="org/alpha"' in page and "100.0" in page and "<td>org</td>" in page
    assert f"{reverse('api-submitted-predictions')}?benchmark=mobile-mmlu&amp;split=validation&amp;format=csv" in page
    assert client.get(reverse("submitted-predictions"), {"split": "test"}).status_code == 404


def test_model_apis_find_any_spelling_of_a_hub_id(client, board):
    detail = client.get(reverse("api-model-detail", args=["ORG/Alpha"]))
    assert detail.status_code == 200 and detail.json()["hub_id"] == "org/alpha"
    assert [r["run_id"] for r in detail.json()["runs"]] == [board["measured"].pk]
    history = client.get(reverse("api-model-history", args=["Org/ALPHA"]))
    assert history.status_code == 200 and len(history.json()) == 1
