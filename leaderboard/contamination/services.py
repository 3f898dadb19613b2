"""Writes of the contamination monitor, called on the trusted side when a run has been scored.

`run_scored` adds a Δ point when the run's counterpart split (validation for test, test for
validation) exists for the same model revision, precision, benchmark version and shots, and, for a
sealed-split run, lets the Ladder rule (per submitter and namespace, with a release budget) decide whether
its test figure is published.
"""
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from leaderboard.benchmarks.models import SEALED_SPLITS, Split
from leaderboard.core.audit import audit_record
from leaderboard.core.leases import serialise
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.evaluations.models import UPLOAD_BACKEND, RunStatus
from leaderboard.results.cache import results_changed
from leaderboard.results.models import Level, ResultAggregate, RunResult

from . import stats
from .models import DeltaOffset, DeltaPoint, LadderDecision, LadderReason, TestScoreDisplay

DELTA_VARIANT = "original"


def _counts(result: RunResult) -> tuple[tuple[int, int] | None, dict]:
    overall, topics = None, {}
    for agg in ResultAggregate.objects.filter(result=result, variant=DELTA_VARIANT,
                                              level__in=[Level.OVERALL, Level.TOPIC]):
        if agg.level == Level.OVERALL:
            overall = (agg.correct, agg.n)
        else:
            topics[agg.key] = (agg.name, agg.correct, agg.n)
    return overall, topics


def _counterpart(result: RunResult) -> RunResult | None:
    other = Split.VALIDATION if result.split in SEALED_SPLITS else Split.TEST
    # Paired within one benchmark version: a Δ between two versions' splits would measure the edit, not the model.
    return (RunResult.objects.filter(hub_id=result.hub_id, revision=result.revision, precision=result.precision,
                                     benchmark_id=result.benchmark_id, benchmark_version_id=result.benchmark_version_id,
                                     shots=result.shots, split=other,
                                     run__status=RunStatus.SUCCEEDED, run__hidden=False)
            .exclude(run__backend=UPLOAD_BACKEND).select_related("run").order_by("-scored_at", "-pk").first())


def delta_point_add(*, result: RunResult) -> DeltaPoint | None:
    """The Δ point of a model revision measured on both splits by our own runs. Uploaded predictions never
    pair with a sealed run: whoever controls the validation side could read the sealed counts off Δ."""
    if result.run.backend == UPLOAD_BACKEND:
        return None
    other = _counterpart(result)
    if other is None:
        return None
    val, test = (other, result) if result.split in SEALED_SPLITS else (result, other)
    (v_overall, v_topics), (t_overall, t_topics) = _counts(val), _counts(test)
    if not v_overall or not t_overall:
        return None
    topic_counts = {slug: [name, cv, nv, t_topics[slug][1], t_topics[slug][2]]
                    for slug, (name, cv, nv) in v_topics.items() if slug in t_topics}
    probe = {split: run.summary["probe"] for split, run in (("validation", val.run), ("test", test.run))
             if (run.summary or {}).get("probe")}
    return DeltaPoint.objects.create(
        benchmark_id=result.benchmark_id, benchmark_version_id=result.benchmark_version_id, shots=result.shots,
        hub_id=result.hub_id, revision=result.revision,
        precision=result.precision, validation_run=val.run, test_run=test.run,
        correct_v=v_overall[0], n_v=v_overall[1], correct_t=t_overall[0], n_t=t_overall[1],
        topic_counts=topic_counts, probe=probe, computed_at=timezone.now())


def _correct_by_question(run, rows=None) -> dict[str, bool]:
    """Per-question correctness of the primary variant, recomputed from the stored key (trusted side)."""
    if rows is None:
        from evaluator.engine import rescore_rows

        key = run_selectors.answer_key(version=run.benchmark_version, split=run.split)
        rows = rescore_rows(run_selectors.run_rows(run=run), key)
    return {r["question_id"]: bool(r["correct"]) for r in rows
            if r.get("variant") == DELTA_VARIANT and r.get("correct") is not None}


def _family(result: RunResult) -> tuple[int | None, str]:
    """The Ladder's keys of a sealed run: the submitting account (None for an operator's run), whose budget a
    publication spends, and the model id, lower case (like every hub-id comparison), whose revisions and precisions
    are compared with its best published run."""
    submission = result.run.submission
    return (submission.submitter_id if submission else None), result.hub_id.lower()


def releases_used(*, account_id) -> int:
    """Sealed figures published for an account in the current window (operators' runs have no budget)."""
    since = timezone.now() - timedelta(days=settings.LADDER_WINDOW_DAYS)
    return LadderDecision.objects.filter(account_id=account_id, moved=True, decided_at__gte=since).count()


