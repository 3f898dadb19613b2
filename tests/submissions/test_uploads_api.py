"""Uploaded predictions: scored on the server, labelled as submitted predictions; bad files store nothing."""
import io

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.models import Question
from leaderboard.evaluations.models import EvaluationRun
from tests.results.conftest import make_run  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def upload(client, demo_loaded):
    """Uploads as "uploader", whom an admin granted the namespace my-org."""
    from leaderboard.submissions.models import NamespaceGrant

    user = User.objects.create_user("uploader", "u@example.com", "pw")
    NamespaceGrant.objects.create(user=user, namespace="my-org", reason="maintains my-org's models")
    client.force_login(user)

    def post(text, **fields):
        data = {"name": "my-org/my-model", "benchmark": "mobile-mmlu", "split": "validation",
                "file": io.BytesIO(text.encode()), **fields}
        data["file"].name = "predictions.csv"
        return client.post(reverse("api-prediction-upload"), data)
    return post


def predictions(letter_for=lambda q: q.answer.split(",")[0]):
    rows = Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation").order_by("position")
    return "question_id,predicted_answer\n" + "".join(f"{q.uid},{letter_for(q)}\n" for q in rows)


def test_it_works(upload):
    response = upload(predictions())
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["kind"] == "predictions" and body["status"] == "succeeded"
    assert body["runs"][0]["accuracy"] == 100.0
    run = EvaluationRun.objects.get(submission_id=body["id"])
    assert run.backend == "upload" and run.summary["overall"]["n"] == 480


def test_it_scores_wrong_answers_as_wrong(upload):
    always_a = upload(predictions(lambda q: "A")).json()
    keys = (Question.objects.filter(version__benchmark__slug="mobile-mmlu", split="validation")
            .values_list("answer", flat=True))
    expected = round(100 * sum("A" in k.split(",") for k in keys) / len(keys), 1)
    assert always_a["runs"][0]["accuracy"] == expected


def first_id(text):
    return text.splitlines()[1].split(",")[0]


@pytest.mark.parametrize("mutate,named", [  # named: what the refusal must show, from the file before the change
    (lambda text: text.replace("demo-", "ghost-", 1), lambda text: repr(first_id(text).replace("demo-", "ghost-"))),
    (lambda text: text + text.splitlines()[1] + "\n", lambda text: repr(first_id(text))),  # the duplicated id
    (lambda text: "\n".join(text.splitlines()[:-3]) + "\n", lambda text: repr(text.splitlines()[-1].split(",")[0])),
    (lambda text: text.replace(",B\n", ",H\n", 1), lambda text: "'H'"),
    (lambda text: text.replace(",C\n", ",=C\n", 1), lambda text: "'='"),
])
def test_it_handles_bad_files_and_stores_nothing(upload, snapshot, mutate, named):
    before, text = snapshot(), predictions()
    response = upload(mutate(text))
    assert response.status_code == 400 and response.json()["code"] == "UPLOAD_INVALID"
    assert named(text) in response.json()["detail"] and "predictions.csv" in response.json()["detail"]
    assert snapshot() == before


def test_it_refuses_the_sealed_split(upload, snapshot):
    before = snapshot()
    response = upload(predictions(), split="test")
    assert response.status_code == 400 and list(response.json()) == ["split"] and snapshot() == before


def test_an_upload_never_pairs_with_a_sealed_run(upload, make_run):
    """An upload under a model's name that has a sealed test run adds no Δ point: chosen validation figures
    against Δ (or its per-topic evidence) would bisect the sealed counts."""
    from leaderboard.contamination.models import DeltaPoint

    make_run("my-org/my-model", 120, split="test", revision="", precision="auto")  # what an upload records
    assert DeltaPoint.objects.count() == 0
    response = upload(predictions())
    assert response.status_code == 201, response.content
    assert DeltaPoint.objects.count() == 0
