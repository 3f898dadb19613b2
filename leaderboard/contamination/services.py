"""Writes of the contamination monitor, called on the trusted side when a run has been scored.

`run_scored` adds a Δ point when the run's counterpart split (validation for test, test for
validation) exists for the same model revision, precision, benchmark version and shots, and, for a
sealed-split run, lets the Ladder rule (per submitter and namespace, with a release budget) decide whether
its test figure is published.
"""

from django.db import transaction
from django.utils import timezone

from leaderboard.benchmarks.models import SEALED_SPLITS, Split
from leaderboard.core.audit import audit_record
from leaderboard.core.errors import DomainError
from leaderboard.evaluations.models import UPLOAD_BACKEND, RunStatus
from leaderboard.core.cache_generation import results_changed
from leaderboard.results.models import Level, ResultAggregate, RunResult

from . import selectors, stats
from .ladder import DELTA_VARIANT, ladder_update
from .models import DeltaOffset, DeltaPoint



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
    # The probe of the open split only: the sealed split's would be a second sealed figure (selectors._probe).
    probe = {"validation": val.run.summary["probe"]} if (val.run.summary or {}).get("probe") else {}
    return DeltaPoint.objects.create(
        benchmark_id=result.benchmark_id, benchmark_version_id=result.benchmark_version_id, shots=result.shots,
        hub_id=result.hub_id, revision=result.revision,
        precision=result.precision, validation_run=val.run, test_run=test.run,
        correct_v=v_overall[0], n_v=v_overall[1], correct_t=t_overall[0], n_t=t_overall[1],
        topic_counts=topic_counts, probe=probe, computed_at=timezone.now())


@transaction.atomic
def run_scored(*, result: RunResult, rows) -> None:
    """Hook of evaluations.services.run_score, inside its transaction, with the result it just wrote."""
    if result.split in SEALED_SPLITS:
        ladder_update(result=result, rows=rows)
    delta_point_add(result=result)


class Delta0Refused(DomainError, ValueError):
    """A δ₀ that cannot be set: Delta0Refused(code, message, hint). Still a ValueError for the admin's forms."""


def delta0_check(value: float, se: float = 0.0) -> float:
    if not -1.0 <= value <= 1.0:
        raise Delta0Refused("DELTA0_OUT_OF_RANGE", f"δ₀ = {value} is out of range.",
                            "Give a fraction between -1 and 1 (e.g. -0.012 for -1.2 points).")
    if not 0.0 <= se <= 1.0:
        raise Delta0Refused("DELTA0_SE_OUT_OF_RANGE", f"SE of δ₀ = {se} is out of range.",
                            "Give a fraction between 0 and 1.")
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
    points = list(points)
    published = set(selectors.published_points(DeltaPoint.objects.filter(pk__in=[p.pk for p in points]))
                    .values_list("pk", flat=True))
    unpublished = [p for p in points if p.pk not in published]
    if unpublished:
        # A withheld (Ladder) or hidden test run's Δ is not published, so δ₀ may not carry it either.
        raise Delta0Refused("REFERENCE_NOT_PUBLISHED",
                            f"{len(unpublished)} of the chosen points ({', '.join(str(p) for p in unpublished[:3])}) "
                            "have no published test figure (withheld by the Ladder rule, or hidden).",
                            "Choose points from the contamination board.")
    keys = {(p.benchmark_id, p.shots) for p in points}
    if len(keys) != 1:
        raise Delta0Refused("REFERENCES_MIXED", "The chosen points are of several benchmarks or shot settings.",
                            "Choose reference points of one benchmark and one shot setting.")
    versions = {p.benchmark_version_id for p in points}
    if len(versions) != 1:
        raise Delta0Refused("REFERENCES_MIXED", "The chosen points are of several benchmark versions.",
                            "Choose reference points of one benchmark version (δ₀ is kept per version).")
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
