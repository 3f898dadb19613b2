"""Runs of MMLU-Pro's own protocol (evaluator/protocols.py) through the service: made by run_create and `manage.py
evaluate --protocol`, predicted, scored (the random-guess option included), recorded in the run card, shown on the
run page, and never ranked with runs of the leaderboard's own settings."""
import copy
import json

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from evaluator.backends import create_backend
from evaluator.protocols import category_of, get_protocol, protocol_exemplars, render_prompt
from leaderboard.benchmarks.crypto import encrypt_answer
from leaderboard.benchmarks.models import Benchmark, BenchmarkVersion, Category, Question, Subcategory, Topic
from leaderboard.evaluations import selectors, services
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.results import selectors as results_selectors
from leaderboard.scoring.services import run_score
from tests.evaluator import mmlu_pro_official as official
from tests.evaluator.test_mmlu_pro_protocol import DEV, TEST
from tests.support.publisher_layouts import PRO_TEST, PRO_VALIDATION, make_pro_rows, write_mmlu_pro
from tests.support.refusals import refusal_of
from tests.support.sealed import assert_no_sealed_content

pytestmark = pytest.mark.django_db
SEALED = [{**r, "question_id": 200 + i, "question": f"Sealed question number {i} that nobody may read?"}
          for i, r in enumerate(TEST)]


def make_benchmark(*, slug="mmlu-pro-mini", dev=DEV):
    """An MMLU-Pro-shaped benchmark as its import stores it: categories as topics, cot_content in the dev split's
    `extra`, the test split sealed (no cot_content there)."""
    benchmark = Benchmark.objects.create(slug=slug, name="MMLU-Pro mini")
    category = Category.objects.create(benchmark=benchmark, name="MMLU-Pro", slug="mmlu-pro")
    sub = Subcategory.objects.create(category=category, name="All", slug="all")
    topics = {name: Topic.objects.create(benchmark=benchmark, subcategory=sub, name=name.title(),
                                         slug=name.replace(" ", "-"), hub_field=name)
              for name in ("math", "law", "computer science")}
    version = BenchmarkVersion.objects.create(benchmark=benchmark, number=1,
                                              split_hashes={"dev": "d" * 64, "validation": "v" * 64, "test": "t" * 64})
    for split, records in (("dev", dev), ("validation", TEST), ("test", SEALED)):
        sealed = split == "test"
        Question.objects.bulk_create([Question(
            version=version, uid=str(r["question_id"]), topic=topics[r["category"]], split=split, position=i,
            text=r["question"], options=r["options"], answer="" if sealed else r["answer"],
            answer_sealed=encrypt_answer(r["answer"]) if sealed else None,
            extra={k: r[k] for k in ("src", "cot_content") if k in r and not (sealed and k == "cot_content")})
            for i, r in enumerate(records)])
    return version


def run_through(version, model_dir, *, model_ref="test-org/cot-reply", split="validation", **settings):
    """A run made, predicted and scored as a worker and the trusted side do (the model loaded from a folder)."""
    run = services.run_create(version=version, split=split, model_ref=model_ref, **settings)
    services.run_claim(run=run)
    backend = create_backend("transformers", str(model_dir), device="cpu", batch_size=4)
    services.run_predict(run=run, backend=backend, measure=False)
    run_score(run=run)
    run.refresh_from_db()
    return run


def test_a_protocol_run_records_its_settings_and_scores_as_the_protocol_says(cot_reply_model_dir):
    version = make_benchmark()
    run = run_through(version, cot_reply_model_dir, protocol="mmlu-pro-cot")
    assert run.status == RunStatus.SUCCEEDED
    proto = get_protocol("mmlu-pro-cot")
    assert (run.protocol, run.template, run.template_hash, run.shots, run.mode) == (
        "mmlu-pro-cot", "mmlu-pro-cot", proto.hash, 5, "generate")
    assert run.hardware["backend"]["decoding"] == proto.decoding.describe()
    rows = selectors.run_rows(run=run)
    assert {r["output"] for r in rows} == {" The answer is (B)\n"}
    assert {r["question_id"]: r["shots"] for r in rows} == {"100": 5, "101": 5, "102": 5, "103": 5, "104": 2}
    assert run.summary["overall"]["correct"] == 2 and run.summary["unparsed"] == {"n": 0, "rate": 0.0}
    default = services.run_create(version=version, split="validation", model_ref="test-org/cot-reply", shots=5)
    assert default.plan_fingerprint != run.plan_fingerprint and default.template_hash != run.template_hash