def ladder_update(*, result: RunResult, rows) -> LadderDecision | None:
    """The Ladder rule (Blum & Hardt, 2015) with a budget per submitter. A model's first sealed run (benchmark,
    shots) is published; a later one, of another revision or precision, only when its paired gain over the model's
    best published run, on the shared questions, passes s/√n. Every publication, first ones included, spends one of
    the submitting account's LADDER_RELEASES_PER_WINDOW, so a new repository or precision never adds to what an
    account can learn. A new model is measured (its Δ and flag need its test figure) as long as the budget lasts.
    A withheld run's test figure is never published."""
    if LadderDecision.objects.filter(candidate_run=result.run).exists():
        return None  # judged already (a re-score): one decision per run
    account_id, family = _family(result)
    # Two sealed runs of one account (or model) scored at once would both pass the budget and the comparison.
    serialise(f"ladder:{account_id if account_id is not None else family}")
    displays = TestScoreDisplay.objects.select_for_update().filter(
        hub_id__iexact=result.hub_id, benchmark_id=result.benchmark_id, shots=result.shots)
    display = displays.filter(precision=result.precision).first()
    if display is not None and display.run_id == result.run_id:
        return None
    best = (LadderDecision.objects.filter(family=family, moved=True,
                                          candidate_run__benchmark_version__benchmark_id=result.benchmark_id,
                                          candidate_run__shots=result.shots)
            .select_related("candidate_run").order_by("-decided_at", "-pk").first())
    if best is None:  # boards from before the decisions were kept per model
        legacy = display or displays.order_by("-updated_at").first()
        shown = legacy.run if legacy else None
    else:
        shown = best.candidate_run
    if shown is None:
        decision = stats.LadderDecision(n=0, mean_diff=0.0, sd=0.0, threshold=0.0, moves=True)
        reason = LadderReason.FIRST
    else:
        decision = stats.ladder(_correct_by_question(shown), _correct_by_question(result.run, rows))
        reason = LadderReason.GAIN if decision.moves else LadderReason.NO_GAIN
    moves = decision.moves
    if moves and account_id is not None and releases_used(account_id=account_id) >= settings.LADDER_RELEASES_PER_WINDOW:
        moves, reason = False, LadderReason.BUDGET
    if moves:
        if display is None:
            display = TestScoreDisplay.objects.create(hub_id=result.hub_id, precision=result.precision,
                                                      benchmark_id=result.benchmark_id, shots=result.shots,
                                                      run=result.run)
        else:
            display.run = result.run
            display.save(update_fields=["run", "updated_at"])
    return LadderDecision.objects.create(
        display=display, shown_run=shown, candidate_run=result.run, account_id=account_id, family=family,
        reason=reason, n=decision.n, mean_diff=decision.mean_diff, sd=decision.sd, threshold=decision.threshold,
        moved=moves)


@transaction.atomic
def run_scored(*, result: RunResult, rows) -> None:
    """Hook of evaluations.services.run_score, inside its transaction, with the result it just wrote."""
    if result.split in SEALED_SPLITS:
        ladder_update(result=result, rows=rows)
    delta_point_add(result=result)


def delta0_check(value: float, se: float = 0.0) -> float:
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"δ₀ = {value} is out of range: give a fraction between -1 and 1 "
                         "(e.g. -0.012 for -1.2 points).")
    if not 0.0 <= se <= 1.0:
        raise ValueError(f"SE of δ₀ = {se} is out of range: give a fraction between 0 and 1.")
    return value


@transaction.atomic
def delta_offset_set(*, benchmark, shots: int, value: float, actor, reason: str, reference_models=(),
                     se: float = 0.0, benchmark_version=None, reference_deltas=()) -> DeltaOffset:
    delta0_check(value, se)
    offset = DeltaOffset.objects.create(benchmark=benchmark, benchmark_version=benchmark_version, shots=shots,
                                        value=value, se=se, reason=reason, reference_models=list(reference_models),
                                        reference_deltas=list(reference_deltas), set_by=actor)
    audit_record(actor=actor, action="set-delta0", target=offset, reason=reason, value=value, se=se,
                 benchmark=benchmark.slug, version=benchmark_version.number if benchmark_version else None,
                 shots=shots, reference_models=list(reference_models))
    results_changed()  # flags on cached leaderboard responses are re-judged with the new δ₀
    return offset


def delta_offset_from_reference(*, points, actor, reason: str) -> DeltaOffset:
    """δ₀ = the mean Δ of the chosen reference models' points (one benchmark version and shots), each Δ as
    published (reweighted validation, test accuracy to 0.1 point); its SE from their spread. Each reference
    model's Δ is kept so that the model is judged against the others' mean, not its own."""
    from . import selectors

    points = list(points)
    published = set(selectors.published_points(DeltaPoint.objects.filter(pk__in=[p.pk for p in points]))
                    .values_list("pk", flat=True))
    unpublished = [p for p in points if p.pk not in published]
    if unpublished:
        # A withheld (Ladder) or hidden test run's Δ is not published, so δ₀ may not carry it either.
        raise ValueError(f"{len(unpublished)} of the chosen points ({', '.join(str(p) for p in unpublished[:3])}) "
                         "have no published test figure (withheld by the Ladder rule, or hidden); choose points "
                         "from the contamination board.")
    keys = {(p.benchmark_id, p.shots) for p in points}
    if len(keys) != 1:
        raise ValueError("Choose reference points of one benchmark and one shot setting.")
    versions = {p.benchmark_version_id for p in points}
    if len(versions) != 1:
        raise ValueError("Choose reference points of one benchmark and one shot setting, and of one benchmark "
                         "version (δ₀ is kept per version).")
    tree = selectors.topic_tree(benchmark=points[0].benchmark)
    references = []
    for p in points:
        d = selectors.published_delta(p, tree=tree)
        references.append({"model": f"{p.hub_id}@{p.revision}", "precision": p.precision, "delta": d.delta,
                           "se": d.se})
    value, se = stats.delta0_from_reference([(r["delta"], r["se"]) for r in references])
    return delta_offset_set(benchmark=points[0].benchmark, benchmark_version=points[0].benchmark_version,
                            shots=points[0].shots, value=value, se=se, actor=actor, reason=reason,
                            reference_models=sorted({r["model"] for r in references}), reference_deltas=references)
