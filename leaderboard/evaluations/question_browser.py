"""Per-question reads for the question browser: one run's predictions beside the questions of its open split.

Only one run's prediction chunks are read, never another run's. The sealed split is refused here whatever the
caller checked (ARCHITECTURE §6), and the questions come from the run's own open split only: a prediction row
whose question is not one of them is dropped, so no sealed question or answer can come out of this module.

A scored run's chunks never change, so the digest of one answer order (its prediction, letter probabilities and
letter mass per question, in the original option order) is cached per run; a cache outage only makes it slower.
"""
import logging
from dataclasses import dataclass

from django.core.cache import cache

from leaderboard.benchmarks import selectors as bench_selectors
from leaderboard.benchmarks.models import OPTION_LETTERS, SEALED_SPLITS
from leaderboard.core.errors import SealedSplitError

from .models import EvaluationRun, PredictionChunk

log = logging.getLogger(__name__)

OUTCOMES = ("right", "wrong")
_CACHE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class Entry:
    """One question of the browser's list, before its text is read (filtering and paging need no text)."""

    uid: str
    position: int
    topic_slug: str
    answer: frozenset[str]
    predicted: str | None  # the model's letter in the original option order; None: no letter (unparsed, error)
    probs: dict | None  # original letter -> probability (logprobs mode), else None
    mass: float | None  # share of the next-token probability on the option letters
    output: str  # generation mode: the text the letter was read from
    error: str

    @property
    def correct(self) -> bool:
        return self.predicted is not None and self.predicted in self.answer


def _refuse_sealed(split):
    if split in SEALED_SPLITS:
        raise SealedSplitError("sealed test questions are never shown")


def _original_probs(row) -> dict | None:
    """Letter probabilities in the original option order (a row's letters are those shown under its answer order:
    perm[i] is the original index of the option shown at letter i)."""
    probs = row.get("letter_probs")
    if not probs:
        return None
    perm = row.get("perm") or list(range(len(OPTION_LETTERS)))
    out = {}
    for shown, p in probs.items():
        index = OPTION_LETTERS.index(shown)
        out[OPTION_LETTERS[perm[index]] if index < len(perm) else shown] = p
    return out


def _digest(run: EvaluationRun, variant: str) -> dict[str, tuple]:
    """question uid -> (predicted original letter, probs, letter mass, output, error) for one answer order."""
    out = {}
    chunks = PredictionChunk.objects.filter(run=run).order_by("index").values_list("rows", flat=True)
    for rows in chunks.iterator(chunk_size=8):
        for row in rows:
            if row.get("variant") == variant:
                out[row["question_id"]] = (row.get("predicted_original"), _original_probs(row),
                                           row.get("letter_mass"), row.get("output") or "", row.get("error") or "")
    return out


def run_predictions(*, run: EvaluationRun, variant: str) -> dict[str, tuple]:
    """The cached digest of one run's answer order (see the module docstring)."""
    _refuse_sealed(run.split)
    finished = run.finished_at.timestamp() if run.finished_at else ""
    key = f"question-browser:v1:{run.pk}:{variant}:{run.plan_fingerprint}:{finished}"
    try:
        digest = cache.get(key)
    except Exception:
        log.exception("cache unavailable; reading run %s's chunks uncached", run.pk)
        return _digest(run, variant)
    if digest is None:
        digest = _digest(run, variant)
        try:
            cache.set(key, digest, _CACHE_SECONDS)
        except Exception:
            log.exception("could not cache run %s's predictions", run.pk)
    return digest


def entries(*, run: EvaluationRun, variant: str, topic_slug: str | None = None) -> list[Entry]:
    """The run's open-split questions that were asked under `variant` (in the bank's order), each with the model's
    prediction; only `topic_slug`'s when given."""
    _refuse_sealed(run.split)
    predictions = run_predictions(run=run, variant=variant)
    questions = bench_selectors.open_questions(version=run.benchmark_version, split=run.split)
    if topic_slug:
        questions = questions.filter(topic__slug=topic_slug)
    out = []
    for uid, position, slug, answer in questions.order_by("position").values_list("uid", "position", "topic__slug",
                                                                                "answer"):
        if uid in predictions:
            predicted, probs, mass, output, error = predictions[uid]
            out.append(Entry(uid, position, slug, frozenset(answer.split(",")), predicted, probs, mass, output, error))
    return out


def question_texts(*, run: EvaluationRun, uids) -> dict[str, dict]:
    """uid -> {text, options, topic} of the run's open-split questions among `uids` (one page of the list)."""
    _refuse_sealed(run.split)
    rows = (bench_selectors.open_questions(version=run.benchmark_version, split=run.split)
            .filter(uid__in=list(uids)).values_list("uid", "text", "options", "topic__name"))
    return {uid: {"text": text, "options": options, "topic": topic} for uid, text, options, topic in rows}
