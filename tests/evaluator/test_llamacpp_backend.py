"""The llama.cpp backend on real llama.cpp (.venv-llamacpp), with GGUF files the project's own pipeline made
from tiny random Llama and Gemma checkpoints (tests/support/gguf_fixtures.py), on real-shaped prompts.

An f32 file must give the transformers backend's letter probabilities (float32 both sides, f32 KV cache) to
1e-4 with the same letter on every question; quantized files move them by amounts reported and bounded here.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evaluator.backends import BackendError, create_backend
from evaluator.decoding import GREEDY, DecodingRule
from evaluator.engine import run_evaluation
from evaluator.quantization_truth import letter_kl

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]


def llamacpp(path, **kwargs):
    return create_backend("llamacpp", str(path), threads=2, **kwargs)


@pytest.fixture(scope="module")
def f32_backends(gguf_files):
    backends = {family: llamacpp(gguf_files[family, "f32"], kv_cache_type="f32", n_ctx=2048)
                for family in ("llama", "gemma")}
    yield backends
    for backend in backends.values():
        backend.close()


def ggml_gelu_module():
    """GELU as ggml's CPU backend computes it for f32 tensors (GGML_GELU_FP16 in ggml-cpu/vec.h): the tanh form
    read from a table indexed by the input rounded to float16, the result a float16; 0 below -10, x above 10."""
    import torch

    class GgmlGelu(torch.nn.Module):
        def forward(self, x):
            y = torch.nn.functional.gelu(x.half().float(), approximate="tanh").half().float()
            return torch.where(x >= 10, x, torch.where(x <= -10, torch.zeros_like(x), y))

    return GgmlGelu()


@pytest.fixture(scope="module")
def hf_backends(spm_model_dirs):
    """The transformers backend on each checkpoint, and on Gemma with ggml's GELU (see the f32 test)."""
    import torch
    from transformers import AutoModelForCausalLM

    backends = {family: create_backend("transformers", str(folder), device="cpu", dtype="float32", batch_size=4)
                for family, folder in spm_model_dirs.items()}
    gemma = AutoModelForCausalLM.from_pretrained(str(spm_model_dirs["gemma"]), dtype=torch.float32)
    for layer in gemma.model.layers:
        layer.mlp.act_fn = ggml_gelu_module()
    backends["gemma", "ggml-gelu"] = create_backend("transformers", str(spm_model_dirs["gemma"]), device="cpu",
                                                    dtype="float32", batch_size=4, model_obj=gemma)
    return backends


def largest_difference(rows, reference_rows) -> float:
    """The largest letter-probability difference; every question with the same letter."""
    worst = 0.0
    for a, b in zip(rows, reference_rows, strict=True):
        assert a["question_id"] == b["question_id"]
        assert a["predicted"] == b["predicted"], (a, b)
        worst = max(worst, *(abs(a["letter_probs"][L] - b["letter_probs"][L]) for L in a["letter_probs"]))
    return worst


@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_an_f32_file_gives_the_transformers_backends_letter_probabilities(family, f32_backends, hf_backends,
                                                                         real_questions):
    """To 1e-4, the same letter on every question. Gemma's MLP is GELU, which ggml's CPU backend reads from a
    float16 table even in an f32 file: against transformers as it is, Gemma's letters still agree and its
    probabilities to 5e-4 (2.0e-4 measured); against transformers with ggml's GELU, to 1e-4 (6.4e-5)."""
    gguf = run_evaluation(f32_backends[family], real_questions)
    hf = run_evaluation(hf_backends[family], real_questions)
    worst = largest_difference(gguf.rows, hf.rows)
    if family == "gemma":
        assert worst <= 5e-4
        exact = largest_difference(gguf.rows, run_evaluation(hf_backends["gemma", "ggml-gelu"], real_questions).rows)
        print(f"gemma: largest letter-probability difference f32 GGUF vs transformers {worst:.2e}, "
              f"vs transformers with ggml's GELU {exact:.2e}")
        worst = exact
    else:
        print(f"{family}: largest letter-probability difference f32 GGUF vs transformers {worst:.2e}")
    assert worst <= 1e-4
    assert len({r["predicted"] for r in hf.rows}) > 1  # the letters really differ between questions
    card = f32_backends[family].describe()
    assert card["dtype"] == "F32" and card["architecture"] == family and card["threads"] == 2
    assert card["tokenizer_check"] == {"reference": "not checked: no base model tokenizer given and none named "
                                                    "in the file", "checked": False}


