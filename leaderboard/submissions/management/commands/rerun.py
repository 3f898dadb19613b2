from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from leaderboard.core.cli import refused

from leaderboard.evaluations.admin_services import run_rerun
from leaderboard.evaluations.models import EvaluationRun, RunStatus


class Command(BaseCommand):
    help = "Re-run evaluation runs (new run rows; the old ones stay). Writes an audit record per run."

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--run", type=int, action="append", help="run id (repeatable)")
        target.add_argument("--submission", type=int, help="every run of this submission")
        parser.add_argument("--failed-only", action="store_true")
        parser.add_argument("--reason", required=True, help="why; recorded in the audit log")
        parser.add_argument("--user", required=True, help="the staff username doing it")

    def handle(self, *args, **o):
        actor = get_user_model().objects.filter(username=o["user"], is_staff=True).first()
        if actor is None:
            raise refused("NO_STAFF_USER", f"no staff user {o['user']!r}.",
                          "Name an account with staff rights (createsuperuser, or the admin's users page).")
        runs = EvaluationRun.objects.filter(pk__in=o["run"]) if o["run"] else EvaluationRun.objects.filter(
            submission_id=o["submission"])
        if o["failed_only"]:
            runs = runs.filter(status=RunStatus.FAILED)
        runs = list(runs)
        if not runs:
            raise refused("NO_MATCHING_RUNS", "no run matches these options.",
                          "Check the run or submission id (manage.py runs lists them); "
                          "--failed-only keeps failed runs.")
        for run in runs:
            new = run_rerun(run, actor=actor, reason=o["reason"])
            self.stdout.write(f"run {run.pk} -> new run {new.pk} queued")
