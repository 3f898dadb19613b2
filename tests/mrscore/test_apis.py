"""The MRScore API: per-topic and per-question scores, CSV, provenance, the paper comparison, and the
sealed rule (no sealed question text anywhere in any output)."""
import csv
import io

import pytest
from django.core.management import call_command

from leaderboard.benchmarks.models import Question, Topic
from leaderboard.mrscore import aggregates
from leaderboard.mrscore.models import MRScoreJob
from tests.support.sealed import assert_no_sealed_content, sealed_strings

pytestmark = pytest.mark.django_db
FORMULA = '=HYPERLINK("http://evil.example","x")'


@pytest.fixture
def scored(demo_loaded, judge_server):
    """Every split judged (loopback endpoint: the sealed split too) with crafted replies."""
    def reply(question):
        if len(question) % 7 == 0:
            return FORMULA  # unparsable; its raw reply must be escaped in CSV
        return str(1 + len(question) % 10)

    judge_server.reply = reply
    call_command("mrscore", "--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--revision", "r1", "--concurrency", "16", "--chunk-size", "256", "--verbosity", "0",
                 stdout=io.StringIO(), stderr=io.StringIO())
    job = MRScoreJob.objects.get()
    assert job.splits == ["dev", "validation", "test"]
    return job


def test_it_works(client, scored):
    response = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/")
    assert response.status_code == 200
    data = response.json()
    assert len(data["topics"]) == 80
    first = data["topics"][0]
    assert first["n"] == 9 and first["published_mrscore"] is not None  # 3 dev + 6 validation: the open splits
    assert first["ci95_low"] <= first["mrscore"] <= first["ci95_high"]
    assert data["provenance"]["judge_model"] == "judge-x" and data["provenance"]["judge_revision"] == "r1"
    assert data["provenance"]["endpoint_kind"] == "openai-compatible-http"
    assert data["provenance"]["prompt_hash"] == scored.prompt_hash and data["provenance"]["judged_at"]
    assert data["summary"]["n_unparsable"] > 0 and set(data["summary"]["bins"]) == {">= 7", "5-6.9", "3-4.9", "< 3"}
    assert data["summary"]["comparison"]["shown"] is False  # 9 questions per topic: not a real benchmark
    assert "30+" in data["summary"]["comparison"]["reason"]

    distribution = client.get("/api/v1/mrscore/distribution/?benchmark=mobile-mmlu").json()
    assert [d["benchmark"] for d in distribution] == ["mobile-mmlu"]
    assert sum(distribution[0]["histogram"]) == distribution[0]["n_scored"] == scored.summary["n_scored"]


def test_it_serves_open_question_scores(client, scored):
    response = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?split=validation&limit=500")
    data = response.json()
    assert response.status_code == 200 and data["count"] == 480 and len(data["results"]) == 480
    assert {r["split"] for r in data["results"]} == {"validation"}
    unparsable = [r for r in data["results"] if r["method"] == "unparsable"]
    assert unparsable and all(r["mrscore"] is None and r["raw_reply"] == FORMULA for r in unparsable)
    everything = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?limit=5000").json()
    open_questions = Question.objects.filter(version__benchmark__slug="mobile-mmlu").exclude(split="test")
    assert everything["count"] == open_questions.count()
    topic = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?topic=first-aid").json()
    assert topic["count"] == 9 and data["provenance"]["judge_model"] == "judge-x"