@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_quantized_files_flip_few_letters_and_move_the_distributions_little(family, gguf_files, f32_backends,
                                                                          real_questions):
    base = run_evaluation(f32_backends[family], real_questions).rows
    report = {}
    for quant in ("q8_0", "q4_0", "q4_k_m"):
        backend = llamacpp(gguf_files[family, quant], kv_cache_type="f32", n_ctx=2048)
        try:
            rows = run_evaluation(backend, real_questions).rows
            assert backend.describe()["dtype"] == quant.upper()
        finally:
            backend.close()
        flips = sum(a["predicted"] != b["predicted"] for a, b in zip(base, rows))
        kl = sum(letter_kl(a["letter_probs"], b["letter_probs"]) for a, b in zip(base, rows)) / len(rows)
        report[quant] = (flips, kl)
    print(f"{family} vs f32 over {len(base)} questions: " + ", ".join(
        f"{q}: {flips} flips, mean KL {kl:.2e}" for q, (flips, kl) in report.items()))
    # Tiny random models, whose letters are often close calls: loose bounds, in the order the bit widths promise.
    # Measured (12 questions): llama q8_0 0 flips, KL 6.7e-4; q4_0 3, 8.9e-2; q4_k_m 3, 0.12.
    # gemma q8_0 1, 1.8e-4; q4_0 4, 1.3e-2; q4_k_m 9, 2.7e-2.
    assert report["q8_0"][0] <= 1 and report["q8_0"][1] <= 1e-3
    for quant in ("q4_0", "q4_k_m"):
        assert report[quant][0] < len(base) - 1 and report[quant][1] <= 0.25
        assert report[quant][1] > 10 * report["q8_0"][1]


def test_generation_matches_transformers_and_stops_at_a_stop_string(f32_backends, hf_backends, real_questions):
    backend, hf = f32_backends["llama"], hf_backends["llama"]
    qs = real_questions[:4]
    texts = [r["output"] for r in run_evaluation(backend, qs, mode="generate", max_new_tokens=10).rows]
    assert texts == [r["output"] for r in run_evaluation(hf, qs, mode="generate", max_new_tokens=10).rows]
    assert all(texts)
    # A stop string the model is known to produce: the text ends before it, as vLLM returns it.
    from evaluator.prompts import get_template

    prompt = get_template("default").render(qs[0].question, qs[0].options)
    (full,) = backend.generate([prompt], max_new_tokens=10, decoding=GREEDY)
    stop = full.strip()[2:6]
    assert len(stop) == 4 and full.find(stop) > 0
    rule = DecodingRule(name="test-stop", stop=(stop,))
    computed = backend.stats["computed_tokens"]
    (cut,) = backend.generate([prompt], max_new_tokens=10, decoding=rule)
    assert cut == full[:full.find(stop)]
    assert backend.describe()["decoding"]["stop"] == [stop]
    assert hf.generate([prompt], max_new_tokens=10, decoding=rule) == [cut]
    assert backend.stats["computed_tokens"] > computed


def test_prefix_reuse_gives_the_same_letters_as_computing_every_prompt(gguf_files, real_questions,
                                                                       real_dev_questions):
    kwargs = dict(shots=1, dev_questions=real_dev_questions, variants=("original", "R1"))
    reuse = llamacpp(gguf_files["llama", "f32"], kv_cache_type="f32", n_ctx=4096)
    plain = llamacpp(gguf_files["llama", "f32"], kv_cache_type="f32", n_ctx=4096, prefix_reuse=False)
    try:
        a, b = run_evaluation(reuse, real_questions[:4], **kwargs), run_evaluation(plain, real_questions[:4], **kwargs)
        assert [r["predicted"] for r in a.rows] == [r["predicted"] for r in b.rows]
        for x, y in zip(a.rows, b.rows):
            assert x["letter_probs"] == pytest.approx(y["letter_probs"], abs=1e-5)
        assert reuse.describe()["prefix_reuse"]["used"] and not plain.describe()["prefix_reuse"]["used"]
        # Each question's second answer order shares its topic's exemplar and the question with the first.
        assert reuse.stats["prefix_hits"] >= 4 and plain.stats["prefix_hits"] == 0
        assert reuse.stats["computed_tokens"] < 0.75 * plain.stats["computed_tokens"]
        assert reuse.stats["prompt_tokens"] == plain.stats["prompt_tokens"]
    finally:
        reuse.close()
        plain.close()


