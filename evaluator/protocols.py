"""Named evaluation protocols: a publisher's own evaluation procedure as one setting, versioned and hashed.

The leaderboard's default (no protocol) is one-pass letter scoring under a prompt template (prompts.py); a
protocol fixes everything instead: the prompt layout, the exemplars, the decoding rule, the length of the
answer and how a letter is read from it. Runs record its name and hash; runs of different protocols are never
ranked together. Change a field -> bump `version`.

mmlu-pro-cot reproduces MMLU-Pro's evaluate_from_local.py (TIGER-AI-Lab/MMLU-Pro, commit 26d41d0, the file's
latest change; cot_prompt_lib/initial_prompt.txt of commit 2ed4dfc): 5-shot chain of thought with the dev
(validation) split's worked answers (`cot_content`) of the question's category, the header of initial_prompt.txt,
greedy decoding of up to 2,048 new tokens stopping at "Question:", and the script's three extraction patterns.
Where the prompt has 2,048 tokens or more (its 4,096-token context less the 2,048 new tokens) the script lowers k
until it fits; so do we (`fit_prompt`), and a question that does not fit even with no exemplar fails alone
(`prompt_too_long`, wrong), where the script would loop on. An answer no pattern reads is wrong and the
unparsed share is reported; mmlu-pro-cot-guess instead guesses as the script does (`official_guesses`).
"""
from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from .decoding import GREEDY_STOP_QUESTION, DecodingRule
from .questions import LETTERS, Question

SOURCE = ("https://github.com/TIGER-AI-Lab/MMLU-Pro/blob/26d41d02c9f6e1794e74a2740ed378cb0562faea/"
          "evaluate_from_local.py")
NA_OPTION = "N/A"  # padding in MMLU-Pro's option lists; the script drops it before showing the options
UNPARSED_WRONG = "wrong"
UNPARSED_GUESS = "random-guess"


class ProtocolError(ValueError):
    """A protocol that cannot run on these questions (unknown name, no worked exemplars); `code` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Protocol:
    name: str
    version: int
    header: str             # initial_prompt.txt as read; "{$}" is the category; one "\n" is added after it
    shots: int              # exemplars per category, lowered per question while the prompt is too long
    prompt_budget: int      # a prompt must have fewer tokens than this (the script: 4096 - 2048)
    max_new_tokens: int
    decoding: DecodingRule
    unparsed: str           # UNPARSED_WRONG, or UNPARSED_GUESS (the script's random guess)
    guess_seed: int | None = None
    source: str = SOURCE

    def describe(self) -> dict[str, Any]:
        out = asdict(self)
        out["decoding"] = self.decoding.describe()
        return out

    @property
    def hash(self) -> str:
        """sha256 hex of the definition (stable across processes), recorded with every run."""
        return hashlib.sha256(json.dumps(self.describe(), sort_keys=True, ensure_ascii=True).encode()).hexdigest()


_MMLU_PRO: dict[str, Any] = dict(
    version=1,
    header=('The following are multiple choice questions (with answers) about {$}. Think step by step and then '
            'finish your answer with "the answer is (X)" where X is the correct letter choice.\n\n\n'),
    shots=5, prompt_budget=4096 - 2048, max_new_tokens=2048, decoding=GREEDY_STOP_QUESTION,
)
PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (
    Protocol(name="mmlu-pro-cot", unparsed=UNPARSED_WRONG, **_MMLU_PRO),
    # The script's own figures: an unread answer is a seeded random guess (seed 12345), labelled as such.
    Protocol(name="mmlu-pro-cot-guess", unparsed=UNPARSED_GUESS, guess_seed=12345, **_MMLU_PRO),
)}


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise ProtocolError("UNKNOWN_PROTOCOL", f"unknown protocol {name!r}; known: "
                                                f"{', '.join(sorted(PROTOCOLS))}") from None


# --- the prompt ----------------------------------------------------------------------------------------------

def shown_options(options: Sequence[str]) -> list[int]:
    """Indices of the options the script shows (N/A padding dropped), in order; letter i names shown[i]."""
    return [i for i, o in enumerate(options) if o != NA_OPTION]


def _block(question: str, options: Sequence[str]) -> str:
    """format_cot_example's question part: "Question:", the text as it is (not stripped), "A. ..." lines."""
    return ("Question:\n" + question + "\n" + "Options:\n"
            + "".join(f"{LETTERS[i]}. {options[j]}\n" for i, j in enumerate(shown_options(options))))


def cot_of(exemplar: Question) -> str:
    return exemplar.extra["cot_content"].replace("A: Let's think step by step.", "Answer: Let's think step by step.")


def category_of(question: Question) -> str:
    """The category as published (the header names it; the guess orders categories by it): `extra["category"]`
    where the question carries it (the leaderboard passes its topic's name: MMLU-Pro's "computer science" is the
    topic whose hub_field is computer_science), else the topic."""
    return str(question.extra.get("category") or question.topic)


def render_prompt(protocol: Protocol, question: str, options: Sequence[str], category: str,
                  exemplars: Sequence[Question]) -> str:
    """generate_cot_prompt: the header for the category, each exemplar with its worked answer, then the question."""
    return (protocol.header.replace("{$}", category) + "\n"
            + "".join(_block(e.question, e.options) + cot_of(e) + "\n\n" for e in exemplars)
            + _block(question, options) + "Answer: Let's think step by step.")


