"""The resumable, chunked evaluation engine.

The (question, variant) work list is fixed by the inputs and cut into chunks of
`chunk_size`. Each chunk is scored on its own (batches never cross a chunk
boundary), so a chunk's rows are the same bits whether the run went straight
through or resumed after a crash. The caller persists each chunk in
`on_chunk(index, rows)` (idempotently, keyed by (run, chunk)) and passes the
persisted chunks back as `done_chunks` to resume.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from .backends.base import Backend
from .metrics import summarize
from .prompts import get_template, select_exemplars, template_hash, topic_shots
from .protocols import Protocol, category_of, fit_prompt, get_protocol, original_letter, protocol_exemplars
from .protocols import extract_answer as protocol_extract_answer
from .questions import Question
from .scoring import decide_letters, extract_answer, is_correct
from .variants import VARIANTS, VariantView, make_view, parse_variants, variant_applies

Row = dict[str, Any]
MODES = ("logprobs", "generate")
MAX_OUTPUT_CHARS = 2000  # generated text kept per row, for audits of the parser


class PlanMismatch(ValueError):
    """Resuming under another plan would mix chunks of two layouts: refused, never merged."""

    code = "PLAN_MISMATCH"


@dataclass(frozen=True)
class WorkItem:
    question: Question
    view: VariantView


@dataclass
class EvaluationPlan:
    items: list[WorkItem]
    chunk_size: int
    fingerprint: str
    skipped: list[tuple[str, str]]  # (question_id, variant) that do not apply (fixed-D on 3 options)

    @property
    def n_chunks(self) -> int:
        return (len(self.items) + self.chunk_size - 1) // self.chunk_size

    def chunk(self, index: int) -> list[WorkItem]:
        return self.items[index * self.chunk_size:(index + 1) * self.chunk_size]


@dataclass
class EvaluationResult:
    rows: list[Row]
    n_chunks: int
    computed_chunks: list[int]
    missing_chunks: list[int]
    fingerprint: str
    settings: dict[str, Any] = field(default_factory=dict)
    skipped_items: int = 0  # (question, variant) pairs that do not apply (EvaluationPlan.skipped)

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The rows' accuracies (metrics.summarize), made when first read: the GPU worker stores rows and
        never reads it; the trusted scoring step summarises the rows it scores."""
        summary = summarize(self.rows, self.settings.get("variants"))
        summary["skipped_items"] = self.skipped_items
        if self.missing_chunks:
            summary["partial"] = True
        return summary

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "n_chunks": self.n_chunks, "computed_chunks": self.computed_chunks,
                "missing_chunks": self.missing_chunks, "fingerprint": self.fingerprint, "settings": self.settings}


