"""Notices when a submission ends, and the operator commands."""
import json

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.management import CommandError, call_command

from leaderboard.evaluations.models import EvaluationRun, FailureCode, RunStatus
from leaderboard.evaluations.notices import run_notify
from leaderboard.hub.ids import ModelRef
from leaderboard.submissions.services import submission_create

pytestmark = pytest.mark.django_db


def test_it_notifies_once_by_mail_and_webhook_with_the_reason(author, hub_model, tls_webhook):
    received = tls_webhook.received
    submission = submission_create(user=author, ref=ModelRef("demo-org/tiny"), webhook_url=tls_webhook.url())
    validation, test = submission.runs.order_by("pk")
    EvaluationRun.objects.filter(pk=validation.pk).update(status=RunStatus.SUCCEEDED)
    run_notify(run_id=validation.pk)
    assert mail.outbox == [] and received == []  # the test run is still queued

    EvaluationRun.objects.filter(pk=test.pk).update(status=RunStatus.FAILED, failure_code=FailureCode.OUT_OF_MEMORY,
                                                    failure_reason="OUT_OF_MEMORY after 3 attempts.")
    run_notify(run_id=test.pk)
    run_notify(run_id=test.pk)  # a repeated task sends nothing more
    assert len(mail.outbox) == 1 and "failed" in mail.outbox[0].subject
    assert "OUT_OF_MEMORY" in mail.outbox[0].body and mail.outbox[0].to == ["author@example.com"]
    assert len(received) == 1 and received[0]["json"]["status"] == "failed"
    assert {r["failure_code"] for r in received[0]["json"]["runs"]} == {"", "OUT_OF_MEMORY"}


def test_submit_command_works_and_reports_refusals(author, hub_model, capsys):
    call_command("submit", "demo-org/tiny", "--user", "author")
    assert json.loads(capsys.readouterr().out)["revision_sha"] == hub_model.sha
    with pytest.raises(CommandError, match="DUPLICATE"):
        call_command("submit", "demo-org/tiny", "--user", "author")
    with pytest.raises(CommandError, match="INVALID_ID"):
        call_command("submit", "bad id", "--user", "author")


def test_rerun_and_runs_commands(author, hub_model, capsys):
    staff = User.objects.create_user("ops", "ops@example.com", "pw", is_staff=True)
    submission = submission_create(user=author, ref=ModelRef("demo-org/tiny"))
    EvaluationRun.objects.filter(submission=submission, split="test").update(status=RunStatus.FAILED,
                                                                              failure_code="TIMEOUT")
    call_command("rerun", "--submission", str(submission.pk), "--failed-only", "--reason", "retry", "--user", staff.username)
    assert "queued" in capsys.readouterr().out
    assert EvaluationRun.objects.filter(submission=submission).count() == 3
    call_command("runs", "--status", "failed")
    listing = capsys.readouterr().out
    assert "TIMEOUT" in listing and "demo-org/tiny" in listing
    with pytest.raises(CommandError, match="^NO_STAFF_USER: no staff user"):
        call_command("rerun", "--submission", str(submission.pk), "--reason", "x", "--user", author.username)
