"""Reads for submissions: namespace ownership, model entries by hub id, quota use, duplicates, status with queue
position and ETA."""
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from evaluator.precisions import supported_precisions
from leaderboard.evaluations import eta
from leaderboard.evaluations.models import TERMINAL_STATUSES, EvaluationRun, PredictionChunk, RunStatus

from .identity import canonical_name
from .models import AccountName, HubNamespace, ModelEntry, NamespaceGrant, Precision, Submission

ENDED_BADLY = (RunStatus.FAILED, RunStatus.CANCELLED)


def _alive():
    """Submissions with at least one run that neither failed nor was cancelled (they count for quotas)."""
    return Exists(EvaluationRun.objects.filter(submission=OuterRef("pk")).exclude(status__in=ENDED_BADLY))


def name_holders(name: str):
    """The account holding a user name, compared in its canonical form (identity.canonical_name; at most one, by the
    unique index): 'ALICE', 'ａｌｉｃｅ' and 'alice' are one name."""
    return get_user_model().objects.filter(account_name__canonical=canonical_name(name))


def namespace_owners(namespace: str):
    """The accounts that own a hub namespace: the one whose user name it is, those an admin granted it
    (NamespaceGrant) and those the hub vouched for when they signed in with it (HubNamespace: their hub user name, or
    an organisation where they may write), each compared in the canonical form, nothing else. The ownership rule
    lives here and in ``owns_namespace``."""
    key = canonical_name(namespace)
    granted = NamespaceGrant.objects.filter(user=OuterRef("pk"), namespace=key)
    vouched = HubNamespace.objects.filter(account__user=OuterRef("pk"), namespace=key)
    named = AccountName.objects.filter(user=OuterRef("pk"), canonical=key)
    return get_user_model().objects.filter(Q(Exists(named)) | Q(Exists(granted)) | Q(Exists(vouched)))


def namespace_in_use(namespace: str) -> bool:
    """Whether a namespace belongs to models on the board, an admin's grant or an account the hub vouched for: a new
    account may not take it as its user name, since the user name is what makes an account own its namespace."""
    key = canonical_name(namespace)
    return (ModelEntry.objects.filter(namespace=key).exists()
            or NamespaceGrant.objects.filter(namespace=key).exists()
            or HubNamespace.objects.filter(namespace=key).exists())


def owns_namespace(user, namespace: str) -> bool:
    """Whether ``user`` may act for ``namespace``: upload predictions under its models' names, and use (and be held
    to) its quota."""
    if user is None or not user.is_authenticated:
        return False
    return namespace_owners(namespace).filter(pk=user.pk).exists()


def model_entry_get(*, hub_id: str):
    """The model entry of a hub id, compared case-insensitively (``DEMO/x`` is ``demo/x``), or None."""
    return ModelEntry.objects.filter(hub_id__iexact=hub_id).first()


def model_hidden(*, hub_id: str) -> bool:
    """Whether an admin hid the model: public pages and APIs then treat it as absent."""
    return ModelEntry.objects.filter(hub_id__iexact=hub_id, hidden=True).exists()


def public_model_or_404(*, hub_id: str):
    """The model entry of a hub id for a public page or API, or None when there is none (the caller decides whether
    its results alone make the model known); Http404 for a model an admin hid."""
    model = model_entry_get(hub_id=hub_id)
    if model is not None and model.hidden:
        raise Http404(f"No model {hub_id!r}.")
    return model


def public_submission_or_404(*, pk: int) -> Submission:
    """A submission for its public status page and API; Http404 for one an admin hid."""
    return get_object_or_404(Submission.objects.select_related("model"), pk=pk, hidden=False)


def quota_used(*, since, user=None, namespace=None):
    """Live submissions since ``since``: the account's own (models and uploads alike); a namespace's are those of
    its models made by accounts that own it, so a stranger's submissions never use up an organisation's quota."""
    qs = Submission.objects.filter(created_at__gte=since).filter(_alive())
    if user is not None:
        qs = qs.filter(submitter=user)
    if namespace is not None:
        qs = qs.filter(model__namespace=canonical_name(namespace), submitter__in=namespace_owners(namespace))
    return qs.order_by("created_at")


def duplicate_of(*, model, revision_sha, precision, model_type, use_chat_template, benchmarks):
    candidates = Submission.objects.filter(
        model=model, revision_sha=revision_sha, precision=precision, model_type=model_type,
        use_chat_template=use_chat_template, kind="model",
    ).filter(_alive())
    return next((s for s in candidates if sorted(s.benchmarks) == sorted(benchmarks)), None)


