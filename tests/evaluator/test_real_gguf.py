"""Gemma 3 270M in Q4_K_M (evaluator/real_gguf.py), the real file a phone app ships, through everything the toys
stand in for (issue 33, section 1): llama.cpp loads it; every prompt is tokenized with its own 262k vocabulary, BOS as
its metadata says; the letters' token forms are found and their probabilities sane; sliding-window attention turns
prefix reuse off as the backend promises, and scoring after other prompts equals scoring alone; batched sequences
against one prompt at a time; the cost profile's model_size equals the pinned llama-bench's; that llama-bench's report
uploads and matches the file by sha256 and by name plus size; GGUF intake reads its header and names it Q4_K_M from
its tensors. Real-shaped prompts (bench/real_shapes.py), few of them, 2 threads: the file's cost is minutes on a busy
2-core machine."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from evaluator import real_gguf
from evaluator.real_gguf import GEMMA3_270M_Q4_K_M as GEMMA

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]
THREADS = 2
N_PROMPTS = 4
LLAMA_BENCH = Path(sys.executable).with_name("llama-bench")


@pytest.fixture(scope="session")
def gemma_file() -> Path:
    if not real_gguf.available():
        pytest.skip(f"{GEMMA.package} is not installed (requirements/llamacpp.lock installs it into .venv-llamacpp)")
    return real_gguf.real_gguf_file()


@pytest.fixture(scope="session")
def prompts() -> list[str]:
    from bench.real_shapes import real_shaped_questions
    from evaluator.prompts import get_template

    template = get_template("default")
    return [template.render(q.question, q.options) for q in real_shaped_questions(N_PROMPTS, seed=5, prefix="gemma")]


@pytest.fixture(scope="module")
def gemma(gemma_file, prompts):
    from bench.real_shapes import prompt_sizes
    from evaluator.backends import create_backend

    backend = create_backend("llamacpp", str(gemma_file), threads=THREADS, sizing_prompts=prompts)
    chars, tokens = prompt_sizes(prompts, backend.count_tokens)
    print(f"\n{len(prompts)} real-shaped prompts: mean {chars:,.0f} characters, {tokens:,.0f} Gemma tokens")
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def scored(gemma, prompts):
    return gemma.letter_logprobs(prompts)


def probabilities(lp: dict[str, float]) -> dict[str, float]:
    return {letter: math.exp(v) for letter, v in lp.items()}


def largest_difference(a, b) -> float:
    return max(abs(probabilities(x)[k] - probabilities(y)[k]) for x, y in zip(a, b) for k in x)


def test_it_loads_and_its_card_says_what_it_is(gemma, gemma_file):
    card = gemma.describe()
    assert (card["architecture"], card["dtype"], card["file_sha256"], card["file_bytes"]) == (
        "gemma3", "Q4_K_M", GEMMA.sha256, GEMMA.size)
    assert 260_000_000 < card["param_count"] < 280_000_000 and card["weight_bytes"] < GEMMA.size
    assert gemma.llm.n_vocab() == 262_144 and gemma.metadata["gemma3.attention.sliding_window"] == "512"


def test_every_prompt_is_tokenized_with_the_files_vocabulary_bos_as_it_says(gemma, prompts):
    md = gemma.metadata
    assert (md["tokenizer.ggml.add_bos_token"], md["tokenizer.ggml.add_space_prefix"]) == ("true", "false")
    bos = int(md["tokenizer.ggml.bos_token_id"])
    for prompt in prompts:
        ids = gemma.tokenizer.encode(prompt, add_special_tokens=True)
        assert ids[0] == bos and bos not in ids[1:]  # one BOS, first; none added twice
        assert gemma.tokenizer.decode(ids[1:]) == prompt  # the file's own pieces spell the prompt back
        assert len(ids) < len(prompt) / 3  # Gemma's 262k pieces: ~4 characters each, not bytes or letters
    # "Answer: A" as Gemma's tokenizer has it: no space prefix on the first word, "▁A" after the colon
    assert [gemma._vocab.token_get_text(t) for t in gemma.tokenizer.encode("Answer: A", True)] == [
        "<bos>", "Answer", ":", "▁A"]


def test_the_letters_forms_are_found_and_their_probabilities_are_sane(gemma, scored):
    forms = {letter: [gemma._vocab.token_get_text(t) for t in ids] for letter, ids in gemma.forms.items()}
    assert forms["A"] == ["A", "▁A"] and all(len(ids) == 2 for ids in forms.values())
    masses = []
    for lp in scored:
        p = probabilities(lp)
        mass = sum(p[k] for k in "ABCD")
        masses.append(mass)
        assert 0.2 < mass <= 1.0 and max(p, key=p.get) in "ABCD"  # the options' letters, not E-J
        assert sum(p.values()) <= 1.0 + 1e-9
    print(f"\nletter mass (A-D) per prompt: {', '.join(f'{m:.3f}' for m in masses)}")


def test_sliding_window_attention_turns_prefix_reuse_off_and_each_prompt_is_scored_alone(
        gemma, gemma_file, prompts, scored):
    card = gemma.describe()["prefix_reuse"]
    assert (card["requested"], card["used"], card["why"]) == (True, False, "gemma3: sliding-window attention")
    assert gemma.stats["prefix_hits"] == 0 and gemma.stats["computed_tokens"] == gemma.stats["prompt_tokens"]
    from evaluator.backends import create_backend

    alone = create_backend("llamacpp", str(gemma_file), threads=THREADS, sizing_prompts=prompts)
    try:  # the last prompt in a fresh backend: nothing left of the others' KV (the SWA cache included)
        assert largest_difference([alone.letter_logprobs(prompts[-1:])[0]], scored[-1:]) == 0.0
    finally:
        alone.close()


def test_batched_sequences_against_one_prompt_at_a_time(gemma_file, prompts, scored):
    """The finding: on this file llama.cpp's CPU kernels make a token's logits depend on the ubatch it is decoded in
    (8-bit activations; kernel paths by ubatch size), so batched sequences agree with one at a time on the letter,
    not within 1e-4. The f32 toy's do (test_batched_sequences_equal_one_at_a_time_on_an_f32_toy)."""
    from evaluator.backends import create_backend

    batched = create_backend("llamacpp", str(gemma_file), threads=THREADS, sizing_prompts=prompts, sequences=4)
    try:
        together = batched.letter_logprobs(prompts)
        assert batched.stats["decodes"] == 1 and batched.describe()["sequences"]["per_decode"] == 4
    finally:
        batched.close()
    worst = largest_difference(together, scored)
    print(f"\nbatched (4 sequences, 1 llama_decode) vs one at a time: largest letter-probability difference {worst:.1e}")
    for a, b in zip(together, scored):
        assert max(a, key=a.get) == max(b, key=b.get)
    assert worst < 0.05


