"""End-to-end pipeline timing and prediction-persistence throughput, in one run.

    python bench/pipeline_bench.py [--bank real-shapes|demo] [--model tiny-random|tiny-val-memorizer]
                                   [--naive-rows 10000] [--torch-threads N]

1. submit -> finished. A demo model (var/demo/<model> when ./dev.sh serve built it, else built
   into a temporary folder as demo_models_build does) is published on a loopback fake Hugging Face hub; the
   questions are imported into a throw-away PostgreSQL database: by default the demo bank's sizes with the
   published files' lengths (bench/real_shapes.py; the model is then tiny-random), or with --bank demo the demo
   bank (its prompts are ~6x shorter than real ones); real Celery workers run
   in subprocesses on their own Redis database, laid out as docker/start-worker.sh does (a
   `gpu` worker and a `default` worker; --single-worker for one worker on both queues, as
   dev.sh serve); the model is submitted with `submission_create` (hub checks included) and
   both runs the submission queues (validation: every variant; sealed test: original) are
   awaited. Phases come from the runs' database timestamps and from timers the gpu/default
   worker processes put around the app's own functions (create_backend, the chunk store,
   the progress callback, measure_efficiency, run_score); the workers run the app's code
   unchanged otherwise. Each run's column gives its mean prompt characters and tokens.
2. persisting 16,186 x 9 predictions: the app's chunk store (PredictionChunk rows of 256
   predictions, bulk_create ignore_conflicts: services._chunk_store itself) vs a naive
   per-row table written with one ORM create() per prediction in autocommit. The naive path
   is timed on a fixed sample (--naive-rows, 0 = all 145,674) and compared in rows/s.

Prints times and ratios; asserts nothing about absolute times (machines differ). On CPU the
inference phase is very sensitive to other load: torch's default one thread per core stalls
badly when another process takes a core (--torch-threads 1 is far steadier there).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BROKER = "redis://127.0.0.1:6379/12"  # not the tests' database (15)
DB_NAME = "leaderboard_pipeline_bench"  # -> test_leaderboard_pipeline_bench
HUB_ID_PREFIX = "demo-org"
MARK = "PIPELINE_BENCH "
FULL_QUESTIONS = 16_186


# --- the worker side: a real Celery worker with timers around the app's functions --------------

def _emit(**fields):
    sys.__stdout__.write(MARK + json.dumps(fields) + "\n")
    sys.__stdout__.flush()


def _instrument_worker():
    """Wrap (not replace) the functions a run goes through; every wrapper calls the original."""
    from leaderboard.evaluations import runner, services
    from leaderboard.scoring import services as scoring

    acc = {}

    def fresh(run_id):
        acc.clear()
        acc.update(run=run_id, persist=0.0, chunks=0, heartbeat=0.0, progress=0.0)

    orig_predict = runner.predict

    def predict(run_id):
        fresh(run_id)
        t0 = time.time()
        try:
            return orig_predict(run_id)
        finally:
            _emit(kind="predict", **acc, task_start=t0, task_end=time.time())

    orig_create_backend = runner.create_backend

    def create_backend(*args, **kwargs):
        t0 = time.time()
        backend = orig_create_backend(*args, **kwargs)
        acc.update(load_start=t0, load_end=time.time(), load_seconds=getattr(backend, "load_seconds", None))
        return backend

    def spanned(orig, phase):
        """orig, recording acc[<phase>_start] and acc[<phase>_end] around each call (a failed one too)."""
        def wrapper(*args, **kwargs):
            t0 = time.time()
            try:
                return orig(*args, **kwargs)
            finally:
                acc.update({f"{phase}_start": t0, f"{phase}_end": time.time()})
        return wrapper

    orig_run_evaluation = services.run_evaluation

    def run_evaluation(backend, *args, **kwargs):
        progress = kwargs.get("progress")
        if progress is not None:
            def timed_progress(done, total):
                t = time.perf_counter()
                try:
                    progress(done, total)
                finally:
                    acc["progress"] += time.perf_counter() - t
            kwargs["progress"] = timed_progress
        stats = getattr(backend, "stats", {})
        forward0 = stats.get("forward_seconds", 0.0)
        t0 = time.time()
        try:
            return orig_run_evaluation(backend, *args, **kwargs)
        finally:
            acc.update(eval_start=t0, eval_end=time.time(),
                       forward=getattr(backend, "stats", {}).get("forward_seconds", 0.0) - forward0)

    orig_chunk_store = services._chunk_store

    def chunk_store(run, after_chunk=None):
        spent = [0.0]

        def timed_after():
            t = time.perf_counter()
            try:
                after_chunk()
            finally:
                spent[0] += time.perf_counter() - t

        inner = orig_chunk_store(run, timed_after if after_chunk is not None else None)

        def on_chunk(index, rows):
            spent[0] = 0.0
            t = time.perf_counter()
            try:
                inner(index, rows)
            finally:
                acc["persist"] += time.perf_counter() - t - spent[0]  # the bulk_create, without the heartbeat
                acc["heartbeat"] += spent[0]
                acc["chunks"] += 1
        return on_chunk

    orig_run_score = scoring.run_score

    def run_score(*, run):
        t0 = time.time()
        try:
            return orig_run_score(run=run)
        finally:
            _emit(kind="score", run=run.pk, score_start=t0, score_end=time.time())

    runner.predict = predict
    # The deployed task predicts in a child process, out of reach of these timers: predict in the
    # task's own process instead (the solo pool's main process may start children; transformers needs none).
    runner._predict_in_child = lambda run: (runner.predict_claimed(run_id=run.pk, attempt=run.attempts), False)
    runner.create_backend = create_backend
    services.run_predict = spanned(services.run_predict, "run_predict")
    services.run_evaluation = run_evaluation
    services._chunk_store = chunk_store
    services.measure_efficiency = spanned(services.measure_efficiency, "efficiency")  # the name run_predict calls
    scoring.run_score = run_score


def worker_main(queues: str, name: str):
    import django

    django.setup()
    _instrument_worker()
    from leaderboard.celery import app

    app.worker_main(["worker", "-Q", queues, "-c", "1", "--pool", "solo", "--without-gossip", "--without-mingle",
                     "--without-heartbeat", "--loglevel", "INFO", "-n", f"{name}@%h"])


def start_worker(env, queues, name):
    from tests.support.worker import WorkerProcess

    class BenchWorker(WorkerProcess):
        def __init__(self):  # WorkerProcess, started through worker_main (the timers) instead of `celery`
            self.lines = []
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker", queues, "--worker-name", name],
                cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()

    return BenchWorker()


# --- part 1: submit -> finished ----------------------------------------------------------------

def import_real_shaped_bank(tmp: Path) -> str:
    """The demo bank's sizes (dev 240, validation 480, sealed test 480 over the 80 fields) with the published files'
    lengths (bench/real_shapes.py), written in the hub layout with answer keys and imported by the real importer."""
    import csv

    from bench.real_shapes import real_shaped_questions
    from leaderboard.benchmarks.demo import DEMO_BENCHMARK
    from leaderboard.benchmarks.models import SEALED_SPLITS, Split
    from leaderboard.benchmarks.services import benchmark_import

    for i, (split, n) in enumerate(((Split.DEV, 240), (Split.VALIDATION, 480), (Split.TEST, 480))):
        folder, by_field = tmp / "bank" / split, {}
        folder.mkdir(parents=True)
        questions = real_shaped_questions(n, seed=100 + i, prefix=f"bench-{split}")
        for q in questions:
            by_field.setdefault(q.topic, []).append(q)
        for field, rows in by_field.items():
            with open(folder / f"{field}.csv", "w", newline="", encoding="utf-8") as fh:
                out = csv.writer(fh)
                out.writerow(["question_id", "Question", "A", "B", "C", "D"])
                out.writerows([q.question_id, q.question, *q.options] for q in rows)
        answers = tmp / "bank" / f"{split}-answers.csv"
        with open(answers, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(["question_id", "answer"])
            out.writerows([q.question_id, "".join(sorted(q.answer))] for q in questions)
        benchmark_import(benchmark_slug=DEMO_BENCHMARK, split=split, path=folder, answers_path=answers,
                         sealed=split in SEALED_SPLITS)
    return "real-shaped bank (bench/real_shapes.py): dev 240, validation 480, sealed test 480"


def prompt_sizes_of(run, model_dir: Path) -> tuple[float, float]:
    """Mean characters and tokens of the prompts this run scored (its template and shots; original order), with
    the model's tokenizer."""
    from transformers import AutoTokenizer

    from bench.real_shapes import prompt_sizes
    from evaluator.prompts import render_questions
    from leaderboard.evaluations.selectors import engine_questions

    dev = engine_questions(version=run.benchmark_version, split="dev") if run.shots else None
    prompts = render_questions(engine_questions(version=run.benchmark_version, split=run.split), template=run.template,
                               shots=run.shots, dev_questions=dev)
    tok = AutoTokenizer.from_pretrained(str(model_dir))
    return prompt_sizes(prompts, lambda p: len(tok.encode(p)))