def protocol_exemplars(protocol: Protocol, questions: Sequence[Question],
                       dev_questions: Sequence[Question] | None) -> dict[str, list[Question]]:
    """Each category's first `shots` dev questions in dev-split order (the script's select_by_category(val_df)[:k]);
    fewer where the dev split has fewer. Refused (ProtocolError) for a category with no dev question or one whose
    exemplar has no worked answer: the protocol is few-shot chain of thought, never silently zero-shot."""
    out = {}
    for topic in sorted({q.topic for q in questions}):
        chosen = [d for d in dev_questions or () if d.topic == topic][: protocol.shots]
        if not chosen:
            raise ProtocolError("NO_COT_EXEMPLARS", f"the dev split has no question of category {topic!r}; "
                                                    f"{protocol.name} needs its worked exemplars")
        missing = [d.question_id for d in chosen if not str(d.extra.get("cot_content") or "").strip()]
        if missing:
            raise ProtocolError("COT_CONTENT_MISSING",
                                f"dev question(s) {', '.join(missing)} of category {topic!r} have no cot_content; "
                                f"{protocol.name} needs MMLU-Pro's worked answers (import the dev split from "
                                "MMLU-Pro's files, which carry them)")
        out[topic] = chosen
    return out


def fit_prompt(protocol: Protocol, question: str, options: Sequence[str], category: str,
               exemplars: Sequence[Question], count_tokens: Callable[[str], int]) -> tuple[str, int] | None:
    """(prompt, k): the script's loop, k lowered from len(exemplars) until the prompt has fewer than
    `prompt_budget` tokens; None when even no exemplar fits (the script would go on to negative k)."""
    for k in range(len(exemplars), -1, -1):
        prompt = render_prompt(protocol, question, options, category, exemplars[:k])
        if count_tokens(prompt) < protocol.prompt_budget:
            return prompt, k
    return None


# --- reading the answer (evaluate_from_local.py's extract_answer, extract_again, extract_final) ----------------

def extract_answer(text: str) -> str | None:
    pattern = r"answer is \(?([A-J])\)?"
    match = re.search(pattern, text)
    if match:
        return match.group(1)
    match = re.search(r'.*[aA]nswer:\s*([A-J])', text)
    if match:
        return match.group(1)
    pattern = r"\b[A-J]\b(?!.*\b[A-J]\b)"
    match = re.search(pattern, text, re.DOTALL)
    if match:
        return match.group(0)
    return None


def original_letter(options: Sequence[str], letter: str | None) -> str | None:
    """The letter read (of the shown options) as a letter of the stored options; None when it names no option
    (unparsed, or a letter past the last: the script counts that wrong, and so do we)."""
    shown = shown_options(options)
    if letter is None or LETTERS.index(letter) >= len(shown):
        return None
    return LETTERS[shown[LETTERS.index(letter)]]


# --- the script's random guess -------------------------------------------------------------------------------

def official_guesses(rows: Iterable[Mapping[str, Any]], options: Mapping[str, Sequence[str]],
                     answers: Mapping[str, Iterable[str]], seed: int,
                     categories: Mapping[str, str] | None = None) -> dict[str, bool]:
    """question_id -> whether the script's random guess hits, for each row it would guess (no letter read).

    As evaluate_from_local.py does: random.seed(12345) once per execution; categories in sorted order, questions in
    dataset order (the order of `rows` within a category; `categories`: topic -> category as published, the
    names sorted); save_res runs twice per category, each run drawing
    random.randint(0, len(options) - 1) for every unparsed question, and the second run's hits are reported; the
    guess x hits when x == answer_index (the answer's index in the stored options). len(options) counts the shown
    options (N/A dropped)."""
    rng = random.Random(seed)
    by_topic: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        by_topic.setdefault(r.get("topic", ""), []).append(r)
    hits = {}
    for topic in sorted(by_topic, key=lambda t: (categories or {}).get(t, t)):
        unread = [r["question_id"] for r in by_topic[topic] if not r.get("predicted")]
        for qid in unread:  # the first save_res: drawn, not reported
            rng.randint(0, len(shown_options(options[qid])) - 1)
        for qid in unread:
            x = rng.randint(0, len(shown_options(options[qid])) - 1)
            hits[qid] = x in {LETTERS.index(L) for L in answers.get(qid, ())}
    return hits


def apply_guesses(protocol: Protocol, rows: Sequence[dict[str, Any]], questions: Sequence[Question],
                  answers: Mapping[str, Iterable[str]]) -> list[dict[str, Any]]:
    """Scored rows under the protocol's rule for unread answers: as they are (wrong), or with the script's guess
    (`correct` from the guess, `guessed: True`). `questions`: the run's, in the published order."""
    if protocol.unparsed != UNPARSED_GUESS:
        return list(rows)
    hits = official_guesses(rows, {q.question_id: q.options for q in questions}, answers, protocol.guess_seed or 0,
                            {q.topic: category_of(q) for q in questions})
    out = []
    for r in rows:
        if r["question_id"] in hits and r.get("correct") is not None:
            r = {**r, "correct": hits[r["question_id"]], "guessed": True}
        out.append(r)
    return out


def render_questions(protocol: Protocol, questions: Sequence[Question],
                     dev_questions: Sequence[Question] | None) -> list[str]:
    """Each question with all its category's exemplars: the longest prompts a run can send (context sizing)."""
    exemplars = protocol_exemplars(protocol, questions, dev_questions)
    return [render_prompt(protocol, q.question, q.options, category_of(q), exemplars[q.topic]) for q in questions]
