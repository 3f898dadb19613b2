"""Small local models for demos, tests and benchmarks (no downloads).

- build_demo_spm_tokenizer: the demo models' tokenizer (leaderboard/demo/seed.py), a SentencePiece model of the
  Llama family (evaluator/spm_models.py) trained on the given texts, which llama.cpp's converter reads, so the
  demo models have GGUF variants; "A".."J" and " A".." J" are single tokens.
- build_demo_tokenizer: byte-level BPE trained on the given texts, with "A".."J"
  and " A".." J" guaranteed to be single tokens, pad/bos/eos and a chat template. For tests and
  benches (fast to train, a pad token); llama.cpp's converter refuses it ("BPE pre-tokenizer was not recognized").
- build_tiny_random: an untrained Llama-style model (fixed seed): scores near chance.
- build_val_memorizer: a tiny model trained on the validation prompts followed by
  their correct letter: well above chance on those questions, near chance elsewhere
  (the contamination story in miniature).
- build_bench_model: a ~20-50M parameter random model for bench/scoring_bench.py.

All are ordinary transformers folders with safetensors weights.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Iterable, Sequence

from .prompts import get_template
from .questions import LETTERS, Question

SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]
CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}{{ eos_token }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"
)


def _letter_texts() -> list[str]:
    return [f"{L}. option\nAnswer: {L}\n" for L in LETTERS]


def build_demo_tokenizer(texts: Iterable[str], out_dir: str | Path, *, vocab_size: int = 4000,
                         model_max_length: int = 2048) -> Path:
    """Train a byte-level BPE tokenizer and save it as a PreTrainedTokenizerFast folder."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(texts) + _letter_texts() * 20, trainer=trainer)

    # Guarantee " A".." J" are single tokens: add the byte-level merge "Ġ" + "L" if training did not.
    # "A".."J" alone are in the initial byte alphabet already.
    spec = json.loads(tok.to_str())
    vocab, merges = spec["model"]["vocab"], spec["model"]["merges"]
    for L in LETTERS:
        if "Ġ" + L not in vocab:
            vocab["Ġ" + L] = max(vocab.values()) + 1
            merges.append(["Ġ", L] if merges and isinstance(merges[0], list) else f"Ġ {L}")
    tok = Tokenizer.from_str(json.dumps(spec))
    bos = tok.token_to_id("<s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A $B", special_tokens=[("<s>", bos)])

    hf = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
        padding_side="left", chat_template=CHAT_TEMPLATE, model_max_length=model_max_length,
    )
    _check_letters(hf)
    hf.save_pretrained(out)
    return out


def _check_letters(tokenizer: Any) -> None:
    for L in LETTERS:  # the whole point of these tokenizers
        for s in (L, " " + L):
            ids = tokenizer.encode(s, add_special_tokens=False)
            assert len(ids) == 1, f"{s!r} is not one token: {ids}"


def build_demo_spm_tokenizer(texts: Iterable[str], out_dir: str | Path, *, vocab_size: int = 4000,
                             model_max_length: int = 2048) -> Path:
    """Train a Llama-style SentencePiece tokenizer (evaluator/spm_models.py) and save it as a tokenizer folder
    (tokenizer.model beside tokenizer.json); vocab_size at most. The letter lines make " A".." J" frequent whole words, so their
    merges are learned ("A".."J" encode the same, the SentencePiece space prefix added); checked. It has no pad
    token, as Llama's: the backends pad with EOS."""
    from .spm_models import build_spm_hf_tokenizer, build_spm_tokenizer

    out = Path(out_dir)
    spm_file = build_spm_tokenizer(list(texts) + _letter_texts() * 20, out / "spm", vocab_size=vocab_size,
                                   exact_size=False)
    tok = build_spm_hf_tokenizer(spm_file, out, family="llama", model_max_length=model_max_length)
    shutil.rmtree(spm_file.parent)
    _check_letters(tok)
    return out


def _load_tokenizer(tokenizer_dir: str | Path):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(str(tokenizer_dir))


def _llama(tokenizer: Any, *, hidden: int, layers: int, heads: int, kv_heads: int, intermediate: int, seed: int,
           max_positions: int = 2048):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=max_positions,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False,
    )
    torch.manual_seed(seed)
    return LlamaForCausalLM(config)


def _save(model: Any, tokenizer: Any, out_dir: str | Path, meta: dict[str, Any]) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.generation_config.do_sample = False
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    spm_file = getattr(tokenizer, "vocab_file", None)  # a SentencePiece tokenizer's: save_pretrained does not
    if spm_file:  # write it, and llama.cpp's converter reads it
        shutil.copy(spm_file, out / "tokenizer.model")
    (out / "demo_model.json").write_text(json.dumps(meta, indent=2, sort_keys=True))
    return out


