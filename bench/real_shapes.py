"""Invented questions shaped like the published Mobile-MMLU files, for every bench that times scoring.

The demo bank's questions (evaluator.demo_models.generate_demo_questions) are about 66 tokens per prompt;
the published files are far longer: 1,786 bytes per row, the question about 171 characters and each option
about 398, so a rendered 0-shot prompt is about 1,870 characters (roughly 400-470 tokens with common
tokenizers). Timing the demo questions and scaling to 16,186 questions underestimates the real cost ~6x.

The published per-topic shapes are in leaderboard/benchmarks/reference/mobile_mmlu_hub_files.csv (each of the
80 files under test/: rows and bytes). real_shaped_questions() draws, per topic, rows whose cells add up to that
file's bytes per row less the CSV overhead, split between the question and the options as the published
per-column means are (CELL_MEANS), with a lognormal spread around each topic's mean. The text is English-like
words (function words at English frequencies, content words built from English stems and affixes, numbers and
punctuation), so a byte-level BPE splits it as it splits English, not into one repeated token. tokenizer()
trains the benches' tokenizer on a fixed sample of this text, so every bench counts tokens the same way.
"""
from __future__ import annotations

import csv
import functools
import math
import random
import statistics
import zlib
from pathlib import Path
from typing import Sequence

from evaluator.questions import LETTERS, Question

HUB_FILES = Path(__file__).resolve().parents[1] / "leaderboard" / "benchmarks" / "reference" / "mobile_mmlu_hub_files.csv"
# Mean characters per cell over the 16,186 published rows (same source as HUB_FILES, see its README).
CELL_MEANS = {"Question": 171.5, "A": 396.2, "B": 398.8, "C": 398.4, "D": 398.1}
MOBILE_MMLU_QUESTIONS = 16_186
SPREAD = 0.35  # sigma of log(row length / topic mean): an assumption, the files give means only
TOKENIZER_VOCAB = 4000  # the benches' BPE vocabulary: ~4.3 characters per token on this text, as English
TOKENIZER_SAMPLE = 1200  # rows of this text the tokenizer is trained on (fixed seed)
MAX_POSITIONS = 4096  # context of the benches' models and tokenizer: a real-length 5-shot prompt is ~2,700 tokens

_FUNCTION = (  # English function words, most frequent first (Zipf weights below)
    "the of and to a in is that for it as with be on not this are by or from at which but have an they you "
    "can more if will one all their when there been has its also was so than other may should your these "
    "only some into any most such what do how each both them about would it's could after because over "
    "before then while very where those same without between during under well often much just through"
).split()
_STEMS = (
    "charge store clean cook heat light phone plan travel budget water battery screen garden health pay "
    "account tax market sale price cost rate loan credit bank card food meal diet sleep skin muscle bone "
    "stress mind work job team task time schedule habit home house room door wall floor roof pipe drain "
    "tool paint wood metal glass plant seed soil tree flower pet dog cat bird fish train drive car tire "
    "engine fuel road map route hotel flight ticket pass bag pack cloth shirt shoe wash dry iron fold "
    "read write learn teach study test score law right rule contract claim risk safe guard protect "
    "injure treat wound burn bleed break press cover wrap cool warm measure weigh count mix blend bake "
    "boil fry grill slice season taste serve order share post message call signal network data file "
    "secure password install update repair replace check inspect maintain power energy save spend "
    "invest earn return profit value trade brand custom design build art music photo camera lens focus "
    "frame color shape line form style fashion trend event party guest gift child parent family friend "
    "commun connect relation emotion support care help advise recommend prefer consider require provide "
    "produce reduce increase improve prevent avoid limit manage control organ process develop establish"
).split()
_PREFIXES = ("re", "un", "pre", "over", "under", "dis", "mis", "out", "co", "inter", "non", "self-")
_SUFFIXES = ("s", "ing", "ed", "er", "ers", "ly", "ment", "ments", "tion", "able", "ful", "ness", "al", "ity",
             "ive", "ize", "ization", "less", "ance", "ist")
_VOWELS = set("aeiouy")
FUNCTION_SHARE, PREFIX_SHARE, SUFFIX_SHARE = 0.42, 0.25, 0.6  # of words; with TOKENIZER_VOCAB ~4.3 chars/token


