"""Tiny local models built once per test run (no downloads; tests/support/shared_build.py: one build for all the
run's processes); shared by evaluator and Django tests.

Registered for the whole suite through ``pytest_plugins`` in tests/conftest.py.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from evaluator.demo_models import build_demo_tokenizer, build_tiny_random, generate_demo_questions
from evaluator.prompts import get_template
from tests.support.shared_build import once, run_folder

BIAS_FORMS = {"C": 3.0, " C": 2.0}  # logits of the biased model; every other token has logit 0


@pytest.fixture(scope="session")
def demo_questions():
    return generate_demo_questions(60, seed=11, multi_correct_every=6)


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory) -> Path:
    return run_folder(tmp_path_factory, "models")


@pytest.fixture(scope="session")
def tokenizer_dir(models_dir, demo_questions) -> Path:
    texts = [get_template(t).render(q.question, q.options) for q in demo_questions
             for t in ("default", "mobile-mmlu-reference")]
    return once(models_dir, "tokenizer", lambda: build_demo_tokenizer(texts, models_dir / "tokenizer", vocab_size=1500))


@pytest.fixture(scope="session")
def tiny_model_dir(models_dir, tokenizer_dir) -> Path:
    return once(models_dir, "tiny", lambda: build_tiny_random(models_dir / "tiny", tokenizer_dir, seed=0))


@pytest.fixture(scope="session")
def gqa_model_dir(models_dir, tokenizer_dir) -> Path:
    """tiny-random with head_dim 64 (vLLM's CPU attention refuses 16) and grouped-query attention (2 heads, 1 KV)."""
    return once(models_dir, "tiny-gqa",
                lambda: build_tiny_random(models_dir / "tiny-gqa", tokenizer_dir, seed=0, hidden=128, heads=2))


def _bias_only_phi(tokenizer_dir, out: Path, biases) -> Path:
    """A Phi-style model whose lm_head weight is zero: its next-token logits are exactly the bias, whatever
    the prompt. `biases(tokenizer)` gives {token id: logit}."""
    import torch
    from transformers import AutoTokenizer, PhiConfig, PhiForCausalLM

    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    config = PhiConfig(vocab_size=len(tok), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                       num_attention_heads=2, max_position_embeddings=2048, pad_token_id=tok.pad_token_id,
                       bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id)
    torch.manual_seed(0)
    model = PhiForCausalLM(config)
    with torch.no_grad():
        model.lm_head.weight.zero_()
        model.lm_head.bias.zero_()
        for tid, value in biases(tok).items():
            model.lm_head.bias[tid] = value
    model.save_pretrained(out)
    tok.save_pretrained(out)
    (out / "vocab_size.json").write_text(json.dumps({"vocab": len(tok)}))
    return out


@pytest.fixture(scope="session")
def biased_model_dir(models_dir, tokenizer_dir) -> Path:
    """Favours "C"/" C", so every letter probability is known in closed form (see expected_biased_probs)."""
    return once(models_dir, "biased", lambda: _bias_only_phi(tokenizer_dir, models_dir / "biased", lambda tok: {
        tok.encode(form, add_special_tokens=False)[0]: value for form, value in BIAS_FORMS.items()}))


@pytest.fixture(scope="session")
def nul_model_dir(models_dir, tokenizer_dir) -> Path:
    """Always generates the NUL byte: text PostgreSQL refuses."""
    return once(models_dir, "nul", lambda: _bias_only_phi(
        tokenizer_dir, models_dir / "nul", lambda tok: {tok.encode("\x00", add_special_tokens=False)[0]: 20.0}))


def expected_biased_probs(vocab_size: int, letters: str) -> tuple[dict[str, float], float]:
    """Closed-form letter_probs and letter_mass of the biased model."""
    z = (vocab_size - len(BIAS_FORMS)) + sum(math.exp(v) for v in BIAS_FORMS.values())
    raw = {L: 2.0 for L in letters}  # two forms, each e^0
    if "C" in raw:
        raw["C"] = sum(math.exp(v) for v in BIAS_FORMS.values())
    mass = sum(raw.values()) / z
    total = sum(raw.values())
    return {L: v / total for L, v in raw.items()}, mass


# --- MMLU-Pro protocol (evaluator/protocols.py): a tokenizer of its layout and "chain" models -----------------

COT_PROMPT_END = "Answer: Let's think step by step."
COT_REPLY = " The answer is (B)\nQuestion:"  # a reply that states its letter, then starts the next question
COT_RAMBLE = " so we weigh each choice and then"  # a reply that never states a letter nor stops
COT_SHRUG = " so we weigh\nQuestion:"  # a reply that states no letter, then stops


@pytest.fixture(scope="session")
def cot_tokenizer_dir(models_dir) -> Path:
    """A BPE tokenizer trained on MMLU-Pro-style prompts and the chain replies, so their words are whole tokens."""
    texts = [f"Question:\nWhat is {i} plus {i}?\nOptions:\nA. {i}\nB. {2 * i}\n{COT_PROMPT_END}"
             f"{COT_REPLY}{COT_RAMBLE}{COT_SHRUG}" for i in range(40)]
    return once(models_dir, "cot-tokenizer",
                lambda: build_demo_tokenizer(texts * 5, models_dir / "cot-tokenizer", vocab_size=600))


def build_chain_model(out: Path, tokenizer_dir: Path, reply: str, *, after: str = COT_PROMPT_END) -> Path:
    """A Llama whose greedy next token depends on the current token only: after the last token of `after` it says
    `reply`, token by token, and then `reply` again (a loop), whatever came before. Attention and MLP outputs are
    zero, so the last hidden state is the current token's embedding: one-hot for the chain's tokens, and the LM
    head maps each chain token's direction to its successor."""
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    start = tok.encode(after, add_special_tokens=False)[-1]
    chain = tok.encode(reply, add_special_tokens=False)
    assert len(set(chain)) == len(chain) and start not in chain, f"the chain's tokens repeat: {chain}"
    config = LlamaConfig(vocab_size=len(tok), hidden_size=128, intermediate_size=128, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=4096,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id, tie_word_embeddings=False)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        model.model.embed_tokens.weight.zero_()
        model.lm_head.weight.zero_()
        successors = list(zip([start, *chain], [*chain, chain[0]]))
        for direction, (token, following) in enumerate(successors):
            model.model.embed_tokens.weight[token, direction] = 1.0
            model.lm_head.weight[following, direction] = 1.0
    model.generation_config.do_sample = False
    model.save_pretrained(out, safe_serialization=True)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def cot_reply_model_dir(models_dir, cot_tokenizer_dir) -> Path:
    """Replies COT_REPLY to any MMLU-Pro prompt: "the answer is (B)", then "Question:" (where the protocol stops)."""
    return once(models_dir, "cot-reply", lambda: build_chain_model(models_dir / "cot-reply", cot_tokenizer_dir, COT_REPLY))


@pytest.fixture(scope="session")
def cot_ramble_model_dir(models_dir, cot_tokenizer_dir) -> Path:
    """Replies COT_RAMBLE over and over: no letter, no stop string, so only max_new_tokens ends it."""
    return once(models_dir, "cot-ramble", lambda: build_chain_model(models_dir / "cot-ramble", cot_tokenizer_dir, COT_RAMBLE))


@pytest.fixture(scope="session")
def cot_shrug_model_dir(models_dir, cot_tokenizer_dir) -> Path:
    """Replies COT_SHRUG: no letter to read, then "Question:" (every answer unread, each reply a few tokens)."""
    return once(models_dir, "cot-shrug", lambda: build_chain_model(models_dir / "cot-shrug", cot_tokenizer_dir, COT_SHRUG))
