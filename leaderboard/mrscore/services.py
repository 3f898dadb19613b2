"""Writes for MRScore: create a job, claim it, judge in resumable chunks, finalise the aggregates.

The same functions serve the `mrscore` command (in-process, with a progress bar)
and the Celery task (GPU queue for a local judge, default queue for an HTTP one).
"""
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from celery import current_app
from django.conf import settings as django_settings
from django.db import transaction
from django.db.models import F, Q
from django.db.models.functions import Coalesce, Now
from django.utils import timezone

from evaluator.judges import JUDGE_KINDS, PROMPT_VERSION, create_judge, plan_hash, prompt_hash, run_judging
from evaluator.judges.http import chat_completions_url, endpoint_is_private

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS, Split
from leaderboard.core import leases
from leaderboard.core.errors import DomainError

from . import aggregates, selectors
from .models import JobStatus, JudgeKind, MRScoreChunk, MRScoreJob, QuestionMRScore, TopicMRScore

DEFAULT_CHUNK_SIZE = 64
# Judge jobs are leased like evaluation runs (ARCHITECTURE §8), with a lease renewed after each judged chunk.
JUDGE_TASK = "mrscore.judge"  # leaderboard.mrscore.tasks.judge_job, sent by name: that module imports this one
JOBS = leases.Leased(MRScoreJob, lease_setting="MRSCORE_LEASE_SECONDS")
LOCAL_SETTINGS = ("backend", "device", "dtype", "batch_size", "mode", "chat_template", "seed")
HTTP_SETTINGS = ("api_key_env", "logprobs", "top_logprobs", "concurrency", "timeout", "max_retries", "max_tokens")


class MRScoreConfigError(DomainError, ValueError):
    """A job that cannot be created as asked: MRScoreConfigError(code, message, hint)."""


class JobCancelled(Exception):
    pass


class JobStateError(DomainError, RuntimeError):
    """The job's data no longer matches its plan (changed prompt, questions or chunks): JobStateError(code, message)."""

    status = 409


@dataclass(frozen=True)
class JudgeSpec:
    kind: str
    model: str
    revision: str = ""
    endpoint: str = ""  # http only
    settings: dict = field(default_factory=dict)
    is_demo: bool = False


def _folder_fingerprint(path: Path) -> str:
    """A content-derived revision for a local model folder: config plus the weights' sizes and first MiB."""
    digest = hashlib.sha256()
    for name in sorted(p.name for p in path.iterdir() if p.suffix in (".json", ".safetensors")):
        file = path / name
        digest.update(name.encode() + str(file.stat().st_size).encode())
        with open(file, "rb") as handle:
            digest.update(handle.read(1 << 20))
    return "local-sha256:" + digest.hexdigest()[:16]


def judge_spec_from_options(*, model: str, endpoint: str = "", revision: str = "", demo: bool | None = None,
                            **options) -> JudgeSpec:
    """A JudgeSpec from the command's options: an endpoint means the HTTP judge, else a local model."""
    if endpoint:
        chat_completions_url(endpoint)  # validates
        kept = {k: options[k] for k in HTTP_SETTINGS if options.get(k) is not None}
        return JudgeSpec(JudgeKind.HTTP, model, revision, endpoint, kept, bool(demo))
    kept = {k: options[k] for k in LOCAL_SETTINGS if options.get(k) is not None}
    kept.setdefault("backend", "transformers")
    folder = Path(model)
    is_demo = bool(demo) if demo is not None else (folder / "demo_model.json").exists()
    if not revision and folder.is_dir():
        revision = _folder_fingerprint(folder)
    return JudgeSpec(JudgeKind.LOCAL, model, revision, kept["backend"], kept, is_demo)