def reference_files(path: Path = HUB_FILES) -> list[tuple[str, int, int]]:
    """(field, rows, bytes) of each published file; field is the file stem (topic of the invented rows)."""
    with open(path, newline="", encoding="utf-8") as fh:
        return [(Path(r["hub_file"]).stem, int(r["rows"]), int(r["bytes"])) for r in csv.DictReader(fh)]


def row_overhead(files: Sequence[tuple[str, int, int]]) -> float:
    """Bytes per row that are not cell text (question_id, commas, quotes, line end): the published bytes per
    row less the published per-column means."""
    rows, size = sum(f[1] for f in files), sum(f[2] for f in files)
    return size / rows - sum(CELL_MEANS.values())


def _word(rng: random.Random) -> str:
    if rng.random() < FUNCTION_SHARE:
        return rng.choices(_FUNCTION, cum_weights=_FN_W)[0]
    if rng.random() < 0.02:
        return str(rng.choice((rng.randint(2, 12), rng.randint(10, 100), rng.randint(100, 2025))))
    word = rng.choices(_STEMS, cum_weights=_STEM_W)[0]
    if rng.random() < PREFIX_SHARE:
        word = rng.choice(_PREFIXES) + word
    for _ in range(2 if rng.random() < 0.2 else 1):
        if rng.random() < SUFFIX_SHARE:
            suffix = rng.choice(_SUFFIXES)
            word = (word[:-1] if word.endswith("e") and suffix[0] in _VOWELS else word) + suffix
    return word


def _cum(weights) -> list[float]:
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


_STEM_W = _cum(1.0 / (rank + 20) for rank in range(len(_STEMS)))  # a flat Zipf: many content words
_FN_W = _cum(1.0 / (rank + 1) for rank in range(len(_FUNCTION)))


class _Stream:
    """A long run of English-like sentences; a cell is a slice of it from a random word start. Made once:
    slicing is far faster than drawing each cell's words (16,186 rows in about half a second)."""

    WORDS = 150_000

    def __init__(self) -> None:
        rng = random.Random(0)
        words, sentence = [], 0
        for _ in range(self.WORDS):
            w = _word(rng)
            if sentence == 0:
                w = w[:1].upper() + w[1:]
            sentence += 1
            if sentence > 6 and rng.random() < 0.08:
                w, sentence = w + ".", 0
            elif rng.random() < 0.07:
                w += ","
            words.append(w)
        self.text = " ".join(words)
        self.starts = [0]
        for w in words[:-1]:
            self.starts.append(self.starts[-1] + len(w) + 1)

    def cell(self, rng: random.Random, length: int, end: str) -> str:
        """`length` characters (at least 2) from a random word start, capitalised, ending in `end`."""
        while True:
            start = self.starts[rng.randrange(len(self.starts))]
            if start + length <= len(self.text):
                break
        body = self.text[start:start + length - 1].rstrip(" ,.")
        body = body[:1].upper() + body[1:]
        return body + end


@functools.lru_cache(maxsize=1)
def _stream() -> _Stream:
    return _Stream()


def english_text(rng: random.Random, length: int, end: str = ".") -> str:
    """About `length` characters of English-like sentences ending in `end` (the slice is drawn with `rng`)."""
    return _stream().cell(rng, max(length, 2), end)


def _multipliers(n: int, rng: random.Random) -> list[float]:
    """n lognormal quantiles (sigma SPREAD) scaled to mean 1, shuffled: the spread of row lengths
    without the sampling noise of a small topic's mean."""
    if n == 0:
        return []
    norm = statistics.NormalDist()
    raw = [math.exp(SPREAD * norm.inv_cdf((i + 0.5) / n)) for i in range(n)]
    mean = sum(raw) / n
    out = [x / mean for x in raw]
    rng.shuffle(out)
    return out


def allocate(n: int, files: Sequence[tuple[str, int, int]]) -> dict[str, int]:
    """n questions over the files in proportion to their rows (largest remainder); all 16,186 for n=None."""
    total = sum(f[1] for f in files)
    exact = {f[0]: n * f[1] / total for f in files}
    counts = {t: int(x) for t, x in exact.items()}
    for t in sorted(exact, key=lambda t: (counts[t] - exact[t], t))[: n - sum(counts.values())]:
        counts[t] += 1
    return counts


