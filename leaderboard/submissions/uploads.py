"""Predictions uploaded as a CSV (the Mobile-MMLU portal's way), scored on the server like a run.

Shown as "submitted predictions", on a board of their own, never as a model's measured row. Open splits only:
scoring a sealed split this way would turn the server into an answer oracle. The name must be in a namespace the
uploader owns (``selectors.owns_namespace``): otherwise anyone could put figures, and use up a quota, under any
model's name.

The file is never read whole before its size is checked: the API refuses a request whose Content-Length is
over the limit before the body is parsed (``request_too_large``), and the file itself is read in bounded
pieces, refused from its declared size or as soon as more than the limit has come in (``read_upload``).
The name is the hub id checked exactly as on submit: not trimmed.
"""
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.core.errors import DomainError
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import UPLOAD_BACKEND, EvaluationRun, PredictionChunk, RunStatus
from leaderboard.hub.ids import validate_hub_id
from leaderboard.scoring.services import run_score

from . import selectors
from .errors import NotNamespaceOwner, SubmissionError
from .models import Submission, SubmissionKind, hub_namespace
from .predictions_upload import TOO_LARGE_HINT, UploadTooLarge, parse_predictions_csv, read_upload
from .services import model_entry_for, quota_check, quota_lock, stored_spelling

CHUNK = 256
FORM_ALLOWANCE = 64 * 1024  # bytes of a multipart request beyond the file: boundaries, headers, the other fields


def max_upload_bytes() -> int:
    return settings.PREDICTIONS_UPLOAD_MAX_BYTES


def request_too_large(content_length) -> DomainError | None:
    """The refusal of an upload request from its Content-Length alone (before its body is read), or None."""
    try:
        length = int(content_length or 0)
    except (TypeError, ValueError):
        return None  # Django reads an unparsable Content-Length as 0: nothing of the body is read
    limit = max_upload_bytes()
    if length <= limit + FORM_ALLOWANCE:
        return None
    return DomainError(
        UploadTooLarge.code,
        f"the upload request is {length:,} bytes, over the limit of {limit:,} bytes for the predictions file "
        f"(plus {FORM_ALLOWANCE:,} bytes for the other form fields); upload only the two columns "
        "question_id,predicted_answer", TOO_LARGE_HINT, UploadTooLarge.status, max_bytes=limit)


def predictions_submit(*, user, name: str, benchmark_slug: str, split: str, data,
                       filename: str | None = None) -> Submission:
    """Score uploaded predictions for ``name``. ``data`` is the file: an uploaded file (read here in bounded
    pieces, refused over the size limit) or bytes. All or nothing: a refusal stores nothing."""
    limit = max_upload_bytes()
    filename = filename or getattr(data, "name", None) or "upload.csv"
    if not isinstance(data, (bytes, bytearray, memoryview)):  # UploadTooLarge: 413 UPLOAD_TOO_LARGE
        data = read_upload(data, max_bytes=limit, filename=filename)
    if split in SEALED_SPLITS:
        raise SubmissionError("the sealed test split cannot be scored from uploaded predictions",
                              hint="upload validation-split predictions; test results come from our runs only",
                              code="SEALED_SPLIT")
    name = validate_hub_id(name)  # HubIdError: 400 INVALID_ID
    namespace = hub_namespace(name)
    if not selectors.owns_namespace(user, namespace):
        raise NotNamespaceOwner(
            f"you cannot upload predictions for {name!r}: the namespace {namespace!r} is not yours; upload under "
            f"your own namespace '{user.get_username()}/...', or ask an admin to grant you '{namespace}'",
            hint="an upload names a model of your own namespace or of one granted to you; nothing was stored",
            namespace=namespace)
    name = stored_spelling(name)
    benchmark = bench_selectors.benchmark_get(slug=benchmark_slug)
    version = benchmark and bench_selectors.version_current(benchmark=benchmark)
    if version is None or split not in version.split_hashes:
        raise SubmissionError(f"benchmark {benchmark_slug!r} has no {split} split", code="BENCHMARK")
    questions = list(version.questions.filter(split=split).order_by("position")
                     .values_list("uid", "options", "topic__hub_field"))
    predicted = parse_predictions_csv(data, questions={uid: len(opts) for uid, opts, _ in questions},
                                      filename=filename, max_bytes=limit)  # UploadError: 400 UPLOAD_INVALID or 413

    rows = [{"question_id": uid, "variant": "original", "topic": topic, "predicted": predicted[uid],
             "predicted_original": predicted[uid]} for uid, _, topic in questions]
    with transaction.atomic():
        quota_lock(user=user, namespace=namespace)
        quota_check(user=user, namespace=namespace)
        model = model_entry_for(hub_id=name)
        submission = Submission.objects.create(kind=SubmissionKind.PREDICTIONS, submitter=user, model=model,
                                               benchmarks=[benchmark_slug])
        run = run_services.run_create(version=version, split=split, model_ref=name, backend=UPLOAD_BACKEND)
        EvaluationRun.objects.filter(pk=run.pk).update(
            submission=submission, status=RunStatus.SCORING, queue="default", started_at=timezone.now(),
            progress_done=len(rows), progress_total=len(rows), chunk_size=CHUNK)
        PredictionChunk.objects.bulk_create([PredictionChunk(run=run, index=i, rows=rows[i * CHUNK:(i + 1) * CHUNK])
                                             for i in range(-(-len(rows) // CHUNK))])
        run.refresh_from_db()
        run_score(run=run)
    return submission
