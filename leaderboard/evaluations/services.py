"""Writes for evaluation runs: create, claim, predict (GPU side), score (trusted side), fail.

Predicting never needs a sealed answer; scoring reads answers from the database
(decrypting the sealed split) and recomputes correctness from each row's
predicted letter in the original option order. The same path serves the open
splits, so open and sealed results are computed identically.
"""
import platform
from importlib import metadata

from django.conf import settings
from django.utils import timezone

from evaluator.efficiency import fixed_sample, measure_efficiency
from evaluator.engine import EvaluationPlan, plan_evaluation, rescore_rows, run_evaluation
from evaluator.metrics import summarize
from evaluator.probe import MAX_NEW_TOKENS as PROBE_MAX_NEW_TOKENS
from evaluator.probe import probe_counts, run_probe
from evaluator.prompts import get_template, template_hash
from evaluator.protocols import ProtocolError, apply_guesses, get_protocol
from evaluator.questions import Question
from evaluator.variants import parse_variants

from leaderboard.benchmarks.models import SEALED_SPLITS, BenchmarkVersion, Split
from leaderboard.benchmarks.shots import SHOTS_OUT_OF_RANGE, shots_problem
from leaderboard.core.errors import DomainError
from leaderboard.core.text import pg_json

from . import selectors
from .failures import classify, log_excerpt
from .lifecycle import run_claim_for_worker
from .lifecycle import run_fail as lifecycle_fail
from .models import EvaluationRun, PredictionChunk, RunStatus

# Variants that need the answer to build (the correct option moved to a letter). Shown
# to a model on the sealed split, the four of them would reveal which option is right.
ANSWER_DEPENDENT_VARIANTS = frozenset({"fixed-A", "fixed-B", "fixed-C", "fixed-D"})
DEFAULT_CHUNK_SIZE = 256
CHUNK_SIZES = {"vllm": 2048}  # per backend, where RUN_CHUNK_SIZE leaves it to the backend
GENERATE_TOKENS = 32  # generation mode's max_new_tokens (run_evaluation's default)
LIBRARIES = ("torch", "transformers", "tokenizers", "vllm", "Django")


def chunk_size_for(backend_name: str, configured: int = 0) -> int:
    return configured or CHUNK_SIZES.get(backend_name, DEFAULT_CHUNK_SIZE)


class RunConfigError(DomainError, ValueError):
    """A run that cannot be created as asked: RunConfigError(code, message, hint)."""


def library_versions():
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def run_create(*, version: BenchmarkVersion, split: str, model_ref: str, model_revision: str = "",
               backend: str = "transformers", precision: str = "auto", template: str = "default", shots: int = 0,
               variants=("original",), seed: int = 0, mode: str = "logprobs",
               use_chat_template: bool = False, submission=None, probe: bool = False,
               chunk_size: int = 0, rerun_of: EvaluationRun | None = None, protocol: str = "",
               model_files=(), gguf_recipe=None) -> EvaluationRun:
    """The one way a run is made (first runs, re-runs, `manage.py evaluate`): its settings checked and its plan
    fixed (chunk size, fingerprint, progress total) before the row is stored. `protocol`: a publisher's own
    protocol (evaluator/protocols.py), which sets template, shots and mode itself (_protocol_settings).
    `gguf_recipe`: {quant, source} of a GGUF file the worker makes from the `source` checkpoint (gguf_make.py)."""
    try:
        variants = list(parse_variants(variants))
        if not protocol:
            get_template(template)
    except (ValueError, KeyError) as exc:
        raise RunConfigError("UNKNOWN_VARIANT_OR_TEMPLATE", str(exc).strip("'\"")) from None
    if protocol:
        template, shots, mode = _protocol_settings(protocol, version=version, variants=variants, backend=backend)
    if split not in version.split_hashes:
        raise RunConfigError("SPLIT_NOT_IMPORTED",
                             f"{version} has no {split} split imported; import it first (import_benchmark).")
    if split in SEALED_SPLITS and gguf_recipe:
        raise RunConfigError("MADE_VARIANT_SEALED", "a GGUF file this server makes is evaluated on the open split only "
                             "(the sealed figure is its 16-bit model's)", "run it on the validation split")
    if split in SEALED_SPLITS and ANSWER_DEPENDENT_VARIANTS.intersection(variants):
        raise RunConfigError("SEALED_VARIANTS", "fixed-A..fixed-D variants would reveal sealed answers to the model; "
                             "on the test split use original and R1..R4 only.")
    if problem := shots_problem(shots):
        raise RunConfigError(SHOTS_OUT_OF_RANGE, f"{problem}.", "use --shots 0 (zero-shot) or a small number")
    if shots and Split.DEV not in version.split_hashes:
        raise RunConfigError("NO_DEV_SPLIT", f"{shots}-shot needs the dev split for exemplars; import it or use "
                             "--shots 0.")
    run = EvaluationRun(
        submission=submission, rerun_of=rerun_of, benchmark_version=version, split=split, model_ref=model_ref,
        model_revision=model_revision, model_files=list(model_files), gguf_recipe=dict(gguf_recipe or {}),
        backend=backend, precision=precision, template=template,
        template_hash=get_protocol(protocol).hash if protocol else template_hash(template), protocol=protocol,
        shots=shots, variants=variants, seed=seed, mode=mode, use_chat_template=use_chat_template,
        dataset_hash=version.split_hashes[split], library_versions=library_versions(),
        probe=probe and split not in SEALED_SPLITS,  # open splits only (EvaluationRun.probed)
        chunk_size=chunk_size or chunk_size_for(backend, settings.RUN_CHUNK_SIZE),
    )
    # The plan is fixed now: every attempt computes these chunks, whatever the worker's settings say.
    try:
        plan = _plan(run, *selectors.run_engine_inputs(run=run))
    except ProtocolError as exc:  # a category without worked exemplars in the dev split
        raise RunConfigError(exc.code, f"{exc}.", "import the benchmark's dev split with its cot_content, or run "
                                                  "without --protocol") from None
    run.plan_fingerprint, run.progress_total = plan.fingerprint, len(plan.items)
    run.save()
    return run


