import pytest

from evaluator.backends import BackendError, available_backends, create_backend
from evaluator.engine import run_evaluation
from evaluator.prompts import get_template
from evaluator.variants import VARIANTS, make_view

from .conftest import expected_biased_probs


def test_letter_forms_are_both_single_tokens(biased_backend):
    tok = biased_backend.tokenizer
    for L, ids in biased_backend.forms.items():
        assert sorted(ids) == sorted(tok.encode(s, add_special_tokens=False)[0] for s in (L, " " + L))


def test_biased_model_gives_closed_form_probabilities(biased_backend, demo_questions):
    vocab = len(biased_backend.tokenizer)
    result = run_evaluation(biased_backend, demo_questions[:8], template="mobile-mmlu-reference")
    probs, mass = expected_biased_probs(vocab, "ABCD")
    for row in result.rows:
        assert row["predicted"] == "C" and not row["tie"]
        assert row["letter_probs"] == pytest.approx(probs, abs=1e-6)
        assert row["letter_mass"] == pytest.approx(mass, rel=1e-5)
        assert sum(row["letter_probs"].values()) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.slow
def test_biased_model_accuracy_is_exact_for_every_variant(biased_backend, demo_questions):
    result = run_evaluation(biased_backend, demo_questions, variants=VARIANTS, seed=5, chunk_size=64)
    per_variant = result.summary["per_variant"]
    for v in VARIANTS:
        expected = sum("C" in make_view(q, v, 5).answer for q in demo_questions)
        assert per_variant[v]["correct"] == expected, v
        assert per_variant[v]["n"] == len(demo_questions)
    assert per_variant["fixed-C"]["accuracy"] == 1.0
    single = [q for q in demo_questions if len(q.answer) == 1]
    # fixed-A: a single-answer question is right only if... never (C holds a wrong option)
    rows_a = {r["question_id"]: r for r in result.rows if r["variant"] == "fixed-A"}
    assert all(rows_a[q.question_id]["correct"] is False for q in single)
    # multi-correct: fixed-A can still be right when the second correct option lands on C
    assert result.summary["overall"]["correct"] == sum("C" in q.answer for q in demo_questions)
    assert result.summary["order_robustness"]["max_minus_min"] == pytest.approx(
        1.0 - min(b["accuracy"] for b in per_variant.values()))


def test_batching_and_left_padding_do_not_change_scores(tiny_model_dir, demo_questions):
    prompts = [get_template("default").render(q.question, q.options) for q in demo_questions[:6]]
    prompts[2] = "Short?\nA. x\nB. y\nAnswer:"
    b1 = create_backend("transformers", str(tiny_model_dir), batch_size=1)
    b4 = create_backend("transformers", str(tiny_model_dir), batch_size=4)
    one, four = b1.letter_logprobs(prompts), b4.letter_logprobs(prompts)
    for a, b in zip(one, four):
        assert a == pytest.approx(b, abs=1e-4)
    assert b4.letter_logprobs(prompts) == four  # deterministic: same batch, same bits


def test_chat_template_wraps_the_prompt(tiny_backend):
    from evaluator.backends import encode_prompt
    ids = encode_prompt(tiny_backend.tokenizer, "Hello?", use_chat_template=True)
    text = tiny_backend.tokenizer.decode(ids)
    assert text.startswith("<s><|user|>") and text.endswith("<|assistant|>\n") and "Hello?" in text
    plain = tiny_backend.letter_logprobs(["Hello?"])[0]
    chat = tiny_backend.letter_logprobs(["Hello?"], use_chat_template=True)[0]
    assert plain != chat


