"""Our letter_probs equal lm-evaluation-harness HFLM's one-token log-likelihoods (skipped without lm-eval)."""
import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")
pytest.importorskip("accelerate")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "lm_eval_agreement.py"


def test_letter_probs_match_lm_eval_loglikelihood(tiny_model_dir, demo_questions):
    spec = importlib.util.spec_from_file_location("lm_eval_agreement", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    report = module.compare(str(tiny_model_dir), demo_questions[:16])
    assert report["max_abs_diff"] < 1e-4
    assert report["predictions_agree"] and report["ties"] == 0