def _splits_for(version, spec: JudgeSpec, splits, include_sealed: bool) -> list[str]:
    imported = [s.value for s in selectors.SPLIT_ORDER if s in version.split_hashes]
    if splits:
        unknown = [s for s in splits if s not in Split.values]
        if unknown:
            raise MRScoreConfigError("UNKNOWN_SPLIT",
                                     f"unknown split(s) {', '.join(unknown)}; use dev, validation, test")
        missing = [s for s in splits if s not in imported]
        if missing:
            raise MRScoreConfigError("SPLIT_NOT_IMPORTED", f"{version} has no {', '.join(missing)} split imported")
        chosen = [s for s in imported if s in splits]
    else:
        chosen = imported
    remote = spec.kind == JudgeKind.HTTP and not endpoint_is_private(spec.endpoint)
    sealed = [s for s in chosen if s in SEALED_SPLITS]
    if remote and sealed and not include_sealed:
        if splits:
            raise MRScoreConfigError("SEALED_NEEDS_CONSENT", "the judge endpoint is not on this host or a private "
                                     "network; sending the sealed test questions to it needs --include-sealed")
        chosen = [s for s in chosen if s not in SEALED_SPLITS]
    if not chosen:
        raise MRScoreConfigError("NO_QUESTIONS", f"{version} has no questions to judge")
    return chosen


def job_create(*, benchmark_slug: str, spec: JudgeSpec, splits=None, chunk_size: int = DEFAULT_CHUNK_SIZE,
               include_sealed: bool = False, force: bool = False) -> tuple[MRScoreJob, bool]:
    """A new job, or the matching earlier one (to resume, or already done) unless force. -> (job, created)"""
    if spec.kind not in JUDGE_KINDS:
        raise MRScoreConfigError("UNKNOWN_JUDGE_KIND", f"unknown judge kind {spec.kind!r}")
    if chunk_size < 1:
        raise MRScoreConfigError("CHUNK_SIZE", "--chunk-size must be at least 1")
    benchmark = bench_selectors.benchmark_get(slug=benchmark_slug)
    version = benchmark and bench_selectors.version_current(benchmark=benchmark)
    if version is None:
        known = ", ".join(b.slug for b in bench_selectors.benchmark_list()) or "none"
        raise MRScoreConfigError("UNKNOWN_BENCHMARK", f"benchmark {benchmark_slug!r} has no imported questions "
                                 f"(known: {known}); import it first (import_benchmark or load_demo)")
    chosen = _splits_for(version, spec, splits, include_sealed)
    if not force:
        earlier = selectors.job_find_matching(version=version, splits=chosen, kind=spec.kind, model=spec.model,
                                              revision=spec.revision, endpoint=spec.endpoint,
                                              settings=spec.settings, chunk_size=chunk_size)
        if earlier is not None:
            if earlier.status != JobStatus.SUCCEEDED and earlier.judge_settings != spec.settings:
                earlier.judge_settings = spec.settings  # only speed knobs differ (batch size, concurrency)
                earlier.save(update_fields=["judge_settings"])
            return earlier, False
    rendering = "chat" if spec.kind == JudgeKind.HTTP or spec.settings.get("chat_template") == "on" else (
        "completion" if spec.settings.get("chat_template") == "off" else None)
    job = MRScoreJob.objects.create(
        benchmark_version=version, splits=chosen, judge_kind=spec.kind, judge_model=spec.model,
        judge_revision=spec.revision, judge_endpoint=spec.endpoint, judge_settings=spec.settings,
        judge_is_demo=spec.is_demo, prompt_version=PROMPT_VERSION,
        prompt_hash=prompt_hash(rendering) if rendering else "",  # "auto": set when the judge is built
        chunk_size=chunk_size,
    )
    return job, True


def job_queue_name(*, job: MRScoreJob) -> str:
    return "gpu" if job.judge_kind == JudgeKind.LOCAL else "default"


def job_enqueue(*, job: MRScoreJob, countdown: int = 0) -> None:
    """Send the job to its queue once the surrounding transaction commits."""
    queue = job_queue_name(job=job)
    transaction.on_commit(lambda: current_app.send_task(JUDGE_TASK, args=[job.pk], queue=queue, countdown=countdown))