def test_the_random_guess_option_gives_the_official_figures(cot_shrug_model_dir, tmp_path):
    version = make_benchmark()
    run = run_through(version, cot_shrug_model_dir, protocol="mmlu-pro-cot-guess")
    rows = selectors.run_rows(run=run)
    assert all(r["parsed"] is False for r in rows)  # no letter in the reply: every answer is guessed
    res = {}
    for r in copy.deepcopy(TEST):
        r["options"] = [o for o in r["options"] if o != "N/A"]
        res.setdefault(r["category"], []).append({**r, "pred": None})
    figures = official.official_figures(res, str(tmp_path / "res.json"))
    assert run.summary["overall"]["correct"] == sum(corr for _, corr, _ in figures.values())
    assert run.summary["random_guess"] == {"n": 5, "correct": run.summary["overall"]["correct"]}
    assert run.summary["unparsed"] == {"n": 5, "rate": 1.0}


def test_runs_of_two_protocols_are_never_ranked_together(cot_reply_model_dir, client):
    version = make_benchmark()
    default = run_through(version, cot_reply_model_dir, shots=5)  # the same model, split and shots
    protocol = run_through(version, cot_reply_model_dir, protocol="mmlu-pro-cot")
    board = results_selectors.measured_rows(benchmark=version.benchmark, split="validation", shots=5)
    assert [row["run_id"] for row in board] == [default.pk]
    history = {h["run_id"]: h for h in results_selectors.model_history(hub_id="test-org/cot-reply")}
    assert set(history) == {default.pk, protocol.pk} and history[protocol.pk]["previous_run_id"] is None

    page = client.get(reverse("model-detail", args=["test-org/cot-reply"]) + f"?run={protocol.pk}")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="run-protocol"' in html and "mmlu-pro-cot" in html and "unread answers wrong" in html
    assert "unread: 0 of 5 (0.0%)" in html
    plain = client.get(reverse("model-detail", args=["test-org/cot-reply"])).content.decode()
    assert 'id="run-protocol"' not in plain  # the page's own run is the board's (the leaderboard's settings)


def test_a_sealed_protocol_run_publishes_no_generated_text(cot_reply_model_dir, client):
    version = make_benchmark()
    run = run_through(version, cot_reply_model_dir, split="test", protocol="mmlu-pro-cot")
    assert run.status == RunStatus.SUCCEEDED
    for chunk in PredictionChunk.objects.filter(run=run):  # the predicting side had no answer
        assert all("correct" not in row and "answer" not in row for row in chunk.rows)
    page = client.get(reverse("model-detail", args=["test-org/cot-reply"]) + f"?run={run.pk}").content.decode()
    assert "mmlu-pro-cot" in page and "The answer is (B)" not in page and "unread:" not in page
    assert_no_sealed_content(page)
    questions = client.get(reverse("model-questions", args=["test-org/cot-reply"]) + f"?run={run.pk}&split=test")
    assert "The answer is (B)" not in questions.content.decode()


def test_evaluate_runs_the_protocol_from_the_command_line(cot_reply_model_dir, capsys):
    make_benchmark()
    call_command("evaluate", "--model", str(cot_reply_model_dir), "--benchmark", "mmlu-pro-mini", "--protocol",
                 "mmlu-pro-cot", "--no-efficiency", verbosity=0)
    out = json.loads(capsys.readouterr().out)
    run = EvaluationRun.objects.get(pk=out["run"])
    assert run.protocol == "mmlu-pro-cot" and out["accuracy"] == 40.0 and out["n"] == 5


