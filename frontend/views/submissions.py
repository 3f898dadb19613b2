"""Submit form, submission status, my submissions and the public queue: the same services and presenters as
the API, in plain words (payloads/submissions.py)."""
from django.shortcuts import get_object_or_404, redirect, render

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.submissions import presenters, services
from leaderboard.submissions.errors import SubmissionError
from leaderboard.submissions.hub_ids import HubIdError, validate_hub_id, validate_revision
from leaderboard.submissions.models import Submission

from .. import selectors
from ..forms import SubmissionForm
from ..payloads import submissions as words
from .accounts import account_needed

# Which field a refusal belongs to, so it is shown next to it; the rest are shown above the form.
FIELD_OF_CODE = {"INVALID_ID": "hub_id", "MODEL_NOT_FOUND": "hub_id", "GATED": "hub_id", "PRIVATE": "hub_id",
                 "NO_SAFETENSORS": "hub_id", "CUSTOM_CODE": "hub_id", "TOO_LARGE": "hub_id", "NO_LICENSE": "hub_id",
                 "NO_CONFIG": "hub_id", "REVISION_NOT_FOUND": "revision", "UNKNOWN_PRECISION": "precision",
                 "MODEL_TYPE": "model_type", "BENCHMARK": "benchmarks"}


def error_field(exc: SubmissionError):
    return FIELD_OF_CODE.get(exc.code)


def _format_errors(form, data) -> bool:
    """Hub id and revision checked here first (no network) so each error lands on its own field."""
    ok = True
    for field, check in (("hub_id", validate_hub_id), ("revision", validate_revision)):
        try:
            check(data[field])
        except HubIdError as exc:
            form.add_error(exc.field if exc.field in form.fields else field, str(exc))
            ok = False
    return ok


def submit(request):
    if not request.user.is_authenticated:
        return account_needed(request, title="Submit a model", why=(
            "Submitting needs an account: each evaluation takes GPU time, so submissions are limited per account "
            "and per hub namespace (5 in 7 days), and the account is where you follow your runs and get told "
            "when they end."))
    form = SubmissionForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and _format_errors(form, form.cleaned_data):
        data = form.cleaned_data
        try:
            submission = services.submission_create(
                user=request.user, hub_id=data["hub_id"], revision=data["revision"], precision=data["precision"],
                model_type=data["model_type"], use_chat_template=data["use_chat_template"] or None,
                benchmarks=data["benchmarks"], probe=data.get("probe", False))
        except SubmissionError as exc:
            form.add_error(error_field(exc), f"{exc.message} {exc.hint}".strip())
        else:
            return redirect("submission-status", pk=submission.pk)
    return render(request, "frontend/submit.html", {"form": form})


# What an author can do about each failure (shown with the reason).
FAILURE_ADVICE = {
    "MODEL_NOT_FOUND": "Check the hub id and revision: the model must be public and the revision must exist.",
    "GATED": "Gated models cannot be evaluated. Submit an ungated copy, or ask the author to lift the gate.",
    "UNSUPPORTED_ARCHITECTURE": "The evaluator's transformers/vLLM versions cannot load this architecture without "
                                "custom code. Submit a model with a supported architecture.",
    "OUT_OF_MEMORY": "The model did not fit the evaluating GPU at this precision. Submit it again with a smaller "
                     "precision (int8 or a 4-bit format) or submit a smaller model.",
    "MODEL_LOAD_ERROR": "Loading failed. Check that the weights, config and tokenizer load with transformers' "
                        "AutoModelForCausalLM and AutoTokenizer, without trust_remote_code, then submit again.",
    "EVALUATION_ERROR": "The model loaded but evaluation failed. Check the tokenizer and chat template setting, then "
                        "submit again; failed runs do not count against your quota.",
    "WORKER_LOST": "The worker running it stopped three times. Submit again (failed runs do not count against your "
                   "quota) or ask an admin for a re-run.",
    "TIMEOUT": "The run took longer than the time limit. A smaller precision or model runs faster.",
    "CANCELLED": "The run was cancelled. Submit again when you are ready; cancelled runs do not count against your "
                 "quota.",
}


def submission_status(request, pk):
    submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk, hidden=False)
    status = presenters.submission_status(submission)
    groups = words.grouped_runs(status["runs"], _benchmark_names())
    failures = [{"run": r, "advice": FAILURE_ADVICE.get(r["failure"]["code"], "Submit again or ask an admin.")}
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
             "groups": words.grouped_runs(presenters.submission_status(s)["runs"], names)} for s in mine]
    return render(request, "frontend/my_submissions.html", {"rows": rows, "total": total})


def queue(request):
    rows = selectors.run_queue()
    for row in rows:
        run = row["run"]
        row.update(status_words=words.status_words(run.status), size_words=words.size_words(row["params"]),
                   eta_words=words.eta_words(row["eta_seconds"]) or "not known yet", orders=len(run.variants) or 1,
                   progress_words=words.progress_words(run.progress_done, run.progress_total, len(run.variants)))
    return render(request, "frontend/queue.html", {"rows": rows, "limit": selectors.QUEUE_PAGE_RUNS})
