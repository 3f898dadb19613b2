"""The HTTP judge against a real chat-completions server on loopback, replying with crafted texts."""

import pytest

from evaluator.judges import JudgeError, create_judge
from evaluator.judges.http import endpoint_is_private

REPLIES = {
    "q-seven": "7", "q-ten": "10", "q-slash": "7/10", "q-eleven": "11", "q-word": "seven", "q-empty": "",
    "q-refusal": "I'm sorry, but I can't help with rating that question.", "q-score": "Score: 4",
    "q-decimal": "7.5", "q-zero": "0",
}
EXPECTED = {
    "q-seven": (7.0, "parsed"), "q-ten": (10.0, "parsed"), "q-slash": (7.0, "parsed"), "q-eleven": (None, "unparsable"),
    "q-word": (None, "unparsable"), "q-empty": (None, "unparsable"), "q-refusal": (None, "unparsable"),
    "q-score": (4.0, "parsed"), "q-decimal": (None, "unparsable"), "q-zero": (None, "unparsable"),
}


def test_it_works(judge_server, monkeypatch):
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test-123")
    judge_server.reply = lambda q: REPLIES[q]
    judge = create_judge("http", "judge-model", endpoint=judge_server.endpoint, api_key_env="TEST_JUDGE_KEY",
                         concurrency=4, revision="abc123")
    questions = list(REPLIES)
    verdicts = judge.judge(questions)
    for question, verdict in zip(questions, verdicts):
        assert (verdict.score, verdict.method) == EXPECTED[question], question
        assert verdict.raw == REPLIES[question]  # kept as given, never guessed
    body = judge_server.requests[0]
    assert body["model"] == "judge-model" and body["temperature"] == 0 and body["logprobs"] is True
    assert all(h.get("Authorization") == "Bearer sk-test-123" for h in judge_server.headers)
    described = judge.describe()
    assert described["endpoint_kind"] == "openai-compatible-http" and described["revision"] == "abc123"
    assert described["system_fingerprints"] == ["fp-test"] and "sk-test" not in str(described)


def test_it_handles_logprobs(judge_server):
    judge_server.reply = lambda q: {"content": "8", "top": [("8", 0.5), ("9", 0.25), (" 7", 0.2), ("I", 0.05)]}
    (verdict,) = create_judge("http", "m", endpoint=judge_server.endpoint).judge(["q"])
    assert verdict.method == "logprobs"
    assert verdict.score == pytest.approx((8 * 0.5 + 9 * 0.25 + 7 * 0.2) / 0.95)
    assert verdict.mass == pytest.approx(0.95)


def test_it_handles_ten_split_over_two_tokens(judge_server):
    judge_server.reply = lambda q: {"content": "10", "top": [("1", 0.8), ("9", 0.2)], "second": [("0", 0.9)]}
    (verdict,) = create_judge("http", "m", endpoint=judge_server.endpoint).judge(["q"])
    p1, p10, p9 = 0.8 * 0.1, 0.8 * 0.9, 0.2
    assert verdict.score == pytest.approx((p1 + 10 * p10 + 9 * p9) / (p1 + p10 + p9))
    assert verdict.ten_split == "continuation"


def test_it_handles_a_server_without_logprobs(judge_server):
    judge_server.refuse_logprobs = True
    judge_server.reply = lambda q: "6"
    judge = create_judge("http", "m", endpoint=judge_server.endpoint, concurrency=1)
    assert [v.score for v in judge.judge(["a", "b"])] == [6.0, 6.0]
    assert judge.describe()["logprobs_refused"] is True and judge.describe()["mode"] == "reply"
    assert [bool(r.get("logprobs")) for r in judge_server.requests] == [True, False, False]


def test_it_handles_transient_errors(judge_server):
    calls = {"n": 0}

    def status(question):
        calls["n"] += 1
        return 503 if calls["n"] <= 2 else None

    judge_server.status_for = status
    judge = create_judge("http", "m", endpoint=judge_server.endpoint, retry_backoff=0.01)
    assert judge.judge(["q"])[0].score == 7.0


def test_it_handles_errors_without_leaking_the_question(judge_server):
    judge_server.status_for = lambda q: 401
    judge = create_judge("http", "m", endpoint=judge_server.endpoint, retry_backoff=0.01)
    with pytest.raises(JudgeError) as info:
        judge.judge(["a secret sealed question text"])
    assert "401" in str(info.value) and "secret sealed" not in str(info.value)
    assert "MRSCORE_JUDGE_API_KEY" in str(info.value)


def test_it_handles_an_unreachable_endpoint():
    judge = create_judge("http", "m", endpoint="http://127.0.0.1:9/v1", max_retries=1, retry_backoff=0.01, timeout=2)
    with pytest.raises(JudgeError, match="unreachable"):
        judge.judge(["q"])
    with pytest.raises(JudgeError, match="http"):
        create_judge("http", "m", endpoint="ftp://example.org")


def test_it_tells_private_endpoints():
    assert endpoint_is_private("http://127.0.0.1:8000/v1") and endpoint_is_private("http://localhost/v1")
    assert endpoint_is_private("http://10.0.0.5/v1") and endpoint_is_private("http://vllm:8000/v1")
    assert not endpoint_is_private("https://api.openai.com/v1")