def locate_model(name: str, tmp: Path) -> tuple[Path, str]:
    from leaderboard.benchmarks.demo import demo_models_dir
    from leaderboard.demo.seed import demo_models_build

    built = demo_models_dir() / name
    if (built / "config.json").exists():
        return built, f"{built} (already built)"
    t0 = time.perf_counter()
    if name == "tiny-random":  # no training: just demo_models_build's tokenizer and tiny-random steps
        from evaluator.demo_models import build_demo_spm_tokenizer, build_tiny_random
        from leaderboard.benchmarks import selectors
        from leaderboard.evaluations.selectors import engine_questions

        version = selectors.version_current(benchmark=selectors.benchmark_get(slug="mobile-mmlu"))
        public = engine_questions(version=version, split="dev") + engine_questions(version=version, split="validation")
        texts = [q.question for q in public] + [o for q in public for o in q.options]
        path = build_tiny_random(tmp / "demo-models" / name,
                                 build_demo_spm_tokenizer(texts, tmp / "demo-models" / "tokenizer"), seed=0)
    else:  # trains tiny-val-memorizer (about 30 s on 2 idle cores); ./dev.sh serve keeps it in var/demo
        path = demo_models_build(out_dir=tmp / "demo-models")[name]
    return path, f"built into a temporary folder in {time.perf_counter() - t0:.1f} s ({built} not built)"


