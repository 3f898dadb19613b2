"""Judge a list of questions in fixed chunks, persisting each chunk through a callback.

Mirrors evaluator.engine.run_evaluation: the caller stores each chunk
idempotently (keyed by (job, chunk index)) and passes the stored chunks back as
`done_chunks` to resume; done chunks are never judged again. The plan (order
and chunking) depends only on the item list and chunk_size, so a resumed job
judges exactly the questions an uninterrupted one would.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping, Sequence

from .base import Judge

Row = dict[str, Any]


@dataclass(frozen=True)
class JudgeItem:
    uid: str
    text: str
    topic: str = ""
    split: str = ""


def plan_hash(items: Sequence[JudgeItem], chunk_size: int) -> str:
    digest = hashlib.sha256(f"{chunk_size}\n".encode())
    for item in items:
        digest.update(item.uid.encode() + b"\n")
    return digest.hexdigest()


def n_chunks(n_items: int, chunk_size: int) -> int:
    return math.ceil(n_items / chunk_size) if n_items else 0


def run_judging(judge: Judge, items: Sequence[JudgeItem], *, chunk_size: int = 64,
                done_chunks: Mapping[int, Sequence[Row]] | Collection[int] = frozenset(),
                on_chunk: Callable[[int, list[Row]], None] | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[Row]:
    """Rows {uid, score, method, raw, [mass, probs, ten_split]} for every item, in item order.

    With done_chunks given as a set of indices, the rows of those chunks are not returned."""
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    done_map = dict(done_chunks) if isinstance(done_chunks, Mapping) else None
    done_set = set(done_map) if done_map is not None else set(done_chunks)
    total = len(items)
    out: list[Row] = []
    finished = 0
    for index in range(n_chunks(total, chunk_size)):
        chunk = items[index * chunk_size:(index + 1) * chunk_size]
        if index in done_set:
            if done_map is not None:
                out.extend(done_map[index])
        else:
            verdicts = judge.judge([item.text for item in chunk])
            if len(verdicts) != len(chunk):
                raise RuntimeError(f"judge returned {len(verdicts)} verdicts for {len(chunk)} questions")
            rows = [{"uid": item.uid, **verdict.to_row()} for item, verdict in zip(chunk, verdicts)]
            if on_chunk is not None:
                on_chunk(index, rows)
            out.extend(rows)
        finished += len(chunk)
        if progress is not None:
            progress(finished, total)
    return out
