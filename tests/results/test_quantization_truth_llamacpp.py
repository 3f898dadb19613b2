"""On-device variants on real predictions: the tiny Llama checkpoint run by the transformers backend in bfloat16, and
its Q8_0 and Q4_K_M files (made by the project's pipeline, tests/support/gguf_fixtures.py) run by llama.cpp, on the
demo's validation questions as stored; the runs scored by the real path and compared through the API."""
import pytest
from django.urls import reverse

from evaluator.backends import create_backend
from evaluator.engine import run_evaluation
from evaluator.quantization_truth import compare
from leaderboard.benchmarks.models import Benchmark
from leaderboard.evaluations.selectors import engine_questions
from tests.results.quantized_runs import gguf_entry, stored_run

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow, pytest.mark.django_db]
BASE = "org/tiny-llama"


def predict(backend, questions):
    try:
        return run_evaluation(backend, questions).rows
    finally:
        getattr(backend, "close", lambda: None)()


def test_quantized_files_against_the_16_bit_run_on_real_predictions(client, demo_loaded, spm_model_dirs, gguf_files):
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    questions = engine_questions(version=version, split="validation")
    base_rows = predict(create_backend("transformers", str(spm_model_dirs["llama"]), device="cpu", dtype="bfloat16",
                                       batch_size=8), questions)
    base = stored_run(BASE, base_rows)
    files = {}
    for quant in ("Q8_0", "Q4_K_M"):
        # One thread: llama.cpp's threads wait for each other at every step, a long wait on a machine the suite's
        # other processes keep busy (the letters do not depend on the thread count).
        rows = predict(create_backend("llamacpp", str(gguf_files["llama", quant.lower()]), threads=1), questions)
        hub_id = f"org/tiny-llama-GGUF/tiny-{quant}.gguf"
        stored_run(hub_id, rows, precision="gguf", submission=gguf_entry(hub_id, base_model=BASE, quantization=quant))
        files[quant] = compare(zip(base_rows, rows, strict=True))  # the engine's rows, in plan order

    body = client.get(reverse("api-model-on-device", args=[BASE])).json()
    assert body["role"] == "base"
    rows = {r["quantization"]: r for r in body["rows"]}
    for quant, direct in files.items():
        row = rows[quant]
        assert row["compared"] and row["base_run_id"] == base.pk and row["n"] == len(questions) == 480
        # Paired from the stored chunks: the same figures as from the engine's rows directly.
        assert (row["flips"], row["right_to_wrong"], row["wrong_to_right"]) == (
            direct.changed, direct.right_to_wrong, direct.wrong_to_right)
        assert row["mean_kl"] == pytest.approx(direct.mean_kl, abs=1e-6) and row["kl_n"] == 480
        assert row["change_ci95_low"] <= row["accuracy_change"] <= row["change_ci95_high"]
    print(", ".join(f"{q}: {r['flips']} flips ({r['right_to_wrong']} right→wrong, {r['wrong_to_right']} "
                    f"wrong→right), mean KL {r['mean_kl']:.2e}, change {r['accuracy_change']:+.2f} "
                    f"[{r['change_ci95_low']:+.2f}, {r['change_ci95_high']:+.2f}]" for q, r in rows.items()))
    # A tiny random model's letters are close calls; still, 8 bits move them less than 4.
    assert rows["Q8_0"]["mean_kl"] < rows["Q4_K_M"]["mean_kl"]
    assert rows["Q8_0"]["flips"] <= rows["Q4_K_M"]["flips"] < 480
