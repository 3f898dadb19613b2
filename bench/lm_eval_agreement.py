"""Agreement with lm-evaluation-harness: our one-pass letter_probs vs HFLM loglikelihood.

    pip install lm-eval   # not a project requirement; only this check needs it
    python bench/lm_eval_agreement.py [--n 40]

For the mobile-mmlu-reference prompt, lm-eval scores each one-token continuation
"A".."D" and " A".." D" with its own forward pass; summing per letter and
renormalising must give our letter_probs (one forward per question) to 1e-4,
with the same predictions and no ties. lm-eval moves the prompt's trailing "\\n"
into the continuation; that factor P("\\n" | ...) is common to every letter and
cancels in the renormalisation.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluator.backends import create_backend  # noqa: E402
from evaluator.demo_models import build_demo_tokenizer, build_tiny_random, generate_demo_questions  # noqa: E402
from evaluator.engine import run_evaluation  # noqa: E402
from evaluator.prompts import get_template  # noqa: E402

TEMPLATE = "mobile-mmlu-reference"


def lm_eval_letter_probs(model_dir: str, prompts: list[str], letters: str = "ABCD", batch_size: int = 8):
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=model_dir, device="cpu", batch_size=batch_size, dtype="float32", add_bos_token=True)
    requests, keys = [], []
    for pi, prompt in enumerate(prompts):
        for L in letters:
            for form in (L, " " + L):
                requests.append(Instance(request_type="loglikelihood", doc={}, arguments=(prompt, form),
                                         idx=len(requests)))
                keys.append((pi, L))
    results = lm.loglikelihood(requests, disable_tqdm=True)
    raw = [dict.fromkeys(letters, 0.0) for _ in prompts]
    for (pi, L), (ll, _greedy) in zip(keys, results):
        raw[pi][L] += math.exp(ll)
    return [{L: v / sum(r.values()) for L, v in r.items()} for r in raw]


def compare(model_dir: str, questions) -> dict:
    backend = create_backend("transformers", model_dir, device="cpu", batch_size=8)
    by_id = {r["question_id"]: r for r in run_evaluation(backend, questions, template=TEMPLATE).rows}
    ours = [by_id[q.question_id] for q in questions]  # rows come in plan order (topic by topic)
    tmpl = get_template(TEMPLATE)
    theirs = lm_eval_letter_probs(model_dir, [tmpl.render(q.question, q.options) for q in questions])
    max_diff = max(abs(r["letter_probs"][L] - t[L]) for r, t in zip(ours, theirs) for L in t)
    their_pred = [max(t, key=t.get) for t in theirs]
    return {
        "n": len(questions),
        "max_abs_diff": max_diff,
        "predictions_agree": all(r["predicted"] == p for r, p in zip(ours, their_pred)),
        "ties": sum(r["tie"] for r in ours),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--model", default=None, help="a local model folder (default: build the tiny demo model)")
    args = ap.parse_args()
    questions = generate_demo_questions(args.n, seed=7, prefix="agree")
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = args.model
        if model_dir is None:
            tmpl = get_template(TEMPLATE)
            tok = build_demo_tokenizer([tmpl.render(q.question, q.options) for q in questions], Path(tmp) / "tok")
            model_dir = str(build_tiny_random(Path(tmp) / "tiny", tok, seed=1))
        report = compare(model_dir, questions)
    print(report)
    ok = report["max_abs_diff"] < 1e-4 and report["predictions_agree"] and report["ties"] == 0
    print("AGREE" if ok else "DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