def job_requeue(*, job: MRScoreJob, reset_attempts: bool = False, reason: str = "") -> bool:
    """failed/running -> queued (an operator re-running, or a retry after an error)."""
    updates = {"status": JobStatus.QUEUED, "lease_expires_at": None, "finished_at": None,
               "failure_reason": reason[:2000]}
    if reset_attempts:
        updates["attempts"] = 0
    changed = MRScoreJob.objects.filter(pk=job.pk, status__in=[JobStatus.FAILED, JobStatus.RUNNING]).update(**updates)
    job.refresh_from_db()
    return changed == 1


def job_claim(*, job: MRScoreJob, takeover: bool = False) -> bool:
    """queued -> running by a conditional UPDATE (exactly one worker wins), refused once the job has used its
    attempts. A running job whose lease expired (its worker died) can be claimed again; takeover=True (an
    operator whose worker is gone) claims a running job regardless of its lease and its attempts."""
    claimed = leases.claim(JOBS, job.pk, claimable=Q(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]) if takeover
                           else None, limit=not takeover, started_at=Coalesce(F("started_at"), Now()),
                           failure_reason="")
    job.refresh_from_db()
    return claimed


def job_attempt_failed(*, job: MRScoreJob, attempt: int, reason: str) -> str:
    """Retried after a delay while attempts remain, else FAILED with the reason. Returns the status. Only the
    attempt that still holds the job changes it: a superseded worker touches nothing."""
    if attempt < JOBS.max_attempts:
        if leases.requeue(JOBS, job.pk, attempt=attempt, failure_reason=f"attempt {attempt}: {reason}"[:2000]):
            job_enqueue(job=job, countdown=django_settings.RUN_RETRY_DELAY_SECONDS)
            return JobStatus.QUEUED
    elif leases.fail(JOBS, job.pk, only=JOBS.held(attempt),
                     failure_reason=f"after {attempt} attempts: {reason}"[:2000]):
        return JobStatus.FAILED
    return MRScoreJob.objects.values_list("status", flat=True).get(pk=job.pk)


def jobs_sweep() -> dict:
    """Jobs whose worker died (their lease expired): re-queued, or FAILED once they have used their attempts."""
    def fail(job, only):
        return leases.fail(JOBS, job.pk, only=only, failure_reason=(
            f"after {job.attempts} attempts: the worker stopped renewing its lease (it died or lost the database)"))

    return leases.sweep(JOBS, fail_row=fail, requeued=lambda job: job_enqueue(job=job), changes=lambda job: {
        "failure_reason": f"attempt {job.attempts}: the worker stopped renewing its lease; retrying"})


def job_build_judge(*, job: MRScoreJob):
    options = dict(job.judge_settings)
    if job.judge_kind == JudgeKind.HTTP:
        options["endpoint"] = job.judge_endpoint
    return create_judge(job.judge_kind, job.judge_model, revision=job.judge_revision or None, **options)


def _store_chunk(job: MRScoreJob):
    def on_chunk(index, rows):
        # Insert-or-ignore: a chunk written again after a crash is ignored; the first write stands.
        MRScoreChunk.objects.bulk_create([MRScoreChunk(job=job, index=index, rows=rows)], ignore_conflicts=True)
        if not leases.heartbeat(JOBS, job.pk, attempt=job.attempts):
            raise JobCancelled(f"job {job.pk} attempt {job.attempts} no longer holds the job")
    return on_chunk


def job_run(*, job: MRScoreJob, judge, progress=None) -> None:
    """Judge every question not in a stored chunk. Safe to call again after an interruption."""
    items = selectors.job_items(job=job)
    planned = plan_hash(items, job.chunk_size)
    if job.plan_hash and job.plan_hash != planned:
        raise JobStateError("PLAN_CHANGED", f"job {job.pk}: the questions to judge changed since the job started")
    described = judge.describe()
    if job.prompt_hash and described.get("prompt_hash") and described["prompt_hash"] != job.prompt_hash:
        raise JobStateError("PROMPT_CHANGED", f"job {job.pk} was started with prompt {job.prompt_hash[:12]}; this "
                            f"code renders {described['prompt_hash'][:12]} ({described.get('prompt_version')}); "
                            "start a new job")
    job.plan_hash, job.prompt_hash = planned, job.prompt_hash or described.get("prompt_hash", "")
    job.progress_total = len(items)
    job.save(update_fields=["plan_hash", "prompt_hash", "progress_total"])

    def report(done, total):
        MRScoreJob.objects.filter(pk=job.pk).update(progress_done=done)
        if progress:
            progress(done, total)

    run_judging(judge, items, chunk_size=job.chunk_size, done_chunks=selectors.job_chunk_indices(job=job),
                on_chunk=_store_chunk(job), progress=report)
    job.judge_details = judge.describe()
    job.save(update_fields=["judge_details"])


