"""The Ladder rule: which sealed-split runs are published, and the reads of that decision.

Below results in the layers (docs/ARCHITECTURE.md §7): results lists only the sealed runs this module says are
published, so it reads runs and predictions (evaluations), never results; `ladder_update` takes the scored run's
result row only for its keys. The Δ monitor (selectors, services) sits above results.
"""
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from evaluator import statistics
from evaluator.engine import rescore_rows
from leaderboard.core.leases import serialise
from leaderboard.evaluations import selectors as run_selectors

from .models import LadderDecision, LadderReason, TestScoreDisplay

DELTA_VARIANT = "original"  # the answer order Δ and the Ladder's paired gain are computed on


def _correct_by_question(run, rows=None) -> dict[str, bool]:
    """Per-question correctness of the primary variant, recomputed from the stored key (trusted side)."""
    if rows is None:
        key = run_selectors.answer_key(version=run.benchmark_version, split=run.split)
        rows = rescore_rows(run_selectors.run_rows(run=run), key)
    return {r["question_id"]: bool(r["correct"]) for r in rows
            if r.get("variant") == DELTA_VARIANT and r.get("correct") is not None}


def _family(result) -> tuple[int | None, str, str]:
    """The Ladder's keys of a sealed run: the submitting account (None for an operator's run) and the model's
    namespace, whose budgets a publication spends, and its family, whose members are compared with its best
    published run: the model id, lower case (like every hub-id comparison); for a submitted GGUF file, the model it
    was made from (its header's or card's base model, else its repository) @ its quantization, so a copy a byte
    away, under another path or account, is judged against the published file instead of published as new."""
    submission = result.run.submission
    if submission is None:
        return None, "", result.hub_id.lower()
    family = result.hub_id.lower()
    if submission.gguf_file:
        facts = submission.gguf_facts or {}
        quantization = facts.get("quantization") or submission.model.quantization
        if quantization:
            source = facts.get("base_model") or submission.model.repo_id
            family = f"{source}@{quantization}".lower()
    return submission.submitter_id, submission.model.namespace, family


def releases_used(*, account_id=None, namespace=None) -> int:
    """Sealed figures published in the current window for an account, or for a namespace's models whoever submitted
    them (operators' runs have no budget)."""
    since = timezone.now() - timedelta(days=settings.LADDER_WINDOW_DAYS)
    spent = LadderDecision.objects.filter(moved=True, decided_at__gte=since, account__isnull=False)
    return (spent.filter(account_id=account_id) if namespace is None else spent.filter(namespace=namespace)).count()


def _budget_spent(account_id, namespace) -> bool:
    limit = settings.LADDER_RELEASES_PER_WINDOW
    return releases_used(account_id=account_id) >= limit or releases_used(namespace=namespace) >= limit


def ladder_update(*, result, rows) -> LadderDecision | None:
    """The Ladder rule (Blum & Hardt, 2015) with a budget per submitter and per namespace. A model's first sealed run
    (benchmark, shots) is published; a later one, of another revision or precision (or a GGUF file of the same model
    and quantization: _family), only when its paired gain over the family's best published run, on the shared
    questions, passes s/√n. Every publication, first ones included, spends one of the submitting account's
    LADDER_RELEASES_PER_WINDOW and one of its model's namespace's, whoever submits: a new repository or precision
    never adds to what an account can learn, nor a new account to what can be learnt of one namespace's models. A new
    model is measured (its Δ and flag need its test figure) as long as the budgets last. A withheld run's test figure
    is never published."""
    if LadderDecision.objects.filter(candidate_run=result.run).exists():
        return None  # judged already (a re-score): one decision per run
    account_id, namespace, family = _family(result)
    # Two sealed runs of one account (or model), or of one namespace, scored at once would both pass the budget and
    # the comparison. Account, namespace, family: always in that order.
    serialise(f"ladder:{account_id if account_id is not None else family}")
    if account_id is not None:
        serialise(f"ladder-namespace:{namespace}")
        serialise(f"ladder-family:{family}")
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
        decision = statistics.LadderDecision(n=0, mean_diff=0.0, sd=0.0, threshold=0.0, moves=True)
        reason = LadderReason.FIRST
    else:
        decision = statistics.ladder(_correct_by_question(shown), _correct_by_question(result.run, rows))
        reason = LadderReason.GAIN if decision.moves else LadderReason.NO_GAIN
    moves = decision.moves
    if moves and account_id is not None and _budget_spent(account_id, namespace):
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
        namespace=namespace, reason=reason, n=decision.n, mean_diff=decision.mean_diff, sd=decision.sd, threshold=decision.threshold,
        moved=moves)


def withheld_test_runs():
    """Sealed-split runs the Ladder rule judged and did not show: their test figures are never published."""
    return LadderDecision.objects.filter(moved=False).values("candidate_run_id")


def shown_test_runs(*, benchmark, shots: int) -> dict[tuple[str, str], int]:
    """(hub_id, precision) -> the sealed-split run id the board shows (the Ladder rule's choice)."""
    return {(d.hub_id, d.precision): d.run_id
            for d in TestScoreDisplay.objects.filter(benchmark=benchmark, shots=shots)}


def ladder_notes(*, benchmark, shots: int) -> dict[int, str]:
    """shown run id -> why later test runs of that model are not shown (the Ladder decisions that withheld them)."""
    kept = {}
    for d in (LadderDecision.objects.filter(display__benchmark=benchmark, display__shots=shots, moved=False)
              .select_related("display", "candidate_run").order_by("decided_at", "pk")):
        revisions = kept.setdefault(d.display.run_id, [])
        if (d.candidate_run.model_revision[:12] or "?") not in revisions:
            revisions.append(d.candidate_run.model_revision[:12] or "?")
    # No figures: the candidates' test scores stay unpublished (that is the point of the Ladder rule).
    return {run_id: (f"later test run(s) of revision {', '.join(revisions)} are not published: the Ladder rule "
                     f"publishes a model's later sealed figure only when its paired gain over the shown one passes "
                     f"the threshold s/√n, within the submitter's and the namespace's budgets of releases per window")
            for run_id, revisions in kept.items()}
