"""Runs of a 16-bit model and of GGUF files made from it, stored as the engine stores them (letter probabilities
over the letters shown, the prediction, correctness) and scored by the real path. Used by the on-device variants'
tests (results/quantization_truth.py)."""
from django.contrib.auth.models import User

from leaderboard.benchmarks.models import OPTION_LETTERS, Benchmark
from leaderboard.evaluations import selectors as run_selectors
from leaderboard.evaluations.models import EvaluationRun, PredictionChunk, RunStatus
from leaderboard.scoring import services as scoring
from leaderboard.submissions.models import ModelEntry, Submission

SURE = 0.7  # the probability on the predicted letter; the rest is spread evenly


def letter_probs(letter, n):
    probs = {L: (1 - SURE) / (n - 1) for L in OPTION_LETTERS[:n]}
    probs[letter] = SURE
    return probs


def questions(split="validation"):
    """[(uid, options, topic, answer letters)] of the Mobile-MMLU split, in order."""
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    key = run_selectors.answer_key(version=version, split=split)
    return [(uid, options, topic, key[uid]) for uid, options, topic in version.questions.filter(split=split)
            .order_by("position").values_list("uid", "options", "topic__hub_field")]


def right(options, answer):
    return sorted(answer)[0]


def wrong(options, answer, skip=0):
    """A wrong letter; skip=1 the next wrong one (another wrong letter)."""
    return [L for L in OPTION_LETTERS[:len(options)] if L not in answer][skip]


def gguf_entry(hub_id, *, base_model, quantization="Q4_K_M"):
    """A GGUF model entry with a submission whose header facts name `base_model` (None: none named)."""
    path = hub_id.split("/", 2)[2]  # org/repo/<path in the repository>
    entry, _ = ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={
        "namespace": hub_id.split("/")[0], "params": 1_000_000_000, "gguf_file": path, "quantization": quantization})
    user, _ = User.objects.get_or_create(username="gguf-author")
    return Submission.objects.create(submitter=user, model=entry, revision_sha="c" * 40, precision="gguf",
                                     gguf_file=path, gguf_sha256="d" * 64, benchmarks=["mobile-mmlu"],
                                     gguf_facts={"base_model": base_model, "quantization": quantization})


def letter_run(hub_id, letters, *, split="validation", **kwargs):
    """A scored run of `hub_id` answering question i (the split's order) with letters[i](options, answer) on the
    original answer order (see stored_run)."""
    rows = []
    for pick, (uid, options, topic, answer) in zip(letters, questions(split)):
        letter = pick(options, answer)
        rows.append({"question_id": uid, "variant": "original", "topic": topic, "perm": list(range(len(options))),
                     "predicted": letter, "predicted_original": letter, "correct": letter in answer,
                     "letter_probs": letter_probs(letter, len(options)), "letter_mass": 0.9, "tie": False})
    return stored_run(hub_id, rows, split=split, **kwargs)


def stored_run(hub_id, rows, *, split="validation", precision="bfloat16", submission=None, **settings):
    """A run of `hub_id` with these prediction rows, scored by the real path. A GGUF run (precision gguf) is run by
    llamacpp; `settings` override run fields."""
    version = Benchmark.objects.get(slug="mobile-mmlu").versions.order_by("-number").first()
    if submission is None:
        ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={"namespace": hub_id.split("/")[0],
                                                                  "params": 1_000_000_000})
    fields = {"template_hash": "f" * 64, "seed": 1234, "variants": ["original"],
              "backend": "llamacpp" if precision == "gguf" else "transformers"} | settings
    run = EvaluationRun.objects.create(
        benchmark_version=version, split=split, model_ref=hub_id, model_revision="a" * 40, precision=precision,
        status=RunStatus.SCORING, dataset_hash=version.split_hashes[split], submission=submission, **fields)
    PredictionChunk.objects.create(run=run, index=0, rows=rows)
    return scoring.run_score(run=run)
