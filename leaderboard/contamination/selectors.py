"""Reads of the contamination monitor: the board (latest Δ per model revision), a model's Δ history,
the board-wide mean Δ over time, flags for the leaderboard, and the Ladder rule's shown test runs.

Every figure is derived from stored counts with the δ₀ in force now. Figures are percentage
points. Published Δ, SE, CI, z, p and q use the test accuracy as published (0.1 point), never the exact
count, so together they say no more about the sealed split than that figure does; the validation side is
reweighted to the test split's topic mix (the split's topic sizes are public). The flag is judged across the
board: Benjamini–Hochberg q-values of the one-sided p-values, flagged when −z > 3 and q < 0.05 (stats).

Per-topic Δ values are not published: with the validation accuracy public, a topic's Δ would give its sealed
test accuracy, which the display rules withhold. Nor does anything published read a per-topic test count: for a
model flagged overall, the units (small topics pooled by subcategory or category) whose validation count is
significantly above what its published test figure and δ₀ predict are named (exact binomial test, Holm;
stats.topic_evidence). A test run the Ladder rule did not show (a newer revision without a significant gain) is
left out of the board and the history: its Δ would give its test score.
"""
from collections import defaultdict

from django.db.models import Q
from django.utils import timezone

from evaluator.statistics import wilson_interval
from leaderboard.benchmarks.models import Topic
from leaderboard.benchmarks.sealed_grid import publish
from leaderboard.core.rows import first_per_key
from leaderboard.evaluations import display
from leaderboard.submissions.models import ModelEntry

from . import stats
from .ladder import withheld_test_runs
from .models import DeltaOffset, DeltaPoint

def delta0(*, benchmark, shots: int, version=None) -> float:
    """The δ₀ value in force: of `version` when given (else its benchmark-wide row), else the newest row."""
    rows = DeltaOffset.objects.filter(benchmark=benchmark, shots=shots)
    if version is not None:
        offset = rows.filter(benchmark_version=version).first() or rows.filter(benchmark_version=None).first()
    else:
        offset = rows.first()
    return offset.value if offset else 0.0


class _Offsets:
    """The δ₀ rows of one (benchmark, shots): per version, the newest; a point of a version without one gets the
    newest row that names no version. A reference model is judged against the other references only."""

    def __init__(self, benchmark, shots):
        rows = DeltaOffset.objects.filter(benchmark=benchmark, shots=shots).order_by("-set_at", "-pk")
        self.rows = {row.benchmark_version_id: row for row in first_per_key(rows, "benchmark_version_id")}

    def row_for(self, point):
        return self.rows.get(point.benchmark_version_id) or self.rows.get(None)

    def for_point(self, point) -> tuple[float, float]:
        row = self.row_for(point)
        if row is None:
            return 0.0, 0.0
        me = f"{point.hub_id}@{point.revision}"
        refs = row.reference_deltas or []
        if any(r.get("model") == me for r in refs):
            return stats.delta0_from_reference([(r["delta"], r["se"]) for r in refs if r.get("model") != me])
        return row.value, row.se


def topic_tree(*, benchmark) -> dict:
    """topic slug -> (subcategory key, subcategory name, category key, category name); keys as the aggregates'."""
    return {slug: (f"{cat}/{sub}", sub_name, cat, cat_name) for slug, sub, sub_name, cat, cat_name in
            Topic.objects.filter(benchmark=benchmark).values_list(
                "slug", "subcategory__slug", "subcategory__name", "subcategory__category__slug",
                "subcategory__category__name")}


def published_points(points):
    """Points whose both runs are published: not hidden, and the test run not withheld by the Ladder rule."""
    hidden_models = ModelEntry.objects.filter(hidden=True).values("hub_id")
    return (points.filter(validation_run__hidden=False, test_run__hidden=False)
            .exclude(hub_id__in=hidden_models).exclude(test_run_id__in=withheld_test_runs())
            .exclude(Q(validation_run__submission__hidden=True) | Q(test_run__submission__hidden=True)))


def _topic_names(point) -> dict:
    return {slug: v[0] for slug, v in (point.topic_counts or {}).items()}


def reweighted_validation(point, *, tree) -> stats.Reweighted | None:
    """The validation accuracy reweighted to the test split's topic mix: strata from the topic sizes (public),
    validation counts (public); no sealed count is read."""
    counts = point.topic_counts or {}
    sizes = {slug: (v[2], v[4]) for slug, v in counts.items()}
    groups = stats.strata(sizes, _topic_names(point), tree)
    return stats.reweight([(sum(counts[t][1] for t in g), sum(counts[t][2] for t in g), sum(counts[t][4] for t in g))
                           for g in groups])