def _protocol_settings(protocol: str, *, version: BenchmarkVersion, variants: list[str],
                       backend: str) -> tuple[str, int, str]:
    """(template, shots, mode) of a protocol run: its name, its shots, generation. Refused: an unknown protocol,
    answer orders the protocol does not define, no dev split to take exemplars from, and a backend other than
    vLLM where the deployment runs vLLM (RUN_BACKEND): 2,048-token chains of thought are a vLLM job."""
    try:
        proto = get_protocol(protocol)
    except ProtocolError as exc:
        raise RunConfigError(exc.code, f"{exc}.", "leave --protocol out for the leaderboard's own settings") from None
    if variants != ["original"]:
        raise RunConfigError("PROTOCOL_VARIANTS", f"{protocol} scores the published option order only.",
                             "use --variants original")
    if Split.DEV not in version.split_hashes:
        raise RunConfigError("NO_DEV_SPLIT", f"{protocol} takes its exemplars from the dev split; import it first.")
    if settings.RUN_BACKEND == "vllm" and backend != "vllm":
        raise RunConfigError("PROTOCOL_BACKEND", f"{protocol} runs on vLLM in this deployment (RUN_BACKEND).",
                             "use --backend vllm")
    return proto.name, proto.shots, "generate"


def _plan(run: EvaluationRun, questions: list[Question], dev: list[Question] | None) -> EvaluationPlan:
    return plan_evaluation(
        questions, variants=run.variants, seed=run.seed, chunk_size=run.chunk_size, template=run.template,
        shots=run.shots, mode=run.mode, use_chat_template=run.use_chat_template, dev_questions=dev,
        protocol=run.protocol or None)


def max_new_tokens(run: EvaluationRun) -> int:
    """Tokens a run generates after a prompt: 1 to score letters; generation mode, a protocol and the probe reply
    at length."""
    answer = get_protocol(run.protocol).max_new_tokens if run.protocol else (
        GENERATE_TOKENS if run.mode == "generate" else 1)
    return max(answer, PROBE_MAX_NEW_TOKENS if run.probed else 1)


def run_claim(*, run: EvaluationRun) -> bool:
    """queued → running, by a conditional UPDATE: exactly one worker wins."""
    claimed = run_claim_for_worker(run_id=run.pk) is not None
    run.refresh_from_db()
    return claimed


def _chunk_store(run: EvaluationRun, after_chunk=None):
    def on_chunk(index, rows):
        # Insert-or-ignore: a chunk re-sent after a crash is the same bits, written once.
        PredictionChunk.objects.bulk_create(  # generated text may hold NUL, which PostgreSQL refuses
            [PredictionChunk(run=run, index=index, rows=pg_json(rows), fingerprint=run.plan_fingerprint)],
            ignore_conflicts=True)
        if after_chunk is not None:
            after_chunk()
    return on_chunk


