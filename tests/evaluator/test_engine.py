import math

import pytest

from evaluator.engine import plan_evaluation, rescore_rows, run_evaluation
from evaluator.questions import Question
from evaluator.variants import VARIANTS


class Crash(Exception):
    pass


class RecordingBackend:
    """Letter preference from the prompt text; records every prompt it sees."""

    name = "recording"
    load_seconds = 0.0

    def __init__(self, outputs=None):
        self.prompts, self.outputs = [], outputs or {}

    def letter_logprobs(self, prompts, *, use_chat_template=False):
        self.prompts.extend(prompts)
        return [{L: -1.0 - 0.1 * ((len(p) + i) % 7) for i, L in enumerate("ABCDEFGHIJ")} for p in prompts]

    def generate(self, prompts, *, max_new_tokens, use_chat_template=False):
        self.prompts.extend(prompts)
        return [self.outputs.get(i % len(self.outputs), "") if self.outputs else "" for i in range(len(prompts))]

    def count_tokens(self, prompt, *, use_chat_template=False):
        return len(prompt.split())

    def describe(self):
        return {"backend": self.name}


@pytest.mark.slow
def test_resume_gives_the_same_result_as_straight_through(tiny_backend, demo_questions):
    kwargs = dict(variants=("original", "fixed-B", "R1"), seed=4, chunk_size=16)
    straight_chunks = {}
    straight = run_evaluation(tiny_backend, demo_questions, on_chunk=lambda i, r: straight_chunks.update({i: r}),
                              **kwargs)
    assert straight.n_chunks == math.ceil(3 * len(demo_questions) / 16) == len(straight_chunks)

    persisted = {}

    def crash_after_two(index, rows):
        persisted[index] = [dict(r) for r in rows]
        if len(persisted) == 2:
            raise Crash  # the worker dies after persisting chunk 1

    with pytest.raises(Crash):
        run_evaluation(tiny_backend, demo_questions, on_chunk=crash_after_two, **kwargs)
    resumed_new = []
    resumed = run_evaluation(tiny_backend, demo_questions, done_chunks=persisted,
                             on_chunk=lambda i, r: resumed_new.append(i), **kwargs)
    assert sorted(persisted) == [0, 1] and resumed_new == list(range(2, straight.n_chunks))
    assert resumed.computed_chunks == resumed_new
    assert resumed.rows == straight.rows
    assert resumed.summary == straight.summary
    assert resumed.fingerprint == straight.fingerprint

    # done_chunks as a set of indices + a loader (the database variant)
    via_loader = run_evaluation(tiny_backend, demo_questions, done_chunks=set(straight_chunks),
                                load_chunk=straight_chunks.__getitem__, **kwargs)
    assert via_loader.rows == straight.rows and via_loader.computed_chunks == []


def test_missing_chunks_are_reported(demo_questions):
    res = run_evaluation(RecordingBackend(), demo_questions[:10], chunk_size=4, done_chunks={0, 2})
    assert res.missing_chunks == [0, 2] and res.summary["partial"] is True
    assert len(res.rows) == 4  # 10 items -> chunks of 4, 4, 2; only chunk 1 is at hand
    plan = plan_evaluation(demo_questions[:10], chunk_size=4)
    assert [r["question_id"] for r in res.rows] == [it.question.question_id for it in plan.chunk(1)]


def test_the_plan_goes_topic_by_topic_and_question_major(demo_questions):
    """A topic's prompts (one few-shot prefix) are adjacent, and so are a question's answer orders."""
    plan = plan_evaluation(demo_questions[:16], variants=("original", "R1", "R2"))
    keys = [(it.question.topic, it.question.question_id, it.view.variant) for it in plan.items]
    topics = [t for t, _, _ in keys]
    assert topics == sorted(topics)
    for i in range(0, len(keys), 3):
        assert {k[1] for k in keys[i:i + 3]} == {keys[i][1]} and [k[2] for k in keys[i:i + 3]] == ["original", "R1", "R2"]
    in_topic = [q.question_id for q in demo_questions[:16] if q.topic == topics[0]]
    assert [k[1] for k in keys if k[0] == topics[0]][::3] == in_topic  # the file's order within a topic


def test_progress_and_plan(demo_questions):
    seen = []
    res = run_evaluation(RecordingBackend(), demo_questions[:10], variants=("original", "R2"), chunk_size=6,
                         progress=lambda d, t: seen.append((d, t)))
    assert seen == [(6, 20), (12, 20), (18, 20), (20, 20)]
    plan = plan_evaluation(demo_questions[:10], variants=("original", "R2"), chunk_size=6)
    assert plan.fingerprint == res.fingerprint and plan.n_chunks == 4
    assert plan_evaluation(demo_questions[:10], variants=("original", "R2"), chunk_size=5).fingerprint != res.fingerprint


