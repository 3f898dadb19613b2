"""Submit form and submission status page: the same services and presenters as the API."""
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render

from leaderboard.submissions import presenters, services
from leaderboard.submissions.errors import SubmissionError
from leaderboard.submissions.hub_ids import HubIdError, validate_hub_id, validate_revision
from leaderboard.submissions.models import Submission

from ..forms import SubmissionForm

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


@login_required
def submit(request):
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


def _eta_text(seconds):
    if seconds is None:
        return None
    return f"about {round(seconds)} s" if seconds < 90 else f"about {round(seconds / 60)} min"


def submission_status(request, pk):
    submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk, hidden=False)
    status = presenters.submission_status(submission)
    positions = [r["queue_position"] for r in status["runs"] if r["queue_position"]]
    etas = [r["eta_seconds"] for r in status["runs"] if r["eta_seconds"] is not None]
    failures = [{"run": r, "advice": FAILURE_ADVICE.get(r["failure"]["code"], "Submit again or ask an admin.")}
                for r in status["runs"] if r["failure"]]
    return render(request, "frontend/submission_status.html", {
        "status": status, "submission": submission, "queue_position": min(positions) if positions else None,
        "eta": _eta_text(max(etas)) if etas else None, "failures": failures})