def plan_evaluation(
    questions: Sequence[Question],
    *,
    variants: Iterable[str] = ("original",),
    seed: int = 0,
    chunk_size: int = 256,
    template: str = "default",
    shots: int = 0,
    mode: str = "logprobs",
    use_chat_template: bool = False,
    dev_questions: Sequence[Question] | None = None,
    protocol: str | None = None,
) -> EvaluationPlan:
    """The work list, topic by topic and question-major, and a fingerprint of everything that shapes it.

    Topic by topic: a topic's few-shot exemplars are one shared prefix, so its prompts follow each other
    and a prefix cache (vLLM's, the transformers backend's) computes the prefix once per topic. Question-
    major: a question's answer orders are adjacent, so they share the header and the stem too. Within a
    topic questions keep their order. Store the fingerprint with the run; resuming with a different one
    would mix chunks of two plans. protocol: a named protocol (protocols.py) that fixes the prompt, the exemplars,
    the shots and the mode in place of `template`, `shots` and `mode`.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be >= 1")
    variants = parse_variants(variants if isinstance(variants, str) else list(variants))
    proto = get_protocol(protocol) if protocol else None
    topic_rank = {t: i for i, t in enumerate(sorted({q.topic for q in questions}))}
    items, skipped = [], []
    for q in sorted(questions, key=lambda q: topic_rank[q.topic]):  # stable: question order within a topic
        for v in variants:
            if variant_applies(q, v):
                items.append(WorkItem(q, make_view(q, v, seed)))
            else:
                skipped.append((q.question_id, v))
    ident: dict[str, Any] = {
        "questions": [[q.question_id, q.question, list(q.options), q.topic] for q in questions],
        "variants": list(variants), "seed": seed, "chunk_size": chunk_size, "chat": use_chat_template,
    }
    if proto is None:
        ident.update(template=template_hash(template), shots=shots, mode=mode, exemplars={
            t: [q.question_id for q in select_exemplars(dev_questions or (), t, shots)]
            for t in sorted({q.topic for q in questions})} if shots else {})
    else:  # the protocol's hash stands for its prompt, shots, decoding and answer reading
        ident.update(protocol=proto.hash, categories=sorted({(q.topic, category_of(q)) for q in questions}),
                     exemplars={t: [q.question_id for q in ex]
                                for t, ex in protocol_exemplars(proto, questions, dev_questions).items()})
    fingerprint = hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()
    return EvaluationPlan(items, chunk_size, fingerprint, skipped)


def _base_row(item: WorkItem) -> Row:
    v = item.view
    return {"question_id": v.question_id, "variant": v.variant, "topic": item.question.topic,
            "seed": v.seed, "perm": list(v.perm)}


def _failed_row(item: WorkItem, backend: Backend, limit: int | None = None) -> Row:
    """A question the backend could not score: wrong, with the reason, never a guess and never the chunk."""
    limit = limit or getattr(backend, "max_prompt_tokens", None)
    row = _base_row(item) | {"predicted": None, "predicted_original": None,
                             "error": f"prompt_too_long: the prompt exceeds the {limit}-token context of this run"}
    if item.view.answer is not None:
        row["correct"] = False
    return row


def _score_chunk(backend: Backend, items: list[WorkItem], prompts: list[str], *, mode: str,
                 use_chat_template: bool, max_new_tokens: int) -> list[Row]:
    rows = []
    if mode == "logprobs":
        for item, lps in zip(items, backend.letter_logprobs(prompts, use_chat_template=use_chat_template)):
            if lps is None:  # the backend could not take this prompt (longer than its context)
                rows.append(_failed_row(item, backend))
                continue
            d = decide_letters(lps, item.view.letters)
            row = _base_row(item) | {
                "predicted": d.predicted, "predicted_original": item.view.original_letter(d.predicted),
                "letter_probs": d.letter_probs, "letter_mass": d.letter_mass, "tie": d.tie,
            }
            if item.view.answer is not None:
                row["correct"] = is_correct(d.predicted, item.view.answer)
            rows.append(row)
    else:
        texts = backend.generate(prompts, max_new_tokens=max_new_tokens, use_chat_template=use_chat_template)
        for item, text in zip(items, texts):
            if text is None:
                rows.append(_failed_row(item, backend))
                continue
            letter = extract_answer(text, item.view.letters)
            row = _base_row(item) | {
                "predicted": letter,
                "predicted_original": item.view.original_letter(letter) if letter else None,
                "parsed": letter is not None, "output": text[:MAX_OUTPUT_CHARS],
            }
            if item.view.answer is not None:
                row["correct"] = is_correct(letter, item.view.answer)  # unparsed -> wrong, never a guess
            rows.append(row)
    return rows


def _score_protocol_chunk(backend: Backend, items: list[WorkItem], proto: Protocol,
                          exemplars: Mapping[str, Sequence[Question]], *, use_chat_template: bool,
                          max_new_tokens: int) -> list[Row]:
    """A protocol's rows: each prompt fitted to the protocol's budget (k lowered as its script does), generated
    under its decoding rule, the letter read by its patterns. `shots`: the k the prompt used. `output` keeps the
    text's last MAX_OUTPUT_CHARS characters, where a chain of thought states its answer."""
    def count(prompt: str) -> int:
        return backend.count_tokens(prompt, use_chat_template=use_chat_template)

    fitted = [fit_prompt(proto, it.question.question, it.view.options, category_of(it.question),
                         exemplars[it.question.topic], count) for it in items]
    ready = [i for i, f in enumerate(fitted) if f is not None]
    texts = backend.generate([fitted[i][0] for i in ready], max_new_tokens=max_new_tokens,  # type: ignore[index]
                             use_chat_template=use_chat_template, decoding=proto.decoding) if ready else []
    by_item = dict(zip(ready, texts))
    rows = []
    for i, item in enumerate(items):
        text = by_item.get(i)
        if text is None:
            rows.append(_failed_row(item, backend, limit=proto.prompt_budget if fitted[i] is None else None))
            continue
        letter = protocol_extract_answer(text)
        shown = original_letter(item.view.options, letter)  # letter of view.options (N/A padding dropped)
        row = _base_row(item) | {
            "predicted": letter, "predicted_original": item.view.original_letter(shown) if shown else None,
            "parsed": letter is not None, "shots": fitted[i][1], "output": text[-MAX_OUTPUT_CHARS:],  # type: ignore[index]
        }
        if item.view.answer is not None:
            row["correct"] = shown is not None and shown in item.view.answer  # unparsed -> wrong (see protocols)
        rows.append(row)
    return rows