def test_fewshot_exemplars_come_first_and_match_within_a_topic():
    dev = [Question(f"d{t}{i}", f"Dev {t}{i}?", ("x", "y"), frozenset("A"), t) for t in "TU" for i in range(4)]
    qs = [Question(f"q{i}", f"Question {i}?", ("a", "b", "c"), frozenset("B"), "TU"[i % 2]) for i in range(6)]
    backend = RecordingBackend()
    res = run_evaluation(backend, qs, shots=2, dev_questions=dev)
    heads = {}
    by_id = {q.question_id: q for q in qs}
    for q, p in zip((by_id[r["question_id"]] for r in res.rows), backend.prompts):
        head = p[: p.index(q.question)]
        assert head.startswith(f"Dev {q.topic}0?") and f"Dev {q.topic}1?" in head and f"{q.topic}2" not in head
        heads.setdefault(q.topic, set()).add(head)
    assert all(len(h) == 1 for h in heads.values())
    assert res.settings["exemplars"] == {"T": 2, "U": 2}
    with pytest.raises(ValueError, match="dev_questions"):
        run_evaluation(backend, qs, shots=2)


def test_generate_mode_counts_unparsed_as_wrong(demo_questions):
    qs = demo_questions[:4]
    backend = RecordingBackend(outputs={0: "The answer is (A)", 1: "no idea", 2: "Answer: C", 3: "B"})
    res = run_evaluation(backend, qs, mode="generate")
    assert [r["predicted"] for r in res.rows] == ["A", None, "C", "B"]
    assert res.rows[1]["correct"] is False and res.summary["unparsed"] == {"n": 1, "rate": 0.25}


def test_rows_are_json_and_rescorable_without_answers(demo_questions):
    import json
    sealed = [Question(q.question_id, q.question, q.options, None, q.topic) for q in demo_questions[:12]]
    res = run_evaluation(RecordingBackend(), sealed, variants=("original", "R1", "R3"))
    assert all("correct" not in r for r in res.rows) and res.summary["overall"]["n"] == 0
    json.loads(json.dumps(res.rows))
    key = {q.question_id: q.answer for q in demo_questions[:12]}
    scored = rescore_rows(res.rows, key)
    labelled = run_evaluation(RecordingBackend(), demo_questions[:12], variants=("original", "R1", "R3"))
    assert [r["correct"] for r in scored] == [r["correct"] for r in labelled.rows]


def test_fixed_d_skips_three_option_questions():
    qs = [Question("q3", "Q?", ("a", "b", "c"), frozenset("A")), Question("q4", "Q?", ("a", "b", "c", "d"), frozenset("A"))]
    res = run_evaluation(RecordingBackend(), qs, variants=VARIANTS)
    assert res.summary["skipped_items"] == 1
    assert ("q3", "fixed-D") not in {(r["question_id"], r["variant"]) for r in res.rows}


def test_a_plan_made_by_the_caller_is_used_not_made_again(demo_questions, monkeypatch):
    from evaluator import engine

    kwargs = dict(variants=("original", "R2"), seed=3, chunk_size=6)
    own = run_evaluation(RecordingBackend(), demo_questions[:10], **kwargs)
    plan = plan_evaluation(demo_questions[:10], **kwargs)
    monkeypatch.setattr(engine, "plan_evaluation", lambda *a, **k: pytest.fail("planned twice"))
    given = run_evaluation(RecordingBackend(), demo_questions[:10], plan=plan, **kwargs)
    assert given.rows == own.rows and given.fingerprint == own.fingerprint and given.summary == own.summary
    with pytest.raises(engine.PlanMismatch):
        run_evaluation(RecordingBackend(), demo_questions[:10], plan=plan, expected_fingerprint="0" * 64, **kwargs)
    with pytest.raises(ValueError, match="chunk_size"):
        run_evaluation(RecordingBackend(), demo_questions[:10], plan=plan, **{**kwargs, "chunk_size": 5})


def test_the_summary_is_made_only_when_read(demo_questions, monkeypatch):
    """The GPU worker stores rows and never reads the summary; the trusted scoring step summarises."""
    from evaluator import engine

    made = []
    real = engine.summarize
    monkeypatch.setattr(engine, "summarize", lambda rows, variants: made.append(1) or real(rows, variants))
    res = run_evaluation(RecordingBackend(), demo_questions[:10], chunk_size=4, done_chunks={1})
    assert made == []
    assert res.summary["partial"] is True and res.summary["skipped_items"] == 0 and made == [1]
    assert res.to_dict()["summary"] is res.summary and made == [1]
