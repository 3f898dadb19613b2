"""Tell the submitter when their submission has finished or failed: e-mail, and a webhook if they gave one."""
import json
import logging
import urllib.request

from django.conf import settings
from django.core.mail import send_mail
from django.utils import timezone

from .models import TERMINAL_STATUSES, EvaluationRun, RunStatus

log = logging.getLogger(__name__)
WEBHOOK_TIMEOUT = 10


def run_notify(*, run_id: int):
    run = EvaluationRun.objects.select_related("submission__submitter", "submission__model").get(pk=run_id)
    submission = run.submission
    if submission is None:
        return
    runs = list(submission.runs.all())
    if any(r.status not in TERMINAL_STATUSES for r in runs):
        return  # notify once, when the whole submission is done
    from leaderboard.submissions.models import Submission

    # Claim the notice: exactly one task sends it even if several runs finish together.
    if not Submission.objects.filter(pk=submission.pk, notified_at__isnull=True).update(notified_at=timezone.now()):
        return
    failed = [r for r in runs if r.status != RunStatus.SUCCEEDED]
    outcome = "failed" if failed else "finished"
    url = f"{settings.SITE_URL}/submissions/{submission.pk}/"
    lines = [f"Your submission of {submission.model.hub_id} ({submission.revision_sha[:12]}) has {outcome}.", url]
    for r in failed:
        lines.append(f"- {r.get_split_display()} run {r.pk}: {r.failure_code or r.status}. {r.failure_reason}")
    if submission.submitter.email:
        send_mail(f"[Mobile-MMLU Leaderboard] {submission.model.hub_id}: {outcome}", "\n".join(lines),
                  settings.DEFAULT_FROM_EMAIL, [submission.submitter.email])
    if submission.webhook_url:
        payload = {"submission": submission.pk, "model": submission.model.hub_id, "status": outcome, "url": url,
                   "runs": [{"id": r.pk, "split": r.split, "status": r.status, "failure_code": r.failure_code}
                            for r in runs]}
        request = urllib.request.Request(submission.webhook_url, data=json.dumps(payload).encode(),
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT).close()
        except OSError as exc:  # a dead webhook must not fail the run
            log.warning("webhook for submission %s failed: %s", submission.pk, exc)