def run_evaluation(
    backend: Backend,
    questions: Sequence[Question],
    *,
    template: str = "default",
    shots: int = 0,
    dev_questions: Sequence[Question] | None = None,
    variants: Iterable[str] = ("original",),
    seed: int = 0,
    chunk_size: int = 256,
    done_chunks: Mapping[int, Sequence[Row]] | Collection[int] = frozenset(),
    load_chunk: Callable[[int], Sequence[Row]] | None = None,
    on_chunk: Callable[[int, list[Row]], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
    mode: str = "logprobs",
    use_chat_template: bool = False,
    max_new_tokens: int | None = None,
    expected_fingerprint: str | None = None,
    plan: EvaluationPlan | None = None,
    protocol: str | None = None,
) -> EvaluationResult:
    """Score every (question, variant); see the module docstring for the resume contract.

    done_chunks: a mapping chunk index -> its persisted rows, or a set of indices; for a set,
    `load_chunk(i)` supplies the rows (without it the result covers only the rows at hand and
    `missing_chunks` lists what was left out). plan: `plan_evaluation` of these same arguments where the
    caller has made it already (it is used as it is, not made again). protocol: a named protocol
    (protocols.py) in place of template, shots and mode; max_new_tokens defaults to its own (else 32).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}")
    variants = parse_variants(variants if isinstance(variants, str) else list(variants))
    proto = get_protocol(protocol) if protocol else None
    if proto is None and shots and not dev_questions:
        raise ValueError(f"shots={shots} needs dev_questions (the topics' dev split)")
    if plan is None:
        plan = plan_evaluation(questions, variants=variants, seed=seed, chunk_size=chunk_size, template=template,
                               shots=shots, mode=mode, use_chat_template=use_chat_template,
                               dev_questions=dev_questions, protocol=protocol)
    _check_plan(plan, chunk_size=chunk_size, expected_fingerprint=expected_fingerprint)
    if proto is not None:
        score, settings = _protocol_scorer(backend, proto, questions, dev_questions,
                                           use_chat_template=use_chat_template, max_new_tokens=max_new_tokens)
    else:
        score, settings = _template_scorer(backend, template, questions, dev_questions, shots=shots, mode=mode,
                                           use_chat_template=use_chat_template, max_new_tokens=max_new_tokens)
    walk = _walk_chunks(plan, score, done_chunks=done_chunks, load_chunk=load_chunk, on_chunk=on_chunk,
                        progress=progress)
    settings.update(variants=list(variants), seed=seed, chunk_size=chunk_size, use_chat_template=use_chat_template)
    return EvaluationResult(walk.rows(), plan.n_chunks, walk.computed, walk.missing, plan.fingerprint, settings,
                            skipped_items=len(plan.skipped))


Scorer = Callable[[list[WorkItem]], list[Row]]


def _protocol_scorer(backend: Backend, proto: Any, questions: Sequence[Question],
                     dev_questions: Sequence[Question] | None, *, use_chat_template: bool,
                     max_new_tokens: int | None) -> tuple[Scorer, dict[str, Any]]:
    """A named protocol's chunk scorer and the settings its run card records."""
    new_tokens = max_new_tokens or proto.max_new_tokens
    exemplars = protocol_exemplars(proto, questions, dev_questions)

    def score(items: list[WorkItem]) -> list[Row]:
        return _score_protocol_chunk(backend, items, proto, exemplars, use_chat_template=use_chat_template,
                                     max_new_tokens=new_tokens)
    settings = {"protocol": proto.name, "protocol_hash": proto.hash, "protocol_version": proto.version,
                "decoding": proto.decoding.describe(), "unparsed": proto.unparsed, "guess_seed": proto.guess_seed,
                "template": None, "shots": proto.shots,
                "exemplars": {t: len(ex) for t, ex in exemplars.items()}, "mode": "generate",
                "max_new_tokens": new_tokens}
    return score, settings


def _template_scorer(backend: Backend, template: str, questions: Sequence[Question],
                     dev_questions: Sequence[Question] | None, *, shots: int, mode: str, use_chat_template: bool,
                     max_new_tokens: int | None) -> tuple[Scorer, dict[str, Any]]:
    """The leaderboard's own settings (a template, k shots, letters or generation): the scorer and its settings."""
    tmpl, new_tokens = get_template(template), max_new_tokens or 32
    shot_cache = topic_shots(questions, dev_questions, shots)

    def score(items: list[WorkItem]) -> list[Row]:
        prompts = [tmpl.render(it.question.question, it.view.options, shot_cache[it.question.topic])
                   for it in items]
        return _score_chunk(backend, items, prompts, mode=mode, use_chat_template=use_chat_template,
                            max_new_tokens=new_tokens)
    settings = {"template": template, "template_hash": template_hash(template), "shots": shots,
                "exemplars": {t: len(s) for t, s in sorted(shot_cache.items())} if shots else {},
                "mode": mode, "max_new_tokens": new_tokens if mode == "generate" else None}
    return score, settings


def _check_plan(plan: EvaluationPlan, *, chunk_size: int, expected_fingerprint: str | None) -> None:
    if plan.chunk_size != chunk_size:
        raise ValueError(f"the plan's chunk_size {plan.chunk_size} is not the run's {chunk_size}")
    if expected_fingerprint and plan.fingerprint != expected_fingerprint:
        raise PlanMismatch(f"the plan's fingerprint {plan.fingerprint[:12]} is not the run's "
                           f"{expected_fingerprint[:12]}: the questions or settings changed since the run was made")


@dataclass
class _Walk:
    """What walking a plan's chunks gave: rows per chunk, and which chunks were computed or left missing."""

    by_chunk: dict[int, list[Row]] = field(default_factory=dict)
    computed: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)

    def rows(self) -> list[Row]:
        return [r for i in sorted(self.by_chunk) for r in self.by_chunk[i]]