@pytest.mark.parametrize("args,code", [
    (["--variants", "original,R1"], "PROTOCOL_VARIANTS"),
    (["--benchmark", "no-cot"], "COT_CONTENT_MISSING"),
])
def test_evaluate_refuses_what_the_protocol_cannot_run(cot_reply_model_dir, snapshot, args, code):
    make_benchmark()
    make_benchmark(slug="no-cot", dev=[{k: v for k, v in r.items() if k != "cot_content"} for r in DEV])
    before = snapshot()
    with pytest.raises(CommandError) as info:
        call_command("evaluate", "--model", str(cot_reply_model_dir), "--benchmark", "mmlu-pro-mini",
                     "--protocol", "mmlu-pro-cot", *args, verbosity=0)
    assert refusal_of(info.value).code == code and info.value.returncode == 2
    assert snapshot() == before


@override_settings(RUN_BACKEND="vllm")
def test_where_the_deployment_runs_vllm_a_protocol_run_goes_to_vllm():
    version = make_benchmark()
    with pytest.raises(services.RunConfigError) as refused:
        services.run_create(version=version, split="validation", model_ref="org/m", protocol="mmlu-pro-cot")
    assert refused.value.code == "PROTOCOL_BACKEND"
    run = services.run_create(version=version, split="validation", model_ref="org/m", backend="vllm",
                              protocol="mmlu-pro-cot")
    assert run.backend == "vllm" and services.max_new_tokens(run) == 2048


def test_mmlu_pro_imported_from_its_files_runs_as_its_script_runs_it(cot_shrug_model_dir, tmp_path, monkeypatch):
    """Through the real import (create_benchmark, import_benchmark from the publisher's Parquet files): the prompts
    the run sends are the official script's for the raw rows, and the random-guess figures are the script's."""
    test_rows = make_pro_rows(per_category=3)
    dev_rows = make_pro_rows(per_category=2, first_id=0, worked=True)
    # Published cells keep stray spaces (MMLU's sources have them); the script renders them as they are.
    test_rows[1]["question"] = "  " + test_rows[1]["question"] + " \n"
    test_rows[1]["options"][2] = " " + test_rows[1]["options"][2] + "  "
    dev_rows[0]["cot_content"] += "\n"
    root = write_mmlu_pro(tmp_path / "MMLU-Pro", test_rows=test_rows, validation_rows=dev_rows)
    call_command("create_benchmark", "--slug", "mmlu-pro", "--topics-from", str(root / PRO_TEST), verbosity=0)
    for split, path in (("dev", PRO_VALIDATION), ("validation", PRO_TEST)):
        call_command("import_benchmark", "--benchmark", "mmlu-pro", "--split", split, "--path", str(root / path),
                     verbosity=0)
    version = BenchmarkVersion.objects.get(benchmark__slug="mmlu-pro")
    questions = selectors.engine_questions(version=version, split="validation")
    exemplars = protocol_exemplars(get_protocol("mmlu-pro-cot"), questions, selectors.dev_exemplars(version=version))

    (tmp_path / "cot_prompt_lib").mkdir()
    (tmp_path / "cot_prompt_lib" / "initial_prompt.txt").write_text(official.INITIAL_PROMPT)
    monkeypatch.chdir(tmp_path)
    val_df = official.preprocess(copy.deepcopy(dev_rows))
    by_id = {str(r["question_id"]): r for r in official.preprocess(copy.deepcopy(test_rows))}
    for q in questions:
        ours = render_prompt(get_protocol("mmlu-pro-cot"), q.question, q.options, category_of(q), exemplars[q.topic])
        assert ours == official.generate_cot_prompt(val_df, by_id[q.question_id], 5)

    run = run_through(version, cot_shrug_model_dir, protocol="mmlu-pro-cot-guess")
    res = {}
    for r in by_id.values():
        res.setdefault(r["category"], []).append({**r, "pred": None})
    figures = official.official_figures(res, str(tmp_path / "res.json"))
    assert run.summary["unparsed"]["n"] == len(test_rows) and "computer_science" in run.summary["per_topic"]
    assert {t.replace("_", " "): (b["correct"], b["n"]) for t, b in run.summary["per_topic"].items()} == {
        c: (corr, corr + wrong) for c, (_, corr, wrong) in figures.items()}
    assert 0 < run.summary["random_guess"]["correct"] < len(test_rows)