def worker_env(database_url: str, torch_threads: int):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings.test", "DATABASE_URL": database_url,
           "CELERY_BROKER_URL": BROKER, "PYTHONUNBUFFERED": "1"}
    if torch_threads:
        env["OMP_NUM_THREADS"] = str(torch_threads)  # torch's intra-op threads
    return env


def wait_ready(workers, timeout=120):
    for worker in workers:
        if not worker.wait_for(" ready.", timeout=timeout):
            raise SystemExit(f"a worker did not start:\n{worker.log[-3000:]}")


def parse_marks(workers):
    predict, score = {}, {}
    for worker in workers:
        for line in worker.lines:
            if line.startswith(MARK):
                record = json.loads(line[len(MARK):])
                (predict if record["kind"] == "predict" else score)[record["run"]] = record
    return predict, score


def pipeline(args, tmp: Path):
    from django.conf import settings
    from django.contrib.auth.models import User

    from leaderboard.benchmarks.demo import demo_import
    from leaderboard.evaluations import services
    from leaderboard.evaluations.models import TERMINAL_STATUSES, EvaluationRun, PredictionChunk, RunStatus
    from leaderboard.hub.ids import model_ref
    from leaderboard.submissions.services import submission_create
    from tests.support.fake_hub import fake_hub_session, files_from_folder
    from tests.support.lifecycle import database_url

    t0 = time.perf_counter()
    if args.bank == "demo":
        demo_import()
        bank = "demo question bank"
    else:
        bank = import_real_shaped_bank(tmp)
    print(f"{bank} imported in {time.perf_counter() - t0:.1f} s")
    model_dir, how = locate_model(args.model, tmp)
    print(f"model {args.model}: {how}")
    if args.variants:
        settings.SUBMISSION_VALIDATION_VARIANTS = args.variants.split(",")

    import redis

    broker = redis.Redis.from_url(BROKER)
    broker.flushdb()
    hub_id = f"{HUB_ID_PREFIX}/{args.model}"
    with fake_hub_session(tmp / "hf-home") as hub:
        files = files_from_folder(model_dir)
        files["README.md"] = b"---\nlicense: apache-2.0\n---\n# demo model\n"
        hub.add_repo(hub_id, repo_type="model", files=files, license="apache-2.0")
        env = worker_env(database_url(), args.torch_threads)
        if args.single_worker:
            workers = [start_worker(env, "gpu,default", "bench")]
        else:
            workers = [start_worker(env, "gpu", "gpu"), start_worker(env, "default", "default")]
        try:
            wait_ready(workers)
            user = User.objects.create_user("bench", "bench@example.com", "pw")
            submit_start = time.time()
            submission = submission_create(user=user, ref=model_ref(hub_id))
            submit_end = time.time()
            deadline = time.monotonic() + args.timeout
            while time.monotonic() < deadline:
                statuses = list(EvaluationRun.objects.filter(submission=submission).values_list("status", flat=True))
                if statuses and all(status in TERMINAL_STATUSES for status in statuses):
                    break
                time.sleep(0.1)
            else:
                logs = "\n".join(w.log[-3000:] for w in workers)
                raise SystemExit(f"runs not finished after {args.timeout} s:\n{logs}")
            time.sleep(0.5)  # the last timer lines
        finally:
            for worker in workers:
                worker.stop()
            broker.flushdb()
    runs = list(EvaluationRun.objects.filter(submission=submission).order_by("pk"))
    failed = [r for r in runs if r.status != RunStatus.SUCCEEDED]
    if failed:
        logs = "\n".join(w.log[-3000:] for w in workers)
        raise SystemExit(f"runs failed: {[(r.split, r.failure_reason) for r in failed]}\n{logs}")
    predict, score = parse_marks(workers)

    cols = []
    for run in runs:
        p, s = predict.get(run.pk), score.get(run.pk)
        if p is None or s is None:
            raise SystemExit(f"no timer lines for run {run.pk}:\n" + "\n".join(w.log[-3000:] for w in workers))
        enq, started, finished = (d.timestamp() for d in (run.enqueued_at, run.started_at, run.finished_at))
        n_chunks = PredictionChunk.objects.filter(run=run).count()
        eval_total = p["eval_end"] - p["eval_start"]
        inference = eval_total - p["persist"] - p["heartbeat"] - p["progress"]
        accounted_predict = ((p["load_end"] - p["load_start"]) + eval_total
                             + (p["efficiency_end"] - p["efficiency_start"]))
        cols.append({
            "run": f"{run.split} ({len(run.variants)} var.)",
            "items": run.progress_total,
            "chunks": n_chunks,
            "queue": started - enq,
            "load": p["load_end"] - p["load_start"],
            "load_seconds": p["load_seconds"] or 0.0,
            "inference": inference,
            "forward": p["forward"],
            "persist": p["persist"],
            "heartbeat": p["heartbeat"] + p["progress"],
            "efficiency": p["efficiency_end"] - p["efficiency_start"],
            "other_predict": (p["task_end"] - p["task_start"]) - accounted_predict,
            "handoff": s["score_start"] - p["task_end"],
            "scoring": s["score_end"] - s["score_start"],
            "total": finished - enq,
            "accuracy": run.summary["overall"]["accuracy"],
            "rows_per_s": run.progress_total / inference if inference > 0 else float("nan"),
        })
        cols[-1]["prompt_chars"], cols[-1]["prompt_tokens"] = prompt_sizes_of(run, model_dir)

    layout = "one worker, queues gpu+default" if args.single_worker else "gpu worker + default worker"
    threads = args.torch_threads or os.environ.get("OMP_NUM_THREADS") or f"torch default ({os.cpu_count()})"
    print(f"\nsubmit -> finished: {hub_id} on the fake hub, {layout}, solo pool, chunk size "
          f"{settings.RUN_CHUNK_SIZE or services.DEFAULT_CHUNK_SIZE}, batch size {settings.RUN_BATCH_SIZE}, device {settings.RUN_DEVICE}, "
          f"torch threads {threads}")
    print(f"submission_create (hub checks, rows, enqueue on commit): {submit_end - submit_start:.2f} s")
    width = 54
    print(f"{'phase (seconds)':<{width}}" + "".join(f"{c['run']:>22}" for c in cols))

    def row(label, key, fmt="{:.2f}"):
        print(f"{label:<{width}}" + "".join(f"{fmt.format(c[key]):>22}" for c in cols))

    row("(question, variant) items / chunks", "items", "{:,}")
    row("mean prompt characters", "prompt_chars", "{:,.0f}")
    row("mean prompt tokens", "prompt_tokens", "{:,.0f}")
    row("time in queue (enqueued_at -> claimed)", "queue")
    row("model load (create_backend: imports, download, load)", "load")
    row("  of which from_pretrained (backend load_seconds)", "load_seconds")
    row("inference (prompts + forward passes + decisions)", "inference")
    row("  of which forward passes (backend stats)", "forward")
    row("persisting (PredictionChunk bulk_create)", "persist")
    row("heartbeats + progress updates", "heartbeat")
    row("efficiency sample (32 prompts, batch-1 + batched)", "efficiency")
    row("other predict work (claim, questions, plan, update)", "other_predict")
    row("hand-off to scoring (predict end -> score start)", "handoff")
    row("scoring (run_score: key, rescore, summary)", "scoring")
    row("total (enqueued_at -> finished_at)", "total")
    row("inference rows/s", "rows_per_s", "{:,.0f}")
    row("accuracy (original variant)", "accuracy", "{:.3f}")
    for c in cols:
        phases = sum(c[k] for k in ("queue", "load", "inference", "persist", "heartbeat", "efficiency",
                                    "other_predict", "handoff", "scoring"))
        c["unaccounted"] = c["total"] - phases
    row("unaccounted (Celery dispatch, clocks)", "unaccounted")
    for c in cols:
        share = c["persist"] / (c["persist"] + c["inference"]) if c["persist"] + c["inference"] else 0
        print(f"{c['run']}: persisting is {share:.1%} of inference + persisting "
              f"({c['chunks']} chunks, {c['persist'] / max(1, c['chunks']) * 1000:.1f} ms per chunk)")
    print("time in queue of the test run includes the validation run ahead of it on the one gpu worker.")


