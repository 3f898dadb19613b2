"""A validation (or test) run stored as the engine stores it, then scored: letter probabilities over the letters as
shown, each row's permutation, the prediction in both orders. Used by the question browser's tests."""
from leaderboard.benchmarks.models import OPTION_LETTERS, Benchmark
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.scoring import services as scoring
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.submissions.models import ModelEntry


def _wrong(options, key):
    return next(letter for letter in OPTION_LETTERS[:len(options)] if letter not in key)


def run_with_probabilities(hub_id="org/alpha", *, split="validation", variants=("original", "R1"), wrong_every=3,
                           extra_rows=()):
    """Answer orders original and R1 (options reversed); every `wrong_every`-th question wrong (the first
    included), 90% on the chosen letter; two chunks. Returns the RunResult."""
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={"namespace": hub_id.split("/")[0],
                                                              "params": 2_000_000_000})
    key = run_selectors.answer_key(version=version, split=split)
    questions = list(version.questions.filter(split=split).order_by("position")
                     .values_list("uid", "options", "topic__hub_field"))
    rows = []
    for i, (uid, options, topic) in enumerate(questions):
        for variant in variants:
            n = len(options)
            perm = list(range(n)) if variant == "original" else list(reversed(range(n)))
            original = sorted(key[uid])[0] if i % wrong_every else _wrong(options, key[uid])
            shown = OPTION_LETTERS[perm.index(OPTION_LETTERS.index(original))]
            probs = {letter: 0.1 / (n - 1) for letter in OPTION_LETTERS[:n]}
            probs[shown] = 0.9
            rows.append({"question_id": uid, "variant": variant, "topic": topic, "seed": 7, "perm": perm,
                         "predicted": shown, "predicted_original": original, "letter_probs": probs,
                         "letter_mass": 0.8, "tie": False})
    rows += list(extra_rows)
    run = EvaluationRun.objects.create(
        benchmark_version=version, split=split, model_ref=hub_id, model_revision="a" * 40, precision="bfloat16",
        variants=list(variants), status=RunStatus.SCORING, template_hash="f" * 64, seed=1234,
        dataset_hash=version.split_hashes[split])
    half = len(rows) // 2
    PredictionChunk.objects.create(run=run, index=0, rows=rows[:half])
    PredictionChunk.objects.create(run=run, index=1, rows=rows[half:])
    return scoring.run_score(run=run)


def sealed_only_strings() -> set[str]:
    """tests.support.sealed's strings less those inside open-split text: the demo bank's invented options overlap
    across splits ("Revenue minus cost of goods sold" is part of an open option), and showing an open question is
    no leak."""
    from leaderboard.benchmarks.models import Question
    from tests.support.sealed import sealed_strings

    open_text = "\n".join(t for question, options in Question.objects.exclude(split="test").values_list(
        "text", "options") for t in (question, *options))
    return {s for s in sealed_strings() if s not in open_text}