def published_delta(point, offset=(0.0, 0.0), *, tree) -> stats.Delta:
    """Δ and friends from the published figures only: the validation counts (reweighted to the test split's topic
    mix when topics are known) and the test accuracy as published on its grid, whose rounding error is in SE."""
    value, se0 = offset
    figure = publish(point.correct_t, point.n_t)
    p_t, extra = figure.fraction, {"delta0_se": se0, "var_rounding": figure.rounding_variance}
    rw = reweighted_validation(point, tree=tree)
    if rw is None:
        return stats.delta_from(point.correct_v / point.n_v, point.n_v, p_t, point.n_t, value, **extra)
    return stats.delta_from(rw.accuracy, rw.n, p_t, point.n_t, value, var_v=rw.variance,
                            n_v_effective=rw.n_effective, **extra)


def _pt(x, places=1):
    return round(100 * x, places)


def _sig(x, digits=3):
    """A p- or q-value to `digits` significant figures."""
    return float(f"{x:.{digits}g}")


def _probe(point):
    """The memorization probe of the open split: exact matches among its masked wrong options, with a Wilson
    interval. Nothing of the sealed split's probe is read: its kept items are a fact about the answer key and its
    matches a count over sealed option texts, a second sealed figure per run (ARCHITECTURE §6)."""
    counts = (point.probe or {}).get("validation")
    if not counts or not counts.get("n"):
        return None
    lo, hi = wilson_interval(counts["exact"], counts["n"])
    return {"validation": {"n": counts["n"], "exact": counts["exact"], "rate": _pt(counts["exact"] / counts["n"]),
                           "ci95_low": _pt(lo), "ci95_high": _pt(hi)}}


def _topics(point, judged, tree):
    """Per-topic evidence from public inputs only: the validation counts and question counts per topic, and, for a
    model flagged overall, the validation accuracy its published test figure and δ₀ predict. The per-topic test
    counts the point stores are not passed on: a name derived from them would pin them (stats.topic_evidence)."""
    counts = point.topic_counts or {}
    validation = {slug: (cv, nv, nt) for slug, (_, cv, nv, _, nt) in counts.items()}
    expected = None
    if judged.flagged:
        top = publish(point.correct_t, point.n_t).counts()[-1] / point.n_t
        expected = stats.expected_validation(top, judged.delta.delta0)
    evidence = stats.topic_evidence(validation, _topic_names(point), tree, expected=expected)
    return {"tested": evidence.tested, "alpha": stats.HOLM_ALPHA, "correction": "holm",
            "test": "binomial-exact-one-sided", "topics": evidence.topics, "pooled": evidence.pooled,
            "untested": evidence.untested, "expected": None if expected is None else _pt(expected, 2),
            "significant": [{"topic_slug": u.key, "topic": u.name, "level": u.level, "members": list(u.members)}
                            for u in evidence.named]}


class _Judged:
    """A point's published Δ statistics with its q-value on the board; flagged when −z > 3 and q < BH_Q."""

    def __init__(self, point, delta, q, flagged=None):
        self.point, self.delta, self.q = point, delta, q
        self.flagged = (delta.flagged and q < stats.BH_Q) if flagged is None else flagged


_MODEL_KEY = ("hub_id", "revision", "precision")


def _model_key(point):
    return tuple(getattr(point, name) for name in _MODEL_KEY)


class Board:
    """The latest visible point of each model revision on (benchmark, shots), judged together: the family of the
    Benjamini–Hochberg correction. Another point (a withheld test run, an older point) is judged as if it took
    its model revision's place on this board, so it never changes the published q-values of the others."""

    def __init__(self, *, benchmark, shots: int):
        self.benchmark, self.shots = benchmark, shots
        self.tree = topic_tree(benchmark=benchmark)
        self.offsets = _Offsets(benchmark, shots)
        points = (published_points(DeltaPoint.objects.filter(benchmark=benchmark, shots=shots))
                  .select_related("benchmark"))
        self.points = _latest_points(points)
        deltas = [self.delta(p) for p in self.points]
        self.judged = [_Judged(p, d, q, flagged)
                       for p, d, (q, flagged) in zip(self.points, deltas, stats.board_judgement(deltas))]
        self.by_key = {_model_key(j.point): j for j in self.judged}

    def delta(self, point) -> stats.Delta:
        return published_delta(point, self.offsets.for_point(point), tree=self.tree)

    def judge(self, point) -> _Judged:
        mine = self.by_key.get(_model_key(point))
        if mine is not None and mine.point.pk == point.pk:
            return mine
        d = self.delta(point)
        others = [j.delta.p_lower for j in self.judged if j is not mine]
        return _Judged(point, d, stats.bh_q_of(d.p_lower, others))


