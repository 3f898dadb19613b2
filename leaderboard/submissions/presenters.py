"""Submission and run status as the author sees it (API and status page share this)."""
from leaderboard.benchmarks.models import SEALED_SPLITS
from leaderboard.evaluations.display import public_summary
from leaderboard.evaluations.models import RunStatus

from . import selectors


def run_status(run) -> dict:
    progress = selectors.run_progress(run=run)
    failure = None
    if run.status in (RunStatus.FAILED, RunStatus.CANCELLED) or (run.failure_code and run.status == RunStatus.QUEUED):
        failure = {"code": run.failure_code or run.status.upper(), "reason": run.failure_reason,
                   "log_excerpt": run.log_excerpt}
    withheld = _withheld(run)
    accuracy = None if withheld else _accuracy(run)
    previous = run.rerun_of
    before = None if previous is None or _withheld(previous) else _accuracy(previous)
    change = None
    if accuracy is not None and before is not None:
        if run.split in SEALED_SPLITS:  # the difference of the two published figures, nothing finer
            change = round(accuracy - before, 1)
        else:  # open splits: from the unrounded fractions, so display rounding does not skew it
            change = round(100 * (run.summary["overall"]["accuracy"] - previous.summary["overall"]["accuracy"]), 1)
    return {"id": run.pk, "benchmark": run.benchmark_version.benchmark.slug, "split": run.split,
            "variants": run.variants, "status": run.status, "attempts": run.attempts, **progress,
            "accuracy": accuracy, "rerun_of": previous.pk if previous else None, "accuracy_change": change,
            "accuracy_note": WITHHELD_NOTE if withheld else "", "failure": failure}


WITHHELD_NOTE = ("not published: the Ladder rule publishes a later sealed test figure of a model only when its "
                 "paired gain over the model's best published one is significant, and each account has a budget "
                 "of published figures per window, so this test score stays sealed")


def _withheld(run) -> bool:
    if run.split not in SEALED_SPLITS:
        return False
    from leaderboard.contamination.selectors import withheld_test_runs

    return withheld_test_runs().filter(candidate_run_id=run.pk).exists()


def _accuracy(run):
    if run.status == RunStatus.SUCCEEDED and run.summary:
        return public_summary(split=run.split, summary=run.summary)["accuracy"]
    return None


def submission_status(submission) -> dict:
    runs = submission.runs.select_related("benchmark_version__benchmark", "rerun_of").order_by("pk")
    return {
        "id": submission.pk, "kind": submission.kind, "hub_id": submission.model.hub_id,
        "revision": submission.revision, "revision_sha": submission.revision_sha,
        "precision": submission.precision, "model_type": submission.model_type,
        "use_chat_template": submission.use_chat_template, "benchmarks": submission.benchmarks,
        "status": selectors.submission_status(submission=submission), "created_at": submission.created_at,
        "runs": [run_status(run) for run in runs],
    }