@transaction.atomic
def job_finalize(*, job: MRScoreJob) -> MRScoreJob:
    """All chunks in -> per-question rows, topic aggregates, summary, SUCCEEDED. Once."""
    job = MRScoreJob.objects.select_for_update().get(pk=job.pk)
    if job.status != JobStatus.RUNNING:
        return job
    rows = [row for chunk in selectors.job_chunks(job=job).values() for row in chunk]
    questions = {uid: (pk, topic_id, split) for uid, pk, topic_id, split in
                 job.benchmark_version.questions.filter(split__in=job.splits)
                 .values_list("uid", "pk", "topic_id", "split")}
    if len(rows) != len(questions) or {r["uid"] for r in rows} != set(questions):
        raise JobStateError("VERDICTS_MISSING", f"job {job.pk}: {len(rows)} verdicts for {len(questions)} "
                            "questions; run it again to judge the rest")
    QuestionMRScore.objects.filter(job=job).delete()
    TopicMRScore.objects.filter(job=job).delete()
    QuestionMRScore.objects.bulk_create([
        QuestionMRScore(job=job, question_id=questions[r["uid"]][0], topic_id=questions[r["uid"]][1],
                        split=questions[r["uid"]][2], score=r.get("score"), method=r["method"],
                        raw_reply=(r.get("raw") or "")[:500], score_mass=r.get("mass"))
        for r in rows
    ], batch_size=2000)

    # Published figures from the open splits only (aggregates.py): sealed rows are stored, never aggregated.
    verdicts = [{**r, "split": questions[r["uid"]][2], "topic": questions[r["uid"]][1]} for r in rows]
    blocks = aggregates.topic_blocks(verdicts)
    TopicMRScore.objects.bulk_create([TopicMRScore(job=job, topic_id=topic_id, **block)
                                      for topic_id, block in blocks.items()])
    published = dict(job.benchmark_version.benchmark.topics.values_list("pk", "published_mrscore"))
    job.summary = aggregates.job_summary(verdicts, blocks, published, is_demo=job.judge_is_demo)
    job.status = JobStatus.SUCCEEDED
    job.finished_at = timezone.now()
    job.lease_expires_at = None
    job.progress_done = job.progress_total = len(rows)
    job.save(update_fields=["summary", "status", "finished_at", "lease_expires_at", "progress_done",
                            "progress_total"])
    return job


def job_judges_sealed(*, job: MRScoreJob) -> bool:
    return any(split in SEALED_SPLITS for split in (job.splits or []))


def safe_reason(*, job: MRScoreJob, exc: BaseException) -> str:
    """An exception as a failure reason that leaks nothing sealed.

    A job that judges the sealed split keeps the exception's type only, as a sealed evaluation run does
    (ARCHITECTURE §6): a judge's or a library's message may quote a prompt in any form (other case or spacing,
    a long excerpt, its options), which no scrubbing of the exact text catches. A job on open splits only
    never sent a sealed question anywhere, so its message is kept whole (sealed texts are still cut out)."""
    if job_judges_sealed(job=job):
        return f"{type(exc).__name__} (details withheld: this job judges the sealed test split)"
    text = f"{exc.__class__.__name__}: {exc}"[:2000]
    for sealed in selectors.sealed_texts(job=job):
        if sealed and sealed in text:
            text = text.replace(sealed, "[sealed question]")
    return text


def job_fail(*, job: MRScoreJob, reason: str) -> MRScoreJob:
    leases.fail(JOBS, job.pk, failure_reason=reason[:2000])
    job.refresh_from_db()
    return job
