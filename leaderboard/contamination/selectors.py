"""Reads of the contamination monitor: the board (latest Δ per model revision), a model's Δ history,
the board-wide mean Δ over time, flags for the leaderboard, and the Ladder rule's shown test runs.

Every figure is derived from stored counts with the δ₀ in force now. Figures are percentage
points. Published Δ, SE, CI and z use the test accuracy as published (0.1 point), never the exact
count, so together they say no more about the sealed split than that figure does. Per-topic Δ
values are not published: with the validation accuracy public, a topic's Δ would give its sealed
test accuracy, which the display rules withhold; only which topics stay significant after the Holm
correction is published. A test run the Ladder rule did not show (a newer revision without a
significant gain) is left out of the board and the history: its Δ would give its test score.
"""
from collections import defaultdict

from django.db.models import Q
from django.utils import timezone

from evaluator.metrics import wilson_interval
from leaderboard.results import display
from leaderboard.submissions.models import ModelEntry

from . import stats
from .models import DeltaOffset, DeltaPoint, LadderDecision, TestScoreDisplay

PROBE_Z = 3.0


def delta0(*, benchmark, shots: int) -> float:
    offset = DeltaOffset.objects.filter(benchmark=benchmark, shots=shots).first()
    return offset.value if offset else 0.0


def withheld_test_runs():
    """Sealed-split runs the Ladder rule judged and did not show: their test figures are never published."""
    return LadderDecision.objects.filter(moved=False).values("candidate_run_id")


def _visible(points):
    hidden_models = ModelEntry.objects.filter(hidden=True).values("hub_id")
    return (points.filter(validation_run__hidden=False, test_run__hidden=False)
            .exclude(hub_id__in=hidden_models).exclude(test_run_id__in=withheld_test_runs())
            .exclude(Q(validation_run__submission__hidden=True) | Q(test_run__submission__hidden=True)))


def _published(correct_v, n_v, correct_t, n_t, offset=0.0):
    """Δ and friends from the validation count and the test accuracy rounded as published (0.1 point)."""
    return stats.delta_from(correct_v / n_v, n_v, round(correct_t / n_t, 3), n_t, offset)


def _published_stats(point, offset):
    return _published(point.correct_v, point.n_v, point.correct_t, point.n_t, offset)


def _pt(x, places=1):
    return round(100 * x, places)


def _probe_block(counts):
    if not counts or not counts.get("n"):
        return None
    lo, hi = wilson_interval(counts["exact"], counts["n"])
    return {"n": counts["n"], "exact": counts["exact"], "rate": _pt(counts["exact"] / counts["n"]),
            "ci95_low": _pt(lo), "ci95_high": _pt(hi)}


def _probe(point):
    v, t = _probe_block(point.probe.get("validation")), _probe_block(point.probe.get("test"))
    if v is None and t is None:
        return None
    excess = z = None
    if v and t:
        pv, pt = point.probe["validation"], point.probe["test"]
        excess = _pt(pv["exact"] / pv["n"] - pt["exact"] / pt["n"])
        z = stats.two_proportion_z(pv["exact"], pv["n"], pt["exact"], pt["n"])
        z = round(z, 2) if z is not None else None
    return {"validation": v, "test": t, "excess": excess, "z": z}


def _topics(point, offset):
    tested = [(slug, name, cv, nv, ct, nt) for slug, (name, cv, nv, ct, nt) in sorted(point.topic_counts.items())
              if nv and nt]
    p_values = [stats.delta_stats(cv, nv, ct, nt, offset).p_lower for _, _, cv, nv, ct, nt in tested]
    _, rejected = stats.holm(p_values)
    return {"tested": len(tested), "alpha": stats.HOLM_ALPHA, "correction": "holm",
            "significant": [{"topic_slug": t[0], "topic": t[1]} for t, r in zip(tested, rejected) if r]}


def point_row(point, offset: float) -> dict:
    d = _published_stats(point, offset)
    probe = _probe(point)
    reasons = []
    if d.flagged:
        reasons.append(f"validation accuracy is above test by more than 3 standard errors "
                       f"(z = {d.z:.2f}, δ₀ = {_pt(offset, 2):+.2f} pt)")
    if probe and probe["z"] is not None and probe["z"] > PROBE_Z:
        reasons.append(f"memorization probe: masked options reproduced on validation "
                       f"{probe['validation']['rate']}% vs test {probe['test']['rate']}% (z = {probe['z']:.2f})")
    return {
        "hub_id": point.hub_id, "revision": point.revision, "precision": point.precision,
        "benchmark": point.benchmark.slug, "shots": point.shots, "variant": "original",
        "validation_run_id": point.validation_run_id, "test_run_id": point.test_run_id,
        "validation": display.cell(split="validation", n=point.n_v, correct=point.correct_v),
        "test": display.cell(split="test", n=point.n_t, correct=point.correct_t),
        "delta": _pt(d.delta), "se": _pt(d.se, 2), "ci95_low": _pt(d.ci95_low), "ci95_high": _pt(d.ci95_high),
        "delta0": _pt(offset, 2), "z": round(d.z, 2), "flagged": d.flagged, "flag_reasons": reasons,
        "topics": _topics(point, offset), "probe": probe, "computed_at": point.computed_at,
    }