# --- part 2: persisting 16,186 x 9 predictions --------------------------------------------------

def realistic_rows(seed=7):
    """Rows exactly as the engine writes them in logprobs mode: real variant views, random letter log-probs."""
    from evaluator.questions import Question
    from evaluator.scoring import decide_letters, is_correct
    from evaluator.variants import VARIANTS, make_view
    from leaderboard.benchmarks.taxonomy import read_taxonomy

    rng = random.Random(seed)
    rows = []
    for topic in read_taxonomy():
        field = topic["likely_hub_field"]
        for i in range(int(topic["population"])):
            answer = frozenset(rng.sample("ABCD", 2) if rng.random() < 0.058 else rng.choice("ABCD"))
            question = Question(f"{field}-{i:05d}", "", ("a", "b", "c", "d"), answer, field)
            for variant in VARIANTS:
                view = make_view(question, variant, 0)
                logprobs = {L: math.log(rng.random() * 0.3 + 1e-6) for L in view.letters}
                d = decide_letters(logprobs, view.letters)
                rows.append({"question_id": view.question_id, "variant": variant, "topic": field,
                             "seed": view.seed, "perm": list(view.perm), "predicted": d.predicted,
                             "predicted_original": view.original_letter(d.predicted),
                             "letter_probs": d.letter_probs, "letter_mass": d.letter_mass, "tie": d.tie,
                             "correct": is_correct(d.predicted, view.answer)})
    return rows


