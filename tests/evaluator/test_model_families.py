"""Every model family scores the same batched as one prompt at a time.

Tiny random float32 models of each attention layout, saved and loaded as the real path does:
full attention (Llama; Qwen2 with grouped KV heads), a sliding window on every layer (Mistral,
Phi-3), sliding mixed with full layers (Gemma-2, Gemma-3), recurrent layers (LFM2: short
convolutions + attention; Mamba: SSM), and ALiBi (MPT). Batched scoring, with whatever prefix reuse the backend
picks for the family, must give the letter log-probs of batch-1 scoring without reuse to 1e-5,
0-shot and 5-shot; 5-shot prompts share a topic's exemplars and run far past the 16-token window.
"""
from __future__ import annotations

import pytest

from evaluator.backends.prefix_reuse import PrefixKVCache
from evaluator.backends.transformers_backend import TransformersBackend
from evaluator.demo_models import DEMO_TOPICS, generate_demo_questions
from evaluator.prompts import exemplar_shots, get_template, select_exemplars

WINDOW = 16
TOL = 1e-5
LAYERS = 4  # 4 layers x 16-token window reach past a question's own tokens into the prefix


def _configs(tok) -> dict:
    import transformers as T

    special = dict(vocab_size=len(tok), pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                   eos_token_id=tok.eos_token_id, initializer_range=0.1)  # 0.1: peaked enough to tell errors
    attn = dict(special, hidden_size=32, intermediate_size=64, num_hidden_layers=LAYERS, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=1024)
    alternating = ["sliding_attention", "full_attention"] * (LAYERS // 2)
    return {
        "llama": T.LlamaConfig(**attn),
        "qwen2": T.Qwen2Config(**attn),
        "mistral": T.MistralConfig(**attn, sliding_window=WINDOW),
        "phi3": T.Phi3Config(**attn, sliding_window=WINDOW),
        "gemma2": T.Gemma2Config(**attn, head_dim=8, sliding_window=WINDOW),
        "gemma3": T.Gemma3TextConfig(**attn, head_dim=8, sliding_window=WINDOW, layer_types=alternating),
        "lfm2": T.Lfm2Config(**{k: v for k, v in attn.items() if k != "max_position_embeddings"},
                             layer_types=["conv", "full_attention"] * (LAYERS // 2)),
        "mamba": T.MambaConfig(**special, hidden_size=32, state_size=8, num_hidden_layers=2),
        # full attention, but ALiBi biases from key slots: reuse off
        "mpt": T.MptConfig(**special, d_model=32, n_heads=4, n_layers=LAYERS, expansion_ratio=2, max_seq_len=1024),
    }


REUSE = {"llama": True, "qwen2": True}  # every other family: batched without a shared prefix cache
FAMILIES = ["llama", "qwen2", "mistral", "phi3", "gemma2", "gemma3", "lfm2", "mamba", "mpt"]


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    """Tiny models: one thread is as fast, and cannot be stalled by a busy shared machine."""
    import torch
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def family_dirs(tmp_path_factory, tokenizer_dir):
    """name -> folder of a tiny random model of that family with the demo tokenizer (built on first use)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    configs = _configs(tok)
    root = tmp_path_factory.mktemp("families")
    built = {}

    def get(name):
        if name not in built:
            torch.manual_seed(0)
            model = AutoModelForCausalLM.from_config(configs[name])
            model.save_pretrained(root / name)
            tok.save_pretrained(root / name)
            built[name] = root / name
        return built[name]
    return get


@pytest.fixture(scope="module")
def prompts():
    """shots -> prompts: 2 topics x 10 questions; 5-shot prompts share their topic's exemplars."""
    topics = DEMO_TOPICS[:2]
    questions = generate_demo_questions(20, seed=21, topics=topics)
    dev = generate_demo_questions(10, seed=22, topics=topics, prefix="dev")
    template = get_template("mobile-mmlu-reference")
    return {k: [template.render(q.question, q.options, exemplar_shots(select_exemplars(dev, q.topic, k)))
                for q in questions] for k in (0, 5)}


def _backend(path, **kwargs):
    return TransformersBackend(str(path), device="cpu", dtype="float32", **kwargs)


def _max_error(a, b) -> float:
    return max(abs(x[L] - y[L]) for x, y in zip(a, b) for L in x)


def _argmax(rows):
    return [max(r, key=r.get) for r in rows]


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_batched_scoring_equals_one_at_a_time(family, family_dirs, prompts):
    path = family_dirs(family)
    batched = _backend(path, batch_size=8)
    single = _backend(path, batch_size=1, prefix_reuse=False)
    assert min(batched.count_tokens(p) for p in prompts[5]) > 10 * WINDOW
    for shots, texts in prompts.items():
        a, b = batched.letter_logprobs(texts), single.letter_logprobs(texts)
        assert _max_error(a, b) <= TOL, (family, shots)
        assert _argmax(a) == _argmax(b)
    reuse = batched.describe()["prefix_reuse"]
    assert reuse["used"] is REUSE.get(family, False), reuse
    assert reuse["requested"] is True and reuse["why"]
    if reuse["used"]:
        assert batched.stats["prefix_hits"] > 0  # the test did cover the reuse path


@pytest.mark.parametrize("family", ["mistral", "phi3", "gemma2", "gemma3", "mpt"])
def test_forced_prefix_reuse_is_caught(family, family_dirs, prompts):
    """The check above has the power to see the bug it guards against: reuse forced on a sliding
    window shifts the window by the padding gap between prefix and suffix (ALiBi: the bias)."""
    path = family_dirs(family)
    forced = _backend(path, batch_size=8)
    forced.prefix_reuse_used, forced.prefix_cache = True, PrefixKVCache(2**26)
    single = _backend(path, batch_size=1, prefix_reuse=False)
    for texts in prompts.values():
        assert _max_error(forced.letter_logprobs(texts), single.letter_logprobs(texts)) > 1e-3


def test_prefix_kv_is_kept_across_calls_and_never_changed(family_dirs, prompts):
    """As the engine calls it, one chunk at a time: a topic's exemplar KV computed in one call is
    reused by the next (same bits as recomputing it), and using it leaves it as it was."""
    path = family_dirs("llama")
    kept = _backend(path, batch_size=4)
    fresh = _backend(path, batch_size=4, prefix_cache_mb=0)  # every batch computes its prefix
    single = _backend(path, batch_size=1, prefix_reuse=False)
    texts = prompts[5]
    chunks = [texts[i:i + 7] for i in range(0, len(texts), 7)]
    first = kept.letter_logprobs(chunks[0])
    entries = {key: [t.clone() for layer in c.layers for t in (layer.keys, layer.values)]
               for key, (c, _) in kept.prefix_cache._entries.items()}
    assert entries
    rows = first + [r for chunk in chunks[1:] for r in kept.letter_logprobs(chunk)]
    assert kept.stats["prefix_hits"] > 0
    assert rows == [r for chunk in chunks for r in fresh.letter_logprobs(chunk)]  # bit for bit
    assert _max_error(rows, single.letter_logprobs(texts)) <= TOL
    assert kept.stats["computed_tokens"] < fresh.stats["computed_tokens"]
    for key, before in entries.items():
        after = [t for layer in kept.prefix_cache.get(key).layers for t in (layer.keys, layer.values)]
        assert len(after) == len(before) and all(x.equal(y) for x, y in zip(before, after))
