import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import question_records, write_jsonl

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "evaluator", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_it_works_end_to_end(tmp_path, tiny_model_dir, demo_questions):
    qfile = write_jsonl(tmp_path / "q.jsonl", question_records(demo_questions[:12]))
    dev = write_jsonl(tmp_path / "dev.jsonl", question_records(demo_questions[40:]))
    out, summary = tmp_path / "out.jsonl", tmp_path / "summary.json"
    proc = run_cli("--model", tiny_model_dir, "--questions", qfile, "--out", out, "--variants", "original,fixed-A,R1",
                   "--template", "mobile-mmlu-reference", "--shots", "1", "--dev", dev, "--seed", "3",
                   "--batch-size", "4", "--summary", summary, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 36 and {r["variant"] for r in rows} == {"original", "fixed-A", "R1"}
    for r in rows:
        assert set(r["letter_probs"]) == set("ABCD") and abs(sum(r["letter_probs"].values()) - 1) < 1e-9
        assert 0 < r["letter_mass"] <= 1 and r["predicted"] in "ABCD" and isinstance(r["correct"], bool)
    report = json.loads(summary.read_text())
    assert report["settings"]["template_hash"] and report["settings"]["shots"] == 1
    s = report["summary"]
    assert s["overall"]["n"] == 12 and set(s["per_variant"]) == {"original", "fixed-A", "R1"}
    assert "ci95" in s["overall"] and s["order_robustness"]["std"] >= 0 and "mean" in s["letter_mass"]
    eff = report["efficiency"]
    assert eff["label"].startswith("server measurement") and eff["sample_size"] == 12
    assert eff["param_count"] > 0 and eff["batch1_latency_s"]["mean"] > 0 and eff["peak_memory_bytes"] > 0


@pytest.mark.slow
def test_it_prints_the_summary_to_stdout_in_generate_mode(tmp_path, tiny_model_dir, demo_questions):
    qfile = write_jsonl(tmp_path / "q.jsonl", question_records(demo_questions[:3]))
    proc = run_cli("--model", tiny_model_dir, "--questions", qfile, "--out", tmp_path / "o.jsonl",
                   "--mode", "generate", "--max-new-tokens", "3", "--quiet", "--chat-template")
    assert proc.returncode == 0, proc.stderr
    assert "rate" in json.loads(proc.stdout)["summary"]["unparsed"]


def test_it_handles_a_bad_question_file(tmp_path, tiny_model_dir):
    bad = tmp_path / "bad.csv"
    bad.write_text("question_id,question,A,B,answer\nq1,Q?,x,y,Z\n")
    proc = run_cli("--model", tiny_model_dir, "--questions", bad, "--out", tmp_path / "o.jsonl")
    assert proc.returncode == 2
    assert f"error: QUESTION_FILE_INVALID: {bad}: row 2, column 'answer'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_it_handles_an_unknown_variant_with_its_code(tmp_path, demo_questions):
    qfile = write_jsonl(tmp_path / "q.jsonl", question_records(demo_questions[:2]))
    proc = run_cli("--model", tmp_path / "m", "--questions", qfile, "--out", tmp_path / "o.jsonl", "--variants", "R9")
    assert proc.returncode == 2 and "error: UNKNOWN_VARIANT: " in proc.stderr


@pytest.mark.slow
def test_it_handles_a_missing_model(tmp_path, demo_questions):
    qfile = write_jsonl(tmp_path / "q.jsonl", question_records(demo_questions[:2]))
    proc = run_cli("--model", tmp_path / "no-model", "--questions", qfile, "--out", tmp_path / "o.jsonl")
    assert proc.returncode == 3 and "error: MODEL_LOAD_ERROR: cannot load model" in proc.stderr