def naive_model():
    """A per-row prediction table, as a first draft would have it (defined here only; no migration)."""
    from django.db import models

    class NaivePrediction(models.Model):
        run = models.ForeignKey("evaluations.EvaluationRun", on_delete=models.CASCADE, related_name="+")
        question_id = models.CharField(max_length=200)
        variant = models.CharField(max_length=20)
        topic = models.CharField(max_length=200)
        seed = models.DecimalField(max_digits=20, decimal_places=0, null=True)  # sha256-derived: up to 2**64
        perm = models.JSONField()
        predicted = models.CharField(max_length=1, null=True)
        predicted_original = models.CharField(max_length=1, null=True)
        letter_probs = models.JSONField()
        letter_mass = models.FloatField(null=True)
        tie = models.BooleanField(default=False)
        correct = models.BooleanField(null=True)

        class Meta:
            app_label = "evaluations"
            db_table = "bench_naive_prediction"
            constraints = [models.UniqueConstraint(fields=["run", "question_id", "variant"],
                                                   name="bench_naive_unique_row")]

    return NaivePrediction


def persistence(args):
    from django.db import connection

    from leaderboard.benchmarks.models import BenchmarkVersion
    from leaderboard.evaluations import selectors, services
    from leaderboard.evaluations.models import PredictionChunk

    t0 = time.perf_counter()
    rows = realistic_rows()
    total = len(rows)
    print(f"\npersisting predictions: {total:,} rows ({total // 9:,} questions x 9 variants, "
          f"{len(json.dumps(rows[:256])) / 256:.0f} bytes of JSON per row) generated in "
          f"{time.perf_counter() - t0:.1f} s")
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    chunk = services.DEFAULT_CHUNK_SIZE

    def new_run():
        return services.run_create(version=version, split="validation", model_ref="bench/persistence",
                                   variants=["all"])

    # Ours: the app's chunk store, one bulk_create(ignore_conflicts) per chunk of 256, autocommit.
    run = new_run()
    on_chunk = services._chunk_store(run)
    t0 = time.perf_counter()
    for index in range(0, (total + chunk - 1) // chunk):
        on_chunk(index, rows[index * chunk:(index + 1) * chunk])
    ours = time.perf_counter() - t0
    stored = PredictionChunk.objects.filter(run=run).count()
    assert selectors.run_rows(run=run) == rows, "the chunks did not read back as written"

    naive_n = total if args.naive_rows <= 0 else min(args.naive_rows, total)
    Naive = naive_model()
    with connection.schema_editor() as editor:
        editor.create_model(Naive)
    try:
        # Naive: one INSERT (and one commit) per prediction.
        naive_run = new_run()
        sample = rows[:naive_n]
        t0 = time.perf_counter()
        for r in sample:
            Naive.objects.create(run=naive_run, **r)
        naive = time.perf_counter() - t0
        assert Naive.objects.filter(run=naive_run).count() == naive_n
        # For reference: the same per-row table written in batches (bulk_create of 256 rows, one commit each).
        batched_run = new_run()
        t0 = time.perf_counter()
        for start in range(0, naive_n, chunk):
            Naive.objects.bulk_create([Naive(run=batched_run, **r) for r in rows[start:start + chunk]],
                                      ignore_conflicts=True)
        batched = time.perf_counter() - t0
    finally:
        with connection.schema_editor() as editor:
            editor.delete_model(Naive)

    ours_rate, naive_rate, batched_rate = total / ours, naive_n / naive, naive_n / batched
    note = ("all rows" if naive_n == total
            else f"first {naive_n:,} rows only (a fixed sample, for time; --naive-rows 0 for all)")
    print(f"{'method':<58}{'rows':>10}{'seconds':>10}{'rows/s':>12}")
    print(f"{'PredictionChunk, 256 rows/chunk, bulk_create (ours)':<58}{total:>10,}{ours:>10.2f}{ours_rate:>12,.0f}")
    print(f"{'per-row table, ORM create() per row, autocommit (naive)':<58}{naive_n:>10,}{naive:>10.2f}"
          f"{naive_rate:>12,.0f}")
    print(f"{'per-row table, bulk_create 256 rows (reference)':<58}{naive_n:>10,}{batched:>10.2f}"
          f"{batched_rate:>12,.0f}")
    print(f"naive and per-row bulk_create timed on {note}; at the naive rate all {total:,} rows take "
          f"{total / naive_rate:.0f} s (ours: {ours:.1f} s for all, {stored} chunks, read back identical)")
    print(f"ratio ours / naive (rows/s): {ours_rate / naive_rate:.1f}x  (aim: >= 10x)")
    print(f"ratio ours / per-row bulk_create (rows/s): {ours_rate / batched_rate:.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", default="real-shapes", choices=("real-shapes", "demo"),
                        help="questions: the demo bank's sizes with the published files' lengths (default), or the "
                        "demo bank itself (short questions: about 66 tokens per prompt)")
    parser.add_argument("--model", choices=("tiny-val-memorizer", "tiny-random"),
                        help="default: tiny-random on the real-shaped bank, tiny-val-memorizer (trained on the demo "
                        "bank's validation answers) on the demo bank")
    parser.add_argument("--variants", default="", help="validation variants of the submission (default: the "
                        "settings' SUBMISSION_VALIDATION_VARIANTS, i.e. all 9)")
    parser.add_argument("--single-worker", action="store_true", help="one worker on gpu+default (as dev.sh)")
    parser.add_argument("--torch-threads", type=int, default=0, help="OMP_NUM_THREADS for the workers (default: "
                        "unset, torch uses every core; on a busy 2-core machine 1 is far steadier)")
    parser.add_argument("--naive-rows", type=int, default=10_000, help="rows for the naive loop (0 = all)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds to wait for the runs")
    parser.add_argument("--skip-pipeline", action="store_true")
    parser.add_argument("--skip-persistence", action="store_true")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-name", default="bench", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker_main(args.worker, args.worker_name)
    args.model = args.model or ("tiny-random" if args.bank == "real-shapes" else "tiny-val-memorizer")
    if args.bank == "real-shapes" and args.model != "tiny-random":
        parser.error("the real-shaped bank runs tiny-random (tiny-val-memorizer is trained on the demo bank)")

    # Before django.setup(): this process publishes to the bench's Redis database, not the tests'.
    os.environ["CELERY_BROKER_URL"] = BROKER
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the workers and drop the database
    load = os.getloadavg()[0]
    print(f"{os.cpu_count()} CPUs, load average {load:.2f} at start"
          + ("  (other work is running: timings will be noisy, torch most of all)" if load > 0.7 else ""))
    from bench._django import bench_database

    if args.torch_threads:  # also for a demo model built here
        os.environ["OMP_NUM_THREADS"] = str(args.torch_threads)

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, bench_database(DB_NAME):
        if not args.skip_pipeline:
            pipeline(args, Path(tmp))
        if not args.skip_persistence:
            if args.skip_pipeline:
                from leaderboard.benchmarks.demo import demo_import

                demo_import()  # the benchmark version the runs belong to; the rows are generated
            persistence(args)
    print(f"\nbench finished in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