def test_a_tokenizer_mismatch_fails_with_its_code_and_position(gguf_files, spm_model_dirs, tokenizer_dir,
                                                               real_questions):
    from transformers import AutoTokenizer

    from evaluator.prompts import get_template

    prompts = [get_template("default").render(q.question, q.options) for q in real_questions[:3]]
    path = gguf_files["llama", "q8_0"]
    same = llamacpp(path, tokenizer=str(spm_model_dirs["llama"]))  # its own base model: every id agrees
    try:
        assert all(same.letter_logprobs(prompts))
        assert all(same.letter_logprobs(prompts, use_chat_template=True))  # the file's chat template, rendered
        assert same.count_tokens(prompts[0], use_chat_template=True) > same.count_tokens(prompts[0])
        assert same.describe()["tokenizer_check"] == {"reference": str(spm_model_dirs["llama"]), "checked": True}
    finally:
        same.close()
    no_bos = AutoTokenizer.from_pretrained(str(spm_model_dirs["llama"]), add_bos_token=False)
    other = AutoTokenizer.from_pretrained(str(tokenizer_dir))  # a different vocabulary altogether
    for reference, position in ((no_bos, 0), (other, None)):
        backend = llamacpp(path, tokenizer_obj=reference)
        try:
            with pytest.raises(BackendError) as caught:
                backend.letter_logprobs(prompts)
        finally:
            backend.close()
        assert caught.value.code == "TOKENIZER_MISMATCH" and caught.value.prompt_index == 0
        if position is not None:
            assert caught.value.position == position
        assert f"token position {caught.value.position}" in str(caught.value)
        assert prompts[0][:40] not in str(caught.value)  # ids and positions only: no question text


def test_a_file_that_is_not_gguf_is_refused_with_a_clear_code(spm_model_dirs, tmp_path):
    safetensors = next(spm_model_dirs["llama"].glob("*.safetensors"))
    with pytest.raises(BackendError) as caught:
        llamacpp(safetensors)
    assert caught.value.code == "NOT_GGUF" and "not a GGUF file" in str(caught.value)
    with pytest.raises(BackendError) as missing:
        llamacpp(tmp_path / "absent.gguf")
    assert missing.value.code == "NOT_GGUF" and "no such file" in str(missing.value)


def test_the_cli_converts_quantizes_and_evaluates_a_gguf(spm_model_dirs, real_questions, tmp_path):
    from tests.evaluator.conftest import question_records, write_jsonl

    out = tmp_path / "tiny-q4_k_m.gguf"
    done = subprocess.run([sys.executable, "-m", "evaluator", "convert", "--model", str(spm_model_dirs["llama"]),
                           "--out", str(out), "--quant", "q4_k_m"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    recipe = json.loads(done.stdout)
    assert out.read_bytes()[:4] == b"GGUF" and recipe["quant"] == "q4_k_m" and recipe["imatrix"] is None
    assert recipe["steps"] == ["convert_hf_to_gguf.py --outtype f32", "llama_model_quantize Q4_K_M"]
    assert recipe == json.loads((tmp_path / "tiny-q4_k_m.gguf.recipe.json").read_text())
    assert recipe["llama_cpp_python"] and recipe["llama_cpp_commit"]

    questions = write_jsonl(tmp_path / "q.jsonl", question_records(real_questions[:4]))
    summary = tmp_path / "summary.json"
    run = subprocess.run([sys.executable, "-m", "evaluator", "--backend", "llamacpp", "--model", str(out),
                          "--questions", str(questions), "--out", str(tmp_path / "rows.jsonl"), "--threads", "2",
                          "--summary", str(summary), "--no-efficiency", "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(summary.read_text())
    card = report["backend"]
    assert card["backend"] == "llamacpp" and card["dtype"] == "Q4_K_M" and card["threads"] == 2
    assert card["file_sha256"] == recipe["sha256"] and card["recipe"] == recipe
    assert card["versions"]["llama_cpp_python"] == recipe["llama_cpp_python"]
    assert card["versions"]["llama_cpp_commit"] == recipe["llama_cpp_commit"]
    assert card["n_ctx"] >= max(len(json.loads(line)["question"]) for line in questions.open()) // 8
    assert len((tmp_path / "rows.jsonl").read_text().splitlines()) == 4

    refused = subprocess.run([sys.executable, "-m", "evaluator", "--backend", "llamacpp", "--model",
                              str(questions), "--questions", str(questions), "--out", str(tmp_path / "x.jsonl")],
                             capture_output=True, text=True)
    assert refused.returncode == 3 and "error: NOT_GGUF:" in refused.stderr


def test_convert_refuses_a_folder_that_is_no_checkpoint_and_an_unknown_quantization(spm_model_dirs, tmp_path):
    def convert(*args):
        return subprocess.run([sys.executable, "-m", "evaluator", "convert", *args], capture_output=True, text=True)

    empty = tmp_path / "empty"
    empty.mkdir()
    done = convert("--model", str(empty), "--out", str(tmp_path / "x.gguf"), "--quant", "f16")
    assert done.returncode == 2 and "error: NOT_A_CHECKPOINT:" in done.stderr and "config.json" in done.stderr
    done = convert("--model", str(spm_model_dirs["llama"]), "--out", str(tmp_path / "x.gguf"), "--quant", "q3_k")
    assert done.returncode == 2 and "invalid choice: 'q3_k'" in done.stderr
    assert not list(tmp_path.glob("*.gguf*"))