def build_tiny_random(out_dir: str | Path, tokenizer_dir: str | Path, *, seed: int = 0, hidden: int = 64,
                      layers: int = 2, heads: int = 4, max_positions: int = 2048) -> Path:
    """Untrained Llama-style model; its letter choices are arbitrary but fixed by the seed. max_positions:
    its context (benches with real-length 5-shot prompts, about 2,700 tokens, need 4096)."""
    tok = _load_tokenizer(tokenizer_dir)
    model = _llama(tok, hidden=hidden, layers=layers, heads=heads, kv_heads=max(1, heads // 2),
                   intermediate=hidden * 2, seed=seed, max_positions=max_positions)
    return _save(model, tok, out_dir, {"kind": "tiny-random", "seed": seed,
                                       "params": sum(p.numel() for p in model.parameters())})


def build_bench_model(out_dir: str | Path, tokenizer_dir: str | Path, *, seed: int = 0,
                      max_positions: int = 2048) -> Path:
    """~30M parameters (hidden 512, 8 layers) with the demo tokenizer: big enough that compute,
    not Python overhead, dominates the scoring benchmark."""
    tok = _load_tokenizer(tokenizer_dir)
    model = _llama(tok, hidden=512, layers=8, heads=8, kv_heads=8, intermediate=1376, seed=seed,
                   max_positions=max_positions)
    return _save(model, tok, out_dir, {"kind": "bench-random", "seed": seed,
                                       "params": sum(p.numel() for p in model.parameters())})


def build_val_memorizer(out_dir: str | Path, tokenizer_dir: str | Path, validation_questions: Sequence[Question], *,
                        steps: int = 300, batch_size: int = 32, lr: float = 3e-3, seed: int = 0,
                        hidden: int = 128, layers: int = 2, time_budget_s: float | None = None) -> Path:
    """Train on `default`-template validation prompts followed by the correct letter (" A" form).

    The loss is on the answer token only: the model learns the question -> letter map and
    nothing general, so unseen questions stay near chance.
    """
    import torch

    labelled = [q for q in validation_questions if q.answer]
    if not labelled:
        raise ValueError("build_val_memorizer needs validation questions with answers")
    tok = _load_tokenizer(tokenizer_dir)
    template = get_template("default")
    torch.manual_seed(seed)
    model = _llama(tok, hidden=hidden, layers=layers, heads=4, kv_heads=4, intermediate=hidden * 2, seed=seed)
    model.train()

    examples = []
    for q in labelled:
        ids = tok.encode(template.render(q.question, q.options), add_special_tokens=True)
        target = tok.encode(" " + sorted(q.answer or ())[0], add_special_tokens=False)[0]  # labelled: not empty
        examples.append((ids, target))

    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    gen = torch.Generator().manual_seed(seed)
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id  # masked out either way
    t0 = time.perf_counter()
    done = 0
    for step in range(steps):
        idx = torch.randint(len(examples), (min(batch_size, len(examples)),), generator=gen).tolist()
        batch = [examples[i] for i in idx]
        width = max(len(ids) for ids, _ in batch)
        input_ids = torch.full((len(batch), width), pad, dtype=torch.long)
        mask = torch.zeros_like(input_ids)
        for r, (ids, _) in enumerate(batch):
            input_ids[r, width - len(ids):] = torch.tensor(ids)
            mask[r, width - len(ids):] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        logits = model(input_ids=input_ids, attention_mask=mask, position_ids=positions, logits_to_keep=1).logits
        loss = torch.nn.functional.cross_entropy(logits[:, -1, :], torch.tensor([t for _, t in batch]))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        done = step + 1
        if time_budget_s is not None and time.perf_counter() - t0 > time_budget_s:
            break
    model.eval()
    return _save(model, tok, out_dir, {
        "kind": "val-memorizer", "seed": seed, "steps": done, "final_loss": float(loss.detach()),
        "train_seconds": time.perf_counter() - t0, "n_train_questions": len(labelled),
        "params": sum(p.numel() for p in model.parameters()),
    })


_SUBJECTS = ["battery", "screen", "router", "recipe", "bandage", "passport", "budget", "garden", "camera",
             "password", "train ticket", "umbrella", "thermostat", "backpack", "invoice", "vaccine"]
_VERBS = ["protect", "clean", "charge", "store", "repair", "share", "measure", "pack", "schedule", "cool"]
_WORDS = ["quickly", "gently", "daily", "with water", "in the shade", "at night", "with a cloth", "offline",
          "twice", "before travel", "with vinegar", "in a drawer", "under 20 degrees", "by phone", "on paper",
          "every week", "with gloves", "from the app", "near the door", "with a timer", "at low power"]
DEMO_TOPICS = ["First Aid", "Cooking and Recipes", "Travel Planning", "Personal Finance", "Home Maintenance",
               "Photography Basics", "Pet Care", "Digital Security"]


def generate_demo_questions(n: int, *, seed: int = 0, topics: Sequence[str] = DEMO_TOPICS, n_options: int = 4,
                            prefix: str = "demo", multi_correct_every: int = 0) -> list[Question]:
    """Deterministic synthetic questions in the Mobile-MMLU style (for demos, tests and benches).

    multi_correct_every=k gives every k-th question a second correct option.
    """
    import random

    rng = random.Random(seed)
    out = []
    for i in range(n):
        subject, verb = rng.choice(_SUBJECTS), rng.choice(_VERBS)
        topic = topics[i % len(topics)]
        question = f"What is the best way to {verb} a {subject} ({topic.lower()}, case {i})?"
        words = rng.sample(_WORDS, n_options)
        options = tuple(f"{verb.capitalize()} it {w}" for w in words)
        answer = {LETTERS[rng.randrange(n_options)]}
        if multi_correct_every and i % multi_correct_every == 0:
            answer.add(rng.choice([L for L in LETTERS[:n_options] if L not in answer]))
        out.append(Question(f"{prefix}-{i:05d}", question, options, frozenset(answer), topic))
    return out