def test_the_cost_profile_runs_and_its_model_size_is_llama_benchs(gemma_file):
    from evaluator.ondevice_profile import measure_profile

    assert LLAMA_BENCH.is_file(), f"no {LLAMA_BENCH}: dev.sh's setup_llamacpp builds it"
    profile = measure_profile(gemma_file, threads=THREADS, repeats=1, pp=16, tg=4, timeout=600)
    bench = llama_bench(gemma_file)
    assert profile["model_size"] == bench[0]["model_size"] < GEMMA.size
    assert (profile["file_type"], profile["architecture"], profile["file_bytes"]) == ("Q4_K_M", "gemma3", GEMMA.size)
    assert profile["ttft"]["prompt_tokens"] > 300 and profile["tg"]["tokens_per_s"] > 0


def llama_bench(path: Path) -> list:
    done = subprocess.run([str(LLAMA_BENCH), "-m", str(path), "-p", "16", "-n", "4", "-r", "1", "-t", str(THREADS),
                           "-o", "json"], capture_output=True, text=True, timeout=600, check=True)
    return json.loads(done.stdout)


@pytest.fixture
def post(db):
    """POST a device report as a signed-in account (tests/devices/conftest.py's)."""
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(User.objects.create_user("tester", "tester@example.com", "pw"))
    return lambda data: client.post("/api/v1/device-reports/", data, format="json")


@pytest.mark.django_db
def test_a_llama_bench_report_on_it_uploads_and_matches_by_sha256_and_by_name_and_size(gemma_file, demo_loaded, post):
    from tests.boards.ondevice_world import BASE, first_right
    from tests.devices import world
    from tests.results.quantized_runs import gguf_entry, letter_run, questions

    bench = llama_bench(gemma_file)
    hub = GEMMA.hub_id
    letter_run(hub, first_right(150, len(questions())), precision="gguf",
               submission=gguf_entry(hub, base_model=BASE, quantization="Q4_K_M"),
               model_files=[{"file": GEMMA.file_name, "size": GEMMA.size, "sha256": GEMMA.sha256}],
               efficiency={"ondevice": {"label": "x", "threads": THREADS, "model_size": bench[0]["model_size"]}})
    by_name = post(world.body(bench))
    assert by_name.status_code == 201, by_name.content[:800]
    assert (by_name.json()["hub_id"], by_name.json()["matched_by"]) == (hub, "name_size")
    by_sha = post(world.body(bench, sha256=GEMMA.sha256))
    assert by_sha.status_code == 201 and by_sha.json()["matched_by"] == "sha256"
    assert by_sha.json()["file_sha256"] == GEMMA.sha256


def test_gguf_intake_reads_its_header_and_names_it_q4_k_m_from_its_tensors(gemma_file):
    from leaderboard.hub.gguf_header import parse_header
    from leaderboard.hub.gguf_quant import quantization

    with gemma_file.open("rb") as f:
        def read_more(have, at_least):
            f.seek(have)
            return f.read(max(at_least - have, 1 << 20))
        header = parse_header(f.read(1 << 20), file_size=GEMMA.size, read_more=read_more)
    md = header.metadata
    assert (md["general.architecture"], md["general.file_type"], md["tokenizer.ggml.tokens"].count) == (
        "gemma3", 15, 262_144)
    assert quantization(header.tensors, md["general.file_type"]) == "Q4_K_M"
    types = sorted({t.type_name for t in header.tensors})
    print(f"\n{len(header.tensors)} tensors, types {types}; without general.file_type llama.cpp would guess "
          f"{quantization(header.tensors, None)}")
    assert {"Q4_K", "Q6_K"} <= set(types)  # a real K-quant mix, rows wide enough for 256-value blocks
    assert header.data_end() == GEMMA.size
