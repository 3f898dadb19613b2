from django.core.management.base import BaseCommand

from leaderboard.evaluations.models import EvaluationRun, RunStatus


class Command(BaseCommand):
    help = "List evaluation runs with their states (newest first)."

    def add_arguments(self, parser):
        parser.add_argument("--status", choices=RunStatus.values)
        parser.add_argument("--limit", type=int, default=50)

    def handle(self, *args, **o):
        runs = EvaluationRun.objects.select_related("benchmark_version__benchmark").order_by("-pk")
        if o["status"]:
            runs = runs.filter(status=o["status"])
        self.stdout.write(f"{'id':>6} {'status':<10} {'split':<10} {'progress':>11} {'tries':>5}  model")
        for run in runs[: o["limit"]]:
            progress = f"{run.progress_done}/{run.progress_total}"
            self.stdout.write(f"{run.pk:>6} {run.status:<10} {run.split:<10} {progress:>11} {run.attempts:>5}  "
                              f"{run.model_ref}{'  ' + run.failure_code if run.failure_code else ''}")
