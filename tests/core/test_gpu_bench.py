"""bench/gpu_bench.py runs on a GPU only where one is lent; its throughput path is the same code on the CPU with a
tiny model, run here end to end on two real-shaped questions so a change cannot break it unnoticed."""
import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "gpu_bench.py"


@pytest.fixture(scope="module")
def gpu_bench():
    spec = importlib.util.spec_from_file_location("gpu_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compute_limit_is_the_bf16_matmul_time_of_every_token(gpu_bench):
    # 7B-shaped Llama (7.24B parameters), 450 tokens per prompt, 16,186 prompts on one H100 (989 TFLOP/s)
    assert gpu_bench.compute_limit_s(450, 7_240_000_000, 989.0, 16_186) == pytest.approx(107, abs=1)
    assert gpu_bench.compute_limit_s(900, 7_240_000_000, 989.0, 16_186 * 9) == pytest.approx(18 * 107, rel=0.01)


def test_nine_orders_are_planned_as_the_engine_plans_them(gpu_bench):
    from bench.real_shapes import dev_questions, real_shaped_questions

    questions = real_shaped_questions(3, topics=["accounting"])
    prompts = gpu_bench.nine_order_prompts(questions, dev_questions(["accounting"]))
    assert len(prompts) == 27
    for i, q in enumerate(questions):  # question-major: a question's 9 orders follow each other
        block = prompts[9 * i:9 * i + 9]
        assert all(q.question in p for p in block) and len(set(block)) > 1


@pytest.mark.slow
def test_the_throughput_path_runs_on_the_cpu_and_reports_every_figure_against_the_limit(
        gpu_bench, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["gpu_bench.py", "--device", "cpu", "--mode", "throughput", "--n", "2",
                                      "--backends", "transformers", "--vocab", "4000"])
    gpu_bench.main()
    out = capsys.readouterr().out
    sizes = {}
    for setting in ("0-shot", "5-shot", "9 orders"):
        found = re.search(rf"{setting} *: .*mean prompt characters ([\d,]+), mean prompt tokens ([\d,]+)", out)
        chars, tokens = sizes[setting] = tuple(float(v.replace(",", "")) for v in found.groups())
        assert chars > 1_000 and 3.5 < chars / tokens < 5.5  # real-shaped (a few questions: lengths vary)
        assert f"{setting} " in out.split("extrapolated from the measured rate:")[1]
    assert sizes["5-shot"][1] > 4 * sizes["0-shot"][1]
    assert out.count("x the limit") == 3 and "compute limit" in out
    verdicts = [x.split()[0] for x in out.splitlines() if x.strip().startswith(("PASS", "FAIL"))]
    assert len(verdicts) == 3  # one answer order, all 9 orders, 5-shot vs 0-shot
    assert "only show that the path works" in out