def run_predict(*, run: EvaluationRun, backend, progress=None, measure=True, on_progress_chunk=None, inputs=None,
                ondevice=None):
    """Score every (question, variant) with `backend` under the run's stored plan, persisting chunks;
    resumes from stored chunks of that plan and refuses chunks of any other (PlanMismatch).

    The plan is made once here (its size is the progress total) and handed to the engine. The returned result's
    rows are the run's predictions; its summary is left unmade: run_summarize scores on the trusted side.
    `inputs`: the run's (questions, dev exemplars) when the caller has read them already (load_backend did).
    `ondevice`: a GGUF run's cost profile, measured after predicting (a callable: runner.ondevice_profiler);
    stored as efficiency["ondevice"]."""
    questions, dev = inputs or selectors.run_engine_inputs(run=run)
    plan = _plan(run, questions, dev)
    done = selectors.run_chunks_of_plan(run=run)

    def report(done, total):
        EvaluationRun.objects.filter(pk=run.pk).update(progress_done=done)
        if progress:
            progress(done, total)

    result = run_evaluation(
        backend, questions, template=run.template, shots=run.shots, dev_questions=dev, variants=run.variants,
        seed=run.seed, chunk_size=run.chunk_size, done_chunks=done,
        on_chunk=_chunk_store(run, on_progress_chunk), progress=report, mode=run.mode,
        use_chat_template=run.use_chat_template, max_new_tokens=None if run.protocol else GENERATE_TOKENS,
        expected_fingerprint=run.plan_fingerprint or None, plan=plan, protocol=run.protocol or None,
    )
    card = backend.describe()  # before the probe: its decoding rule is the predictions' (a protocol's own)
    if measure:
        sample = fixed_sample(questions, key=lambda q: q.question_id)
        tmpl = get_template("default" if run.protocol else run.template)  # efficiency: one letter-scoring pass
        prompts = [tmpl.render(q.question, q.options) for q in sample]
        run.efficiency = measure_efficiency(backend, prompts, use_chat_template=run.use_chat_template)
    if measure and ondevice is not None:
        run.efficiency = {**(run.efficiency or {}), "ondevice": ondevice()}
    if run.probed:  # generation is slow: keep the lease alive as in the predicting loop
        beat = (lambda done, total: on_progress_chunk()) if on_progress_chunk else None
        run.probe_rows = run_probe(backend, questions, seed=run.seed, use_chat_template=run.use_chat_template,
                                   progress=beat)
    run.hardware = pg_json({"backend": card, "machine": platform.machine(), "node": platform.node()})
    # Conditional: a run cancelled meanwhile stays cancelled.
    EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).update(
        efficiency=run.efficiency, hardware=run.hardware, probe_rows=run.probe_rows, status=RunStatus.SCORING)
    run.refresh_from_db()
    return result


def run_summarize(*, run: EvaluationRun) -> list[dict] | None:
    """Trusted side: correctness from the stored answer key, then the run's summary; SCORING → SUCCEEDED.

    Returns the scored rows when this call finished the run (leaderboard.scoring publishes them), None when the
    run was not SCORING (scored twice by a repeated message, or cancelled): then nothing changes."""
    key = selectors.answer_key(version=run.benchmark_version, split=run.split)
    rows = rescore_rows(selectors.run_rows(run=run), key)
    if run.protocol:  # mmlu-pro-cot-guess: unread answers get the publisher's seeded guess (rows in plan order)
        questions = selectors.engine_questions(version=run.benchmark_version, split=run.split)
        rows = apply_guesses(get_protocol(run.protocol), rows, questions, key)
    summary = summarize(rows, run.variants)  # stored whole; pages apply the sealed display rules
    if run.probed and run.probe_rows:
        summary["probe"] = probe_counts(run.probe_rows, key)
    scored = EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.SCORING).update(
        summary=summary, status=RunStatus.SUCCEEDED, finished_at=timezone.now(), lease_expires_at=None)
    run.refresh_from_db()
    return rows if scored else None


def run_fail(*, run: EvaluationRun, exc: BaseException, during_load: bool) -> EvaluationRun:
    """A synchronous run (manage.py evaluate) that failed: no retry, the reason recorded."""
    code = classify(exc, during_load=during_load)
    lifecycle_fail(run=run, code=code, reason=f"{code}: {type(exc).__name__}",
                   excerpt=log_excerpt(exc, sealed=run.split in SEALED_SPLITS))
    run.refresh_from_db()
    return run