def gguf_duplicate_of(*, gguf_sha256, model_type, use_chat_template, benchmarks):
    """A live submission of the same GGUF file (by sha256) with the same settings."""
    candidates = Submission.objects.filter(gguf_sha256=gguf_sha256, model_type=model_type,
                                           use_chat_template=use_chat_template, kind="model").filter(_alive())
    return next((s for s in candidates.select_related("model") if sorted(s.benchmarks) == sorted(benchmarks)), None)


def gguf_test_run_exists(*, gguf_sha256):
    """One sealed-split evaluation per pinned GGUF file (its sha256), whatever repository, commit or settings."""
    return EvaluationRun.objects.filter(submission__gguf_sha256=gguf_sha256, split="test").exclude(
        status__in=ENDED_BADLY).exists()


def test_run_exists(*, model, revision_sha, precision):
    """One sealed-split evaluation per pinned (model, revision, precision), whatever the other settings."""
    return EvaluationRun.objects.filter(
        submission__model=model, submission__revision_sha=revision_sha, submission__precision=precision,
        split="test",
    ).exclude(status__in=ENDED_BADLY).exists()


def submission_status(*, submission: Submission) -> str:
    """Under way while any of its runs is; then the model's own runs decide: an on-device variant that failed (a
    file llama.cpp's converter cannot make, say) shows its reason on its run, and leaves the model's result standing."""
    runs = [(run.status, bool(run.gguf_recipe)) for run in submission.runs.all()]
    if not runs:
        return RunStatus.QUEUED
    for state in (RunStatus.RUNNING, RunStatus.SCORING, RunStatus.QUEUED):
        if state in {status for status, _ in runs}:
            return state
    statuses = {status for status, made in runs if not made} or {status for status, _ in runs}
    if statuses == {RunStatus.SUCCEEDED}:
        return RunStatus.SUCCEEDED
    return RunStatus.CANCELLED if statuses <= {RunStatus.CANCELLED} else RunStatus.FAILED


def run_queue_position(*, run: EvaluationRun) -> int | None:
    """1 = next to start. None once the run has started."""
    if run.status != RunStatus.QUEUED:
        return None
    ahead = EvaluationRun.objects.filter(queue=run.queue, status=RunStatus.QUEUED, pk__lt=run.pk)
    return ahead.count() + 1


def run_eta_seconds(*, run: EvaluationRun) -> float | None:
    """Seconds until the run ends, None when there is nothing to time it by (evaluations/eta.py: it scales with
    the model's size and the run's predictions, so with its answer orders). A queued run waits for the work
    ahead of it in its queue, shared among the runs under way there, then takes its own time."""
    if run.status in TERMINAL_STATUSES:
        return None
    pace, now = eta.queue_pace(run.queue), timezone.now()
    if run.status != RunStatus.QUEUED:
        return eta.remaining_seconds(run, pace, now)
    if pace is None:
        return None
    running = list(EvaluationRun.objects.filter(queue=run.queue, status=RunStatus.RUNNING)
                   .select_related("submission__model"))
    ahead = (sum(eta.remaining_seconds(r, pace, now) for r in running)
             + eta.waiting_work_seconds(queue=run.queue, before_pk=run.pk, pace=pace))
    return ahead / max(len(running), 1) + eta.run_seconds(predictions=run.progress_total,
                                                           params=eta.run_params(run), pace=pace)


def run_progress(*, run: EvaluationRun) -> dict:
    position = run_queue_position(run=run)
    chunk_size = run.chunk_size
    return {
        "items_done": run.progress_done, "items_total": run.progress_total,
        "chunks_done": PredictionChunk.objects.filter(run=run).count(),
        "chunks_total": -(-run.progress_total // chunk_size) if run.progress_total else None,
        "queue_position": position, "eta_seconds": run_eta_seconds(run=run),
    }


def submissions_of(*, user):
    return Submission.objects.filter(submitter=user).select_related("model").prefetch_related("runs")


def quota_window_start(days):
    return timezone.now() - timedelta(days=days)


def precisions_offered() -> list[tuple[str, str]]:
    """The precision choices this deployment's backend (RUN_BACKEND) can run: a form offers nothing intake refuses."""
    runs = supported_precisions(settings.RUN_BACKEND)
    return [(value, label) for value, label in Precision.choices if value in runs]
