"""Plain words for submissions and runs (the status, my-submissions and queue pages): what state a run is in,
how far it got in questions, when it should end, and a submission's runs grouped so that re-runs read as
history in order."""
from leaderboard.submissions.models import size_class

STATUS_WORDS = {"queued": "waiting in the queue", "running": "running", "scoring": "scoring the answers",
                "succeeded": "finished", "failed": "failed", "cancelled": "cancelled"}
DONE = ("succeeded", "failed", "cancelled")
SIZE_WORDS = {"mini": "Mini (< 5B)", "small": "Small (5–13B)", "medium": "Medium (13–50B)", "large": "Large (≥ 50B)"}


def status_words(status) -> str:
    return STATUS_WORDS.get(status, status)


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def queue_words(position) -> str:
    ahead = position - 1
    behind = f"{ahead} run{'s' if ahead != 1 else ''} ahead of it" if ahead else "nothing ahead of it"
    return f"{ordinal(position)} in the queue ({behind})"


def progress_words(done: int, total: int, orders: int) -> str:
    """"questions scored 1,152 of 4,320" (each question once per answer order); "" before the run has a plan."""
    if not total:
        return ""
    text = f"questions scored {done:,} of {total:,}"
    if orders > 1 and total % orders == 0:
        text += f" ({total // orders:,} questions × {orders} answer orders)"
    return text


def eta_words(seconds) -> str | None:
    if seconds is None:
        return None
    if seconds < 60:
        return "less than a minute"
    minutes = round(seconds / 60)
    if minutes < 90:
        return f"about {minutes} min"
    hours, rest = divmod(minutes, 60)
    return f"about {hours} h" + (f" {rest} min" if rest and hours < 10 else "")


def size_words(params) -> str:
    return SIZE_WORDS.get(size_class(params), "size unknown")


def run_view(run: dict) -> dict:
    """A run of the submission API's output (RunStatusSerializer) in words."""
    orders = len(run.get("variants") or []) or 1
    return {**run, "status_words": status_words(run["status"]), "done": run["status"] in DONE,
            "progress_words": progress_words(run["items_done"], run["items_total"], orders),
            "eta_words": eta_words(run["eta_seconds"]),
            "queue_words": queue_words(run["queue_position"]) if run["queue_position"] else ""}


def grouped_runs(runs: list[dict], names: dict | None = None) -> list[dict]:
    """One group per benchmark and split: the current run(s) first, then the runs an admin re-ran, oldest
    first, each saying which run replaced it. Failures matter only for current runs. `names`: benchmark slug ->
    display name."""
    replaced_by = {r["rerun_of"]: r["id"] for r in runs if r["rerun_of"]}
    groups = {}
    for run in sorted(runs, key=lambda r: r["id"]):
        view = {**run_view(run), "replaced_by": replaced_by.get(run["id"])}
        group = groups.setdefault((run["benchmark"], run["split"]), {
            "benchmark": run["benchmark"], "name": (names or {}).get(run["benchmark"], run["benchmark"]),
            "split": run["split"], "current": [], "earlier": []})
        group["earlier" if view["replaced_by"] else "current"].append(view)
    return list(groups.values())


def summary(status: str, groups: list[dict]) -> dict:
    """The headline: status, where the submission stands and when it should end."""
    current = [r for g in groups for r in g["current"]]
    positions = [r["queue_position"] for r in current if r["queue_position"]]
    etas = [r["eta_seconds"] for r in current if r["eta_seconds"] is not None]
    if status in DONE:
        where, eta = "all runs have ended", "done"
    elif any(r["status"] in ("running", "scoring") for r in current):
        waiting = len(positions)
        where = "running now" + (f"; {waiting} more run{'s' if waiting != 1 else ''} of it waiting" if waiting else "")
        eta = eta_words(max(etas)) if etas else "not known yet"
    else:
        where = queue_words(min(positions)) if positions else "waiting to be queued"
        eta = eta_words(max(etas)) if etas else "not known yet: no finished run to time it by"
    return {"status": status, "status_words": status_words(status), "where": where, "eta": eta,
            "done": status in DONE}
