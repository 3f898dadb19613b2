"""Prometheus figures of evaluation runs, read from the database at scrape time (so they are right whichever
process is scraped). Registered into /metrics by this app's AppConfig.ready (leaderboard.core.metrics)."""
import logging
from datetime import timedelta

from django.db import DatabaseError
from django.db.models import Count, DurationField, ExpressionWrapper, F, Min, Q, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from .models import EvaluationRun, FailureCode, RunStatus

log = logging.getLogger(__name__)

RUN_DURATION_BUCKETS = (60, 300, 900, 1800, 3600, 7200, 14400, 21600, 43200)  # seconds; +Inf added


class RunCollector:
    """Runs by state, run duration and failures by reason, from the database at scrape time."""

    def collect(self):
        try:
            families = list(self._families())
        except DatabaseError as exc:
            log.warning("metrics: database unreachable: %s", type(exc).__name__)
            families = []
        up = GaugeMetricFamily("leaderboard_metrics_database_up", "1 if the database answered this scrape.")
        up.add_metric([], 1 if families else 0)
        yield up
        yield from families

    def _families(self):
        runs = EvaluationRun.objects.all()
        by_state = dict(runs.values_list("status").annotate(n=Count("pk")).order_by())
        states = GaugeMetricFamily("leaderboard_runs", "Evaluation runs by state.", labels=["state"])
        for state in RunStatus.values:
            states.add_metric([state], by_state.get(state, 0))
        yield states

        oldest = runs.filter(status=RunStatus.QUEUED).aggregate(t=Min("enqueued_at"))["t"]
        waiting = GaugeMetricFamily("leaderboard_oldest_queued_run_age_seconds",
                                    "Age of the longest-waiting queued run (0 when none waits).")
        waiting.add_metric([], max(0.0, (timezone.now() - oldest).total_seconds()) if oldest else 0.0)
        yield waiting

        failures = CounterMetricFamily("leaderboard_run_failures", "Runs that ended FAILED, by failure code.",
                                       labels=["reason"])
        by_code = dict(runs.filter(status=RunStatus.FAILED).values_list("failure_code")
                       .annotate(n=Count("pk")).order_by())
        for code in dict.fromkeys([*FailureCode.values, *by_code]):
            failures.add_metric([code or "UNKNOWN"], by_code.get(code, 0))
        yield failures

        # Last attempt: claim (started_at) to the end of scoring or the failure (finished_at).
        duration = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
        buckets = {f"le_{b}": Count("pk", filter=Q(duration__lte=timedelta(seconds=b))) for b in RUN_DURATION_BUCKETS}
        rows = (runs.filter(status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED], started_at__isnull=False,
                            finished_at__isnull=False)
                .alias(duration=duration).values("status")
                .annotate(count=Count("pk"), total=Sum("duration"), **buckets).order_by())
        histogram = HistogramMetricFamily("leaderboard_run_duration_seconds",
                                          "Duration of finished runs (last attempt, claim to result), by outcome.",
                                          labels=["status"])
        found = {row["status"]: row for row in rows}
        for status in (RunStatus.SUCCEEDED, RunStatus.FAILED):
            row = found.get(status, {})
            counts = [(str(float(b)), row.get(f"le_{b}", 0)) for b in RUN_DURATION_BUCKETS]
            counts.append(("+Inf", row.get("count", 0)))
            total = row.get("total") or timedelta(0)
            histogram.add_metric([status], counts, sum_value=max(total.total_seconds(), 0.0))
        yield histogram
