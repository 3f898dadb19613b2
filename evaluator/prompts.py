"""Versioned prompt templates.

A template is a small frozen definition; its sha256 (over a canonical JSON of the
definition, version included) is stored with every run so a changed wording can
never be mixed into old rankings silently. Change any field -> bump `version`.

Prompt layout: header, then k exemplars, then the question. Exemplars come
first and are identical for every question of a topic, so a prefix cache (vLLM)
reuses their KV entries across the topic.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Sequence

from .questions import LETTERS, Question


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: int
    header: str            # printed once, before exemplars
    answer_cue: str        # ends the question block; the next token should be the letter
    shot_answer_format: str  # appended to an exemplar's block: "{letter}"
    # The MMLU layout, which every template so far shares (the hash is over the fields by name, not order).
    question_format: str = "{question}\n"   # "{question}" is question.strip()
    option_format: str = "{letter}. {option}\n"  # "{letter}", "{option}"

    def render_block(self, question: str, options: Sequence[str]) -> str:
        opts = "".join(self.option_format.format(letter=L, option=o) for L, o in zip(LETTERS, options))
        return self.question_format.format(question=question.strip()) + opts + self.answer_cue

    def render_shot(self, question: str, options: Sequence[str], letter: str) -> str:
        return self.render_block(question, options) + self.shot_answer_format.format(letter=letter)

    def render(self, question: str, options: Sequence[str], shots: Sequence[tuple[str, Sequence[str], str]] = ()) -> str:
        return self.header + "".join(self.render_shot(*s) for s in shots) + self.render_block(question, options)


TEMPLATES: dict[str, PromptTemplate] = {
    t.name: t
    for t in (
        PromptTemplate(
            name="default",
            version=1,
            header="",
            answer_cue="Answer:",
            shot_answer_format=" {letter}\n\n",
        ),
        # Reproduces the official Mobile-MMLU evaluation script's prompt byte for
        # byte (note the full-width colon U+FF1A and the trailing newline).
        PromptTemplate(
            name="mobile-mmlu-reference",
            version=1,
            header="Answer the following multiple choice question and provide only letter of the correct answer.\n",
            answer_cue="Answer\uff1a\n",
            shot_answer_format="{letter}\n\n",
        ),
    )
}


def get_template(name: str) -> PromptTemplate:
    try:
        return TEMPLATES[name]
    except KeyError:
        raise KeyError(f"unknown prompt template {name!r}; known: {', '.join(sorted(TEMPLATES))}") from None


def template_hash(name: str) -> str:
    """sha256 hex of the template definition (stable across processes and Python versions)."""
    definition = asdict(get_template(name))
    return hashlib.sha256(json.dumps(definition, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


def select_exemplars(dev_questions: Sequence[Question], topic: str, k: int) -> list[Question]:
    """The k dev exemplars of a topic: the same for every question of the topic.

    Sorted by question_id so the choice does not depend on file or database order.
    Fewer than k are used when the topic's dev split is smaller.
    """
    if k <= 0:
        return []
    pool = sorted((q for q in dev_questions if q.topic == topic), key=lambda q: q.question_id)
    for q in pool[:k]:
        if not q.answer:
            raise ValueError(f"dev question {q.question_id!r} (topic {topic!r}) has no answer; exemplars need one")
    return pool[:k]


def exemplar_shots(exemplars: Sequence[Question]) -> list[tuple[str, tuple[str, ...], str]]:
    """Exemplars in their original option order, shown with their (first) correct letter."""
    return [(q.question, q.options, sorted(q.answer)[0]) for q in exemplars]  # type: ignore[arg-type]


def topic_shots(questions: Sequence[Question], dev_questions: Sequence[Question] | None,
                k: int) -> dict[str, list[tuple[str, tuple[str, ...], str]]]:
    """Each topic's exemplars, chosen once: every question of a topic shares the same few-shot prefix."""
    return {t: exemplar_shots(select_exemplars(dev_questions or (), t, k))
            for t in sorted({q.topic for q in questions})}


def render_questions(questions: Sequence[Question], *, template: str, shots: int = 0,
                     dev_questions: Sequence[Question] | None = None) -> list[str]:
    """Each question once, in its original option order, after its topic's exemplars (context sizing, benches)."""
    tmpl = get_template(template)
    by_topic = topic_shots(questions, dev_questions, shots)
    return [tmpl.render(q.question, q.options, by_topic[q.topic]) for q in questions]