def test_it_handles_the_sealed_split(client, scored):
    response = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?split=test")
    assert response.status_code == 404 and response.json()["code"] == "SEALED_SPLIT"
    bodies = [
        client.get(url).content.decode()
        for url in ("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/",
                    "/api/v1/mrscore/benchmarks/mobile-mmlu/topics/?format=csv",
                    "/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?limit=5000",
                    "/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?format=csv",
                    "/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?split=test&format=csv",
                    "/api/v1/mrscore/jobs/", f"/api/v1/mrscore/jobs/{scored.pk}/",
                    "/api/v1/mrscore/distribution/", "/api/v1/mrscore/distribution/?format=csv")
    ]
    out = io.StringIO()
    call_command("mrscore", "--show", str(scored.pk), "--json", stdout=out)
    # The demo bank has a test question whose text is also an open validation question ("What is the capital
    # of Canada?"); served as the open one, it is not a leak, so strings shared with open splits are left out.
    open_texts = set(Question.objects.exclude(split="test").values_list("text", flat=True))
    open_texts |= {o for options in Question.objects.exclude(split="test").values_list("options", flat=True)
                   for o in options}
    assert_no_sealed_content("\n".join(bodies) + out.getvalue(), strings=sealed_strings() - open_texts)
    sealed_uids = set(Question.objects.filter(split="test").values_list("uid", flat=True))
    assert not any(uid in bodies[3] for uid in sealed_uids)


def test_it_serves_csv(client, scored):
    response = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/questions/?format=csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == Question.objects.filter(version__benchmark__slug="mobile-mmlu").exclude(split="test").count()
    assert {"uid", "mrscore", "method", "raw_reply", "judge_model", "prompt_hash", "judged_at"} <= set(rows[0])
    raw = [r["raw_reply"] for r in rows if r["method"] == "unparsable"]
    assert raw and all(r == "'" + FORMULA for r in raw)  # formula cells escaped
    assert all(not r["raw_reply"].startswith(("=", "+", "-", "@")) for r in rows)
    topics = list(csv.DictReader(io.StringIO(
        client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/?format=csv").content.decode())))
    assert len(topics) == 80 and topics[0]["endpoint_kind"] == "openai-compatible-http"
    assert float(topics[0]["mrscore"]) > 0 and topics[0]["published_mrscore"]


def test_it_handles_missing_scores(client, demo_loaded):
    assert client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/").status_code == 404
    assert client.get("/api/v1/mrscore/benchmarks/nope/topics/").status_code == 404
    assert client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/?job=999").status_code == 404
    assert client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/?job=x").status_code == 400
    assert client.get("/api/v1/mrscore/distribution/").json() == []


def test_it_shows_the_spearman_correlation_for_a_real_judge(client, demo_loaded, judge_server, monkeypatch):
    """With enough questions per topic (threshold lowered for the demo bank) and a non-demo judge that
    agrees with the paper, the rank correlation is shown beside the published scores."""
    monkeypatch.setattr(aggregates, "COMPARISON_MIN_TOPIC_QUESTIONS", 5)
    published = dict(Topic.objects.filter(benchmark__slug="mobile-mmlu").values_list("pk", "published_mrscore"))
    by_text = {text: published[topic] for text, topic in Question.objects.filter(
        version__benchmark__slug="mobile-mmlu").values_list("text", "topic_id")}
    judge_server.reply = lambda q: {"content": str(round(by_text[q])),
                                    "top": [(str(int(by_text[q])), 1 - by_text[q] % 1),
                                            (str(int(by_text[q]) + 1), by_text[q] % 1)]}
    call_command("mrscore", "--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--verbosity", "0", stdout=io.StringIO(), stderr=io.StringIO())
    data = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/").json()
    comparison = data["summary"]["comparison"]
    assert comparison["shown"] is True and comparison["n_topics"] == 80
    assert comparison["rho"] > 0.99 and comparison["ci95"][0] < comparison["rho"]
    assert data["provenance"]["scoring"] == "logprobs"
    # Equal up to the few question texts the demo bank repeats across topics.
    same = [row for row in data["topics"] if row["mrscore"] == pytest.approx(row["published_mrscore"], abs=1e-3)]
    assert len(same) >= 75


def test_it_documents_the_api(client):
    schema = client.get("/api/schema/").content.decode()
    assert "/api/v1/mrscore/benchmarks/{slug}/topics/" in schema and "ProvenanceSerializer" not in schema[:0]