def _latest_points(points):
    seen, out = set(), []
    for p in points.order_by("-computed_at", "-pk"):
        key = (p.hub_id, p.revision, p.precision)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def board(*, benchmark, shots: int = 0, flagged: bool | None = None) -> list[dict]:
    """The latest Δ of each model revision, most suspicious (lowest z) first."""
    offset = delta0(benchmark=benchmark, shots=shots)
    points = _visible(DeltaPoint.objects.filter(benchmark=benchmark, shots=shots)).select_related("benchmark")
    rows = [point_row(p, offset) for p in _latest_points(points)]
    if flagged is not None:
        rows = [r for r in rows if r["flagged"] == flagged]
    return sorted(rows, key=lambda r: (r["z"], r["hub_id"]))


def board_history(*, benchmark, shots: int = 0) -> list[dict]:
    """Per day with new points: the mean Δ over every model revision's latest point as of that day's end."""
    points = list(_visible(DeltaPoint.objects.filter(benchmark=benchmark, shots=shots))
                  .order_by("computed_at", "pk").values("hub_id", "revision", "precision", "computed_at",
                                                        "correct_v", "n_v", "correct_t", "n_t"))
    latest, series = {}, []
    by_day = defaultdict(list)
    for p in points:
        by_day[timezone.localdate(p["computed_at"])].append(p)
    for day in sorted(by_day):
        for p in by_day[day]:
            latest[(p["hub_id"], p["revision"], p["precision"])] = _published(
                p["correct_v"], p["n_v"], p["correct_t"], p["n_t"]).delta
        values = list(latest.values())
        series.append({"date": day, "mean_delta": _pt(sum(values) / len(values)), "models": len(values)})
    return series


def model_contamination(*, hub_id: str) -> dict:
    points = list(_visible(DeltaPoint.objects.filter(hub_id=hub_id)).select_related("benchmark")
                  .order_by("-computed_at", "-pk"))
    offsets = {}

    def offset_for(p):
        key = (p.benchmark_id, p.shots)
        if key not in offsets:
            offsets[key] = delta0(benchmark=p.benchmark, shots=p.shots)
        return offsets[key]

    seen, latest = set(), []
    for p in points:
        key = (p.benchmark_id, p.shots, p.revision, p.precision)
        if key not in seen:
            seen.add(key)
            latest.append(point_row(p, offset_for(p)))
    history = []
    for p in reversed(points):
        d = _published_stats(p, offset_for(p))
        history.append({"computed_at": p.computed_at, "revision": p.revision, "precision": p.precision,
                        "benchmark": p.benchmark.slug, "shots": p.shots, "delta": _pt(d.delta), "se": _pt(d.se, 2),
                        "z": round(d.z, 2), "flagged": d.flagged})
    return {"hub_id": hub_id, "latest": latest, "history": history}


def flags(*, benchmark, shots: int) -> dict[tuple[str, str, str], bool]:
    """(hub_id, revision, precision) -> possible contamination, for the leaderboard's rows."""
    offset = delta0(benchmark=benchmark, shots=shots)
    out = {}
    points = DeltaPoint.objects.filter(benchmark=benchmark, shots=shots, validation_run__hidden=False,
                                       test_run__hidden=False).order_by("-computed_at", "-pk")
    for hub_id, revision, precision, cv, nv, ct, nt in points.values_list(
            "hub_id", "revision", "precision", "correct_v", "n_v", "correct_t", "n_t"):
        # the latest point of each; a boolean only, so withheld (Ladder) test runs count too
        out.setdefault((hub_id, revision, precision), _published(cv, nv, ct, nt, offset).flagged)
    return out


def shown_test_runs(*, benchmark, shots: int) -> dict[tuple[str, str], int]:
    """(hub_id, precision) -> the sealed-split run id the board shows (the Ladder rule's choice)."""
    return {(d.hub_id, d.precision): d.run_id
            for d in TestScoreDisplay.objects.filter(benchmark=benchmark, shots=shots)}


def ladder_notes(*, benchmark, shots: int) -> dict[int, str]:
    """shown run id -> why newer test runs of the model are not shown (the decisions that kept it)."""
    kept = {}
    for d in (LadderDecision.objects.filter(display__benchmark=benchmark, display__shots=shots, moved=False)
              .select_related("display", "candidate_run").order_by("decided_at", "pk")):
        if d.display.run_id == d.shown_run_id:
            revisions = kept.setdefault(d.shown_run_id, [])
            if (d.candidate_run.model_revision[:12] or "?") not in revisions:
                revisions.append(d.candidate_run.model_revision[:12] or "?")
    # No figures: the candidates' test scores stay unpublished (that is the point of the Ladder rule).
    return {run_id: (f"later test run(s) of revision {', '.join(revisions)} showed no paired gain above the Ladder "
                     f"threshold s/√n over the shared questions, so the board keeps this figure and does not "
                     f"publish theirs")
            for run_id, revisions in kept.items()}