def _walk_chunks(plan: EvaluationPlan, score: Callable[[list[WorkItem]], list[Row]], *,
                 done_chunks: Mapping[int, Sequence[Row]] | Collection[int],
                 load_chunk: Callable[[int], Sequence[Row]] | None,
                 on_chunk: Callable[[int, list[Row]], None] | None,
                 progress: Callable[[int, int], None] | None) -> _Walk:
    """Each chunk in order: a done one taken from `done_chunks` (or `load_chunk`), any other scored and handed
    to `on_chunk`; `progress(items finished, items in the plan)` after each."""
    done_map = dict(done_chunks) if isinstance(done_chunks, Mapping) else None
    done_set = set(done_map) if done_map is not None else set(done_chunks)
    walk, finished, total = _Walk(), 0, len(plan.items)
    for index in range(plan.n_chunks):
        items = plan.chunk(index)
        if index not in done_set:
            rows = score(items)
            if on_chunk is not None:
                on_chunk(index, rows)
            walk.by_chunk[index] = rows
            walk.computed.append(index)
        elif done_map is not None:
            walk.by_chunk[index] = [dict(r) for r in done_map[index]]
        elif load_chunk is not None:
            walk.by_chunk[index] = [dict(r) for r in load_chunk(index)]
        else:
            walk.missing.append(index)
        finished += len(items)
        if progress is not None:
            progress(finished, total)
    return walk


def rescore_rows(rows: Iterable[Row], answers: Mapping[str, Collection[str]]) -> list[Row]:
    """Set `correct` from an answer key in the ORIGINAL option order (the trusted worker's job:
    GPU workers can run without the sealed key, rows carry predicted_original)."""
    out = []
    for r in rows:
        r = dict(r)
        key = answers.get(r["question_id"])
        r["correct"] = None if key is None else (r.get("predicted_original") in set(key))
        if r["correct"] is None:
            r.pop("correct")
        out.append(r)
    return out


__all__ = ["EvaluationPlan", "EvaluationResult", "MODES", "PlanMismatch", "Row", "VARIANTS", "WorkItem",
           "plan_evaluation", "rescore_rows", "run_evaluation"]