def typical_topics(k: int, files: Sequence[tuple[str, int, int]] | None = None) -> list[str]:
    """The k topics whose bytes per row are nearest the overall mean (for benches that need many questions
    per topic, e.g. a few-shot prefix amortised over its topic, without skewing the prompt length)."""
    files = list(files or reference_files())
    mean = sum(f[2] for f in files) / sum(f[1] for f in files)
    return [f[0] for f in sorted(files, key=lambda f: (abs(f[2] / f[1] - mean), f[0]))[:k]]


def real_shaped_questions(n: int | None = None, *, seed: int = 0, prefix: str = "real",
                          topics: Sequence[str] | None = None, with_answers: bool = True) -> list[Question]:
    """Invented 4-option questions with the published files' shapes.

    n=None: every topic with its published row count (16,186 rows). n given: n rows allocated to the topics
    by their row counts, in a seeded shuffled order, so any prefix of the list is a sample of every topic.
    topics: only these files (fields), n allocated over them.
    """
    files = reference_files()
    overhead = row_overhead(files)
    if topics is not None:
        wanted = set(topics)
        files = [f for f in files if f[0] in wanted]
        if len(files) != len(wanted):
            raise ValueError(f"unknown topics: {sorted(wanted - {f[0] for f in files})}")
    counts = {f[0]: f[1] for f in files} if n is None else allocate(n, files)
    cells = sum(CELL_MEANS.values())
    rng = random.Random(seed)
    out = []
    for field, rows, size in files:
        m = counts[field]
        row_chars = size / rows - overhead  # this file's cell characters per row
        for i, mult in enumerate(_multipliers(m, rng)):
            lengths = {c: max(8, round(row_chars * mean / cells * mult * rng.uniform(0.9, 1.1)))
                       for c, mean in CELL_MEANS.items()}
            question = english_text(rng, lengths["Question"], end="?")
            options = tuple(english_text(rng, lengths[L]) for L in "ABCD")
            answer = frozenset(rng.choice(LETTERS[:4])) if with_answers else None
            out.append(Question(f"{prefix}-{field}-{i:05d}", question, options, answer, field))
    if n is not None:
        rng.shuffle(out)
    return out


def dev_questions(topics: Sequence[str] | None = None, *, per_topic: int = 5, seed: int = 1) -> list[Question]:
    """`per_topic` exemplars (with answers) for each topic, shaped like that topic's rows."""
    names = list(topics) if topics is not None else [f[0] for f in reference_files()]
    return [q for t in names
            for q in real_shaped_questions(per_topic, seed=seed + zlib.crc32(t.encode()), prefix="dev", topics=[t])]


def tokenizer(out_dir: str | Path, texts: Sequence[str] = (), *, vocab_size: int = TOKENIZER_VOCAB) -> Path:
    """The benches' tokenizer: build_demo_tokenizer trained on a fixed sample of this text (so token counts
    do not depend on how many questions a bench draws) plus `texts` (the bench's prompts: templates,
    letters)."""
    from evaluator.demo_models import build_demo_tokenizer

    sample = real_shaped_questions(TOKENIZER_SAMPLE, seed=12345, prefix="tok")
    corpus = [q.question for q in sample] + [o for q in sample for o in q.options]
    return build_demo_tokenizer(corpus + list(texts), out_dir, vocab_size=vocab_size, model_max_length=MAX_POSITIONS)


def prompt_sizes(prompts: Sequence[str], count_tokens) -> tuple[float, float]:
    """(mean characters, mean tokens) of the prompts; count_tokens(prompt) -> int is the timed tokenizer's."""
    if not prompts:
        return 0.0, 0.0
    return (sum(len(p) for p in prompts) / len(prompts),
            sum(count_tokens(p) for p in prompts) / len(prompts))


def sizes_label(prompts: Sequence[str], count_tokens) -> str:
    chars, tokens = prompt_sizes(prompts, count_tokens)
    return f"mean prompt characters {chars:,.0f}, mean prompt tokens {tokens:,.0f}"