def test_generate_mode_is_greedy_and_reports_unparsed(tiny_backend, demo_questions):
    a = run_evaluation(tiny_backend, demo_questions[:6], mode="generate", max_new_tokens=4)
    b = run_evaluation(tiny_backend, demo_questions[:6], mode="generate", max_new_tokens=4)
    assert a.rows == b.rows
    assert all("output" in r and "parsed" in r for r in a.rows)
    unparsed = sum(not r["parsed"] for r in a.rows)
    assert a.summary["unparsed"]["n"] == unparsed
    assert all(r["correct"] is False for r in a.rows if not r["parsed"])


def test_unknown_backend_and_registry():
    assert {"transformers", "vllm"} <= set(available_backends())
    with pytest.raises(BackendError, match="unknown backend 'nope'"):
        create_backend("nope", "x")


def test_importing_the_engine_imports_neither_torch_nor_django():
    import subprocess
    import sys
    code = ("import sys, evaluator, evaluator.engine, evaluator.backends, evaluator.cli; "
            "print([m for m in ('torch', 'transformers', 'vllm', 'django') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_shared_prefix_reuse_matches_full_recompute(tiny_model_dir, demo_questions):
    dev = [q.__class__(f"dev-{q.question_id}", q.question, q.options, q.answer, q.topic) for q in demo_questions[40:]]
    with_reuse = create_backend("transformers", str(tiny_model_dir), batch_size=4, prefix_reuse=True)
    without = create_backend("transformers", str(tiny_model_dir), batch_size=4, prefix_reuse=False)
    kwargs = dict(template="mobile-mmlu-reference", shots=2, dev_questions=dev, variants=("original", "R1"))
    a = run_evaluation(with_reuse, demo_questions[:16], **kwargs)
    b = run_evaluation(without, demo_questions[:16], **kwargs)
    assert with_reuse.stats["computed_tokens"] < without.stats["computed_tokens"]
    for x, y in zip(a.rows, b.rows):
        assert x["predicted"] == y["predicted"]
        assert x["letter_probs"] == pytest.approx(y["letter_probs"], abs=1e-6)


def test_prefix_groups_cut_where_a_topics_exemplars_end():
    from evaluator.backends.prefix_reuse import TOPIC_DROP, prefix_groups
    header = list(range(100, 120))
    topic_a, topic_b = header + list(range(1000, 1100)), header + list(range(2000, 2100))
    rows = [topic_a + [1, 2], topic_a + [1, 3], topic_a + [4], topic_b + [1], topic_b + [2],
            header + [7, 8], header + [9]]
    assert prefix_groups(rows) == [[0, 1, 2], [3, 4], [5, 6]]
    # 0-shot: questions share a few words beyond the header; no cut for a small drop
    zero_shot = [header + [5] * 40 + [1], header + [5] * 40 + [2], header + [5] * (TOPIC_DROP - 2) + [6], header + [7]]
    assert prefix_groups(zero_shot) == [[0, 1, 2, 3]]
    assert prefix_groups([]) == [] and prefix_groups([[1]]) == [[0]]


def test_prefix_kv_cache_keeps_the_recent_entries_within_its_budget():
    import torch
    from transformers import DynamicCache

    from evaluator.backends.prefix_reuse import PrefixKVCache

    def kv(n):  # one layer, n tokens of 4 float32 values for keys and for values: 32n bytes
        cache = DynamicCache()
        cache.update(torch.zeros(1, 1, n, 4), torch.zeros(1, 1, n, 4), 0)
        return cache

    store = PrefixKVCache(max_bytes=32 * 10, max_entries=3)
    store.put((1,), kv(4))
    store.put((2,), kv(4))
    assert store.get((1,)) is not None and len(store) == 2
    store.put((3,), kv(4))  # 12 tokens > 10: the least recently used, (2,), goes
    assert store.get((2,)) is None and store.get((1,)) is not None and store.get((3,)) is not None
    store.put((4,), kv(50))  # larger than the budget alone: kept, as the latest
    assert len(store) == 1 and store.get((4,)) is not None
    off = PrefixKVCache(max_bytes=0)
    off.put((1,), kv(1))
    assert len(off) == 0
