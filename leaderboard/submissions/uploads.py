"""Predictions uploaded as a CSV (the Mobile-MMLU portal's way), scored on the server like a run.

Shown as "submitted predictions", apart from the runs we evaluated. Open splits only:
scoring a sealed split this way would turn the server into an answer oracle.
"""
from django.db import transaction
from django.utils import timezone

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus

from .errors import SubmissionError
from .hub_ids import HubIdError, validate_hub_id
from .models import ModelEntry, Submission, SubmissionKind
from .predictions_upload import UploadError, parse_predictions_csv
from .services import quota_check, quota_lock

CHUNK = 256


def predictions_submit(*, user, name: str, benchmark_slug: str, split: str, data: bytes,
                       filename: str = "upload.csv") -> Submission:
    if split in SEALED_SPLITS:
        raise SubmissionError("the sealed test split cannot be scored from uploaded predictions",
                              hint="upload validation-split predictions; test results come from our runs only",
                              code="SEALED_SPLIT")
    try:
        name = validate_hub_id(name)
    except HubIdError as exc:
        raise SubmissionError(str(exc), code="INVALID_ID") from None
    benchmark = bench_selectors.benchmark_get(slug=benchmark_slug)
    version = benchmark and bench_selectors.version_current(benchmark=benchmark)
    if version is None or split not in version.split_hashes:
        raise SubmissionError(f"benchmark {benchmark_slug!r} has no {split} split", code="BENCHMARK")
    questions = list(version.questions.filter(split=split).order_by("position")
                     .values_list("uid", "options", "topic__hub_field"))
    try:
        predicted = parse_predictions_csv(data, questions={uid: len(opts) for uid, opts, _ in questions},
                                          filename=filename)
    except UploadError as exc:
        raise SubmissionError(str(exc), hint="fix the file and upload it again; nothing was stored",
                              code="UPLOAD_INVALID") from None

    namespace = name.split("/")[0]
    rows = [{"question_id": uid, "variant": "original", "topic": topic, "predicted": predicted[uid],
             "predicted_original": predicted[uid]} for uid, _, topic in questions]
    with transaction.atomic():
        quota_lock(user=user, namespace=namespace)
        quota_check(user=user, namespace=namespace)
        model, _ = ModelEntry.objects.get_or_create(hub_id=name, defaults={"namespace": namespace})
        submission = Submission.objects.create(kind=SubmissionKind.PREDICTIONS, submitter=user, model=model,
                                               benchmarks=[benchmark_slug])
        run = run_services.run_create(version=version, split=split, model_ref=name, backend="upload")
        EvaluationRun.objects.filter(pk=run.pk).update(
            submission=submission, status=RunStatus.SCORING, queue="default", started_at=timezone.now(),
            progress_done=len(rows), progress_total=len(rows), chunk_size=CHUNK)
        PredictionChunk.objects.bulk_create([PredictionChunk(run=run, index=i, rows=rows[i * CHUNK:(i + 1) * CHUNK])
                                             for i in range(-(-len(rows) // CHUNK))])
        run.refresh_from_db()
        run_services.run_score(run=run)
    return submission