def point_row(point, judged: _Judged, tree) -> dict:
    d, q = judged.delta, judged.q
    reasons = []
    if judged.flagged:
        reasons.append(f"validation accuracy (reweighted to the test split's topic mix) is above test by more than "
                       f"3 standard errors (z = {d.z:.2f}, δ₀ = {_pt(d.delta0, 2):+.2f} pt), and stays significant "
                       f"across the board (Benjamini–Hochberg q = {_sig(q, 2)})")
    p_t = publish(point.correct_t, point.n_t).fraction
    return {
        "hub_id": point.hub_id, "revision": point.revision, "precision": point.precision,
        "benchmark": point.benchmark.slug, "shots": point.shots, "variant": "original",
        "validation_run_id": point.validation_run_id, "test_run_id": point.test_run_id,
        "validation": display.cell(split="validation", n=point.n_v, correct=point.correct_v),
        "test": display.cell(split="test", n=point.n_t, correct=point.correct_t),
        "delta": _pt(d.delta), "se": _pt(d.se, 2), "ci95_low": _pt(d.ci95_low), "ci95_high": _pt(d.ci95_high),
        "delta0": _pt(d.delta0, 2), "z": round(d.z, 2), "flagged": judged.flagged, "flag_reasons": reasons,
        "validation_reweighted": _pt(d.validation, 2), "delta_unweighted": _pt(p_t - point.correct_v / point.n_v),
        "delta0_se": _pt(d.delta0_se, 2), "p_value": _sig(d.p_lower), "q_value": _sig(q),
        "topics": _topics(point, judged, tree), "probe": _probe(point), "computed_at": point.computed_at,
    }


def _latest_points(points):
    """The latest point of each model revision (hub id, revision, precision), newest first."""
    return first_per_key(points.order_by("-computed_at", "-pk"), *_MODEL_KEY)


def board(*, benchmark, shots: int = 0, flagged: bool | None = None) -> list[dict]:
    """The latest Δ of each model revision, most suspicious (lowest z) first."""
    judged = Board(benchmark=benchmark, shots=shots)
    rows = [point_row(j.point, j, judged.tree) for j in judged.judged]
    if flagged is not None:
        rows = [r for r in rows if r["flagged"] == flagged]
    return sorted(rows, key=lambda r: (r["z"], r["hub_id"]))


def board_history(*, benchmark, shots: int = 0) -> list[dict]:
    """Per day with new points: the mean Δ over every model revision's latest point as of that day's end."""
    tree = topic_tree(benchmark=benchmark)
    points = list(published_points(DeltaPoint.objects.filter(benchmark=benchmark, shots=shots))
                  .order_by("computed_at", "pk").only("hub_id", "revision", "precision", "computed_at", "correct_v",
                                                      "n_v", "correct_t", "n_t", "topic_counts"))
    latest, series = {}, []
    by_day = defaultdict(list)
    for p in points:
        by_day[timezone.localdate(p.computed_at)].append(p)
    for day in sorted(by_day):
        for p in by_day[day]:
            latest[_model_key(p)] = published_delta(p, tree=tree).delta
        values = list(latest.values())
        series.append({"date": day, "mean_delta": _pt(sum(values) / len(values)), "models": len(values)})
    return series


def model_contamination(*, hub_id: str) -> dict:
    points = list(published_points(DeltaPoint.objects.filter(hub_id=hub_id)).select_related("benchmark")
                  .order_by("-computed_at", "-pk"))
    boards = {}

    def board_for(p):
        key = (p.benchmark_id, p.shots)
        if key not in boards:
            boards[key] = Board(benchmark=p.benchmark, shots=p.shots)
        return boards[key]

    latest = []
    for p in first_per_key(points, "benchmark_id", "shots", "revision", "precision"):  # newest first in
        b = board_for(p)
        latest.append(point_row(p, b.judge(p), b.tree))
    history = []
    for p in reversed(points):
        j = board_for(p).judge(p)
        d = j.delta
        history.append({"computed_at": p.computed_at, "revision": p.revision, "precision": p.precision,
                        "benchmark": p.benchmark.slug, "shots": p.shots, "delta": _pt(d.delta), "se": _pt(d.se, 2),
                        "z": round(d.z, 2), "q_value": _sig(j.q), "flagged": j.flagged})
    return {"hub_id": hub_id, "latest": latest, "history": history}
