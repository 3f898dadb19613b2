"""Reads for MRScore. Per-question scores are served for open splits only; sealed rows feed
aggregates and nothing else."""
from django.db.models import Q

from evaluator.judges import JudgeItem

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS, Benchmark, Split
from leaderboard.core.errors import SealedSplitError

from .models import JobStatus, MRScoreChunk, MRScoreJob, QuestionMRScore, TopicMRScore

SPLIT_ORDER = [Split.DEV, Split.VALIDATION, Split.TEST]
OPEN_SPLITS = [s.value for s in SPLIT_ORDER if s not in SEALED_SPLITS]


def job_get(*, job_id: int) -> MRScoreJob | None:
    return MRScoreJob.objects.select_related("benchmark_version__benchmark").filter(pk=job_id).first()


def job_list(*, benchmark: Benchmark | None = None):
    jobs = MRScoreJob.objects.select_related("benchmark_version__benchmark").order_by("-created_at")
    return jobs.filter(benchmark_version__benchmark=benchmark) if benchmark is not None else jobs


# Settings that change speed, not verdicts: a job is resumed whatever they were.
EXECUTION_ONLY_SETTINGS = frozenset({"batch_size", "concurrency", "timeout", "max_retries"})


def _verdict_settings(settings: dict) -> dict:
    return {k: v for k, v in settings.items() if k not in EXECUTION_ONLY_SETTINGS}


def job_find_matching(*, version, splits, kind, model, revision, endpoint, settings, chunk_size):
    """An earlier job with this judge and plan on this version (not cancelled), newest first."""
    candidates = MRScoreJob.objects.filter(
        benchmark_version=version, splits=splits, judge_kind=kind, judge_model=model, judge_revision=revision,
        judge_endpoint=endpoint, chunk_size=chunk_size,
    ).exclude(status=JobStatus.CANCELLED).order_by("-created_at")
    wanted = _verdict_settings(settings)
    return next((job for job in candidates if _verdict_settings(job.judge_settings) == wanted), None)


def job_current(*, benchmark: Benchmark) -> MRScoreJob | None:
    """The newest succeeded job on the benchmark's current version (the one pages show)."""
    version = bench_selectors.version_current(benchmark=benchmark)
    if version is None:
        return None
    return (MRScoreJob.objects.select_related("benchmark_version__benchmark")
            .filter(benchmark_version=version, status=JobStatus.SUCCEEDED).order_by("-finished_at", "-pk").first())


def job_items(*, job: MRScoreJob) -> list[JudgeItem]:
    """The questions a job judges, in plan order: its splits in order, then import position."""
    items = []
    for split in job.splits:
        rows = (job.benchmark_version.questions.filter(split=split).order_by("position")
                .values_list("uid", "text", "topic__slug"))
        items.extend(JudgeItem(uid=uid, text=text, topic=topic, split=split) for uid, text, topic in rows)
    return items


def job_chunks(*, job: MRScoreJob) -> dict[int, list[dict]]:
    return dict(MRScoreChunk.objects.filter(job=job).order_by("index").values_list("index", "rows"))


def job_chunk_indices(*, job: MRScoreJob) -> set[int]:
    return set(MRScoreChunk.objects.filter(job=job).values_list("index", flat=True))


def topic_scores(*, job: MRScoreJob):
    return (TopicMRScore.objects.filter(job=job).select_related("topic__subcategory__category")
            .order_by("topic__order"))


def question_scores(*, job: MRScoreJob, split: str | None = None, topic_slug: str | None = None):
    """Per-question verdicts of the open splits. Asking for the sealed split is refused outright."""
    if split is not None and split not in OPEN_SPLITS:
        raise SealedSplitError("The test split is sealed; its per-question scores are not served.")
    rows = (QuestionMRScore.objects.filter(job=job, split__in=[split] if split else OPEN_SPLITS)
            .select_related("question", "topic").order_by("split", "question__position"))
    if topic_slug:
        rows = rows.filter(topic__slug=topic_slug)
    return rows


def sealed_texts(*, job: MRScoreJob) -> list[str]:
    """Sealed question texts of the job's version (to scrub failure messages; never served)."""
    return list(job.benchmark_version.questions.filter(split__in=list(SEALED_SPLITS)).values_list("text", flat=True))


def provenance(*, job: MRScoreJob) -> dict:
    """What is shown with every score: who judged, with what prompt, when, and how scores were read."""
    methods = (job.summary or {}).get("methods", {})
    used = sorted(m for m, n in methods.items() if n and m != "unparsable")
    return {
        "job": job.pk,
        "benchmark": job.benchmark_version.benchmark.slug,
        "benchmark_version": job.benchmark_version.number,
        "judge_model": job.judge_model,
        "judge_revision": job.judge_revision,
        "endpoint_kind": job.endpoint_kind,
        "prompt_version": job.prompt_version,
        "prompt_hash": job.prompt_hash,
        "scoring": "+".join(used) if used else "",
        "judged_at": job.finished_at.isoformat() if job.finished_at else None,
        "splits": list(job.splits),
    }


def benchmarks_with_scores(*, slugs: list[str] | None = None):
    benchmarks = Benchmark.objects.filter(
        Q(versions__mrscore_jobs__status=JobStatus.SUCCEEDED)).distinct().order_by("slug")
    return benchmarks.filter(slug__in=slugs) if slugs else benchmarks
