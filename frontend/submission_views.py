"""Submit form and submission status page: the same services and presenters as the API."""
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render

from leaderboard.submissions import presenters, services
from leaderboard.submissions.errors import SubmissionError
from leaderboard.submissions.models import Submission

from .forms import SubmissionForm


@login_required
def submit(request):
    form = SubmissionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            submission = services.submission_create(
                user=request.user, hub_id=data["hub_id"], revision=data["revision"], precision=data["precision"],
                model_type=data["model_type"], use_chat_template=data["use_chat_template"] or None,
                benchmarks=data["benchmarks"])
        except SubmissionError as exc:
            field = "hub_id" if exc.code in ("INVALID_ID", "MODEL_NOT_FOUND", "GATED", "PRIVATE") else None
            form.add_error(field, f"{exc.message} {exc.hint}".strip())
        else:
            return redirect("submission-status", pk=submission.pk)
    return render(request, "frontend/submit.html", {"form": form})


def submission_status(request, pk):
    submission = get_object_or_404(Submission.objects.select_related("model"), pk=pk, hidden=False)
    status = presenters.submission_status(submission)
    return render(request, "frontend/submission_status.html", {"status": status, "submission": submission})
