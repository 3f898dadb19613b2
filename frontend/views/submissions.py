"""Submit form, submission status, my submissions and the public queue: the same services and output serializer
as the API, in plain words (payloads/submissions.py)."""
from django.shortcuts import redirect, render

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.core.errors import DomainError
from leaderboard.evaluations.failures import advice as failure_advice
from leaderboard.hub.errors import GGUF_CODES
from leaderboard.hub.ids import HubIdError, ModelRef, validate_hub_id, validate_revision
from leaderboard.submissions import services
from leaderboard.submissions import selectors as submission_selectors
from leaderboard.submissions.serializers import SubmissionOutputSerializer

from .. import selectors
from ..forms import SubmissionForm
from ..payloads import submissions as words
from .accounts import account_needed

# Which field a refusal belongs to, so it is shown next to it; the rest are shown above the form.
FIELD_OF_CODE = {"INVALID_ID": "hub_id", "MODEL_NOT_FOUND": "hub_id", "GATED": "hub_id", "PRIVATE": "hub_id",
                 "NO_SAFETENSORS": "hub_id", "CUSTOM_CODE": "hub_id", "TOO_LARGE": "hub_id", "NO_LICENSE": "hub_id",
                 "NO_CONFIG": "hub_id", "REVISION_NOT_FOUND": "revision", "UNKNOWN_PRECISION": "precision",
                 "MODEL_TYPE": "model_type", "BENCHMARK": "benchmarks",
                 **{code: "gguf_file" for code in GGUF_CODES}}


def error_field(exc: DomainError):
    named = getattr(exc, "field", None) or exc.extra.get("field")  # a refusal that names its field
    return named if named in SubmissionForm.base_fields else FIELD_OF_CODE.get(exc.code)


def _model_ref(form, data) -> ModelRef | None:
    """Hub id and revision validated here, once, before the submission is asked for (no network), so each error
    lands on its own field; None if either was refused."""
    valid = {}
    for field, check in (("hub_id", validate_hub_id), ("revision", validate_revision)):
        try:
            valid[field] = check(data[field])
        except HubIdError as exc:
            form.add_error(exc.field if exc.field in form.fields else field, str(exc))
    return ModelRef(**valid) if len(valid) == 2 else None


def submit(request):
    if not request.user.is_authenticated:
        return account_needed(request, title="Submit a model", why=(
            "Submitting needs an account: each evaluation takes GPU time, so submissions are limited per account "
            "and per hub namespace (5 in 7 days), and the account is where you follow your runs and get told "
            "when they end."))
    form = SubmissionForm(request.POST or None)
    ref = request.method == "POST" and form.is_valid() and _model_ref(form, form.cleaned_data)
    if ref:
        data = form.cleaned_data
        try:
            submission = services.submission_create(
                user=request.user, ref=ref, precision=data["precision"],
                model_type=data["model_type"], use_chat_template=data["use_chat_template"] or None,
                benchmarks=data["benchmarks"], probe=data.get("probe", False), gguf_file=data.get("gguf_file", ""),
                # ticked (the default): by size, as the API's default; unticked: none
                ondevice_variants=None if data.get("ondevice_variants") and not data.get("gguf_file") else False)
        except DomainError as exc:
            form.add_error(error_field(exc), f"{exc.message} {exc.hint}".strip())
        else:
            return redirect("submission-status", pk=submission.pk)
    return render(request, "frontend/submit.html", {"form": form})


def submission_status(request, pk):
    submission = submission_selectors.public_submission_or_404(pk=pk)
    status = SubmissionOutputSerializer(submission).data
    groups = words.grouped_runs(status["runs"], _benchmark_names())
    failures = [{"run": r, "advice": failure_advice(r["failure"]["code"])}
                for g in groups for r in g["current"] if r["failure"] and r["done"]]
    return render(request, "frontend/submission_status.html", {
        "status": status, "submission": submission, "groups": groups, "failures": failures,
        "summary": words.summary(selectors.submission_current_status(submission=submission), groups)})


def _benchmark_names() -> dict:
    return {b.slug: b.name for b in bench_selectors.benchmark_list()}


def my_submissions(request):
    if not request.user.is_authenticated:
        return account_needed(request, title="My submissions", why=(
            "This page lists the models you submitted and the state of their runs, so it needs you signed in."))
    mine, total = selectors.my_submissions(user=request.user)
    names = _benchmark_names()
    rows = [{"submission": s, "status_words": words.status_words(s.current_status),
             "groups": words.grouped_runs(SubmissionOutputSerializer(s).data["runs"], names)} for s in mine]
    return render(request, "frontend/my_submissions.html", {"rows": rows, "total": total})


def queue(request):
    rows = selectors.run_queue()
    for row in rows:
        run = row["run"]
        row.update(status_words=words.status_words(run.status), size_words=words.size_words(row["params"]),
                   eta_words=words.eta_words(row["eta_seconds"]) or "not known yet", orders=len(run.variants) or 1,
                   progress_words=words.progress_words(run.progress_done, run.progress_total, len(run.variants)))
    return render(request, "frontend/queue.html", {"rows": rows, "limit": selectors.QUEUE_PAGE_RUNS})
