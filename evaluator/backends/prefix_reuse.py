"""Shared-prefix KV reuse for the transformers backend: which models allow it, how prompts fall into groups
that share a prefix (the template header, a topic's exemplars), the batch layout of the suffixes after a
shared prefix, and the KV caches of recent prefixes kept across batches and calls (PrefixKVCache).

Only models whose every layer is plain full attention qualify (prefix_reuse_support); a kept prefix gives
the same bits as a recomputed one.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any

MIN_SHARED_PREFIX = 8  # tokens; below this a separate prefix pass costs more than it saves
TOPIC_DROP = 64  # tokens; a fall this large in the prefix shared with the next prompt ends a prefix group
PREFIX_CACHE_MB = 256  # default memory for prefix KV kept across batches and calls
PREFIX_CACHE_ENTRIES = 16


def common_prefix_len(rows: list[list[int]]) -> int:
    """Longest common prefix, leaving every row at least one token of its own (the last one,
    whose logits we read)."""
    limit = min(len(r) for r in rows) - 1
    n = 0
    first = rows[0]
    while n < limit and all(r[n] == first[n] for r in rows):
        n += 1
    return n


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def prefix_groups(rows: list[list[int]]) -> list[list[int]]:
    """Positions of `rows` (in token order) cut into groups that share a long prefix.

    A cut goes where the prefix shared with the previous row falls TOPIC_DROP+ tokens below the one
    shared on either side: where a topic's exemplars end and the next topic's begin. A batch that
    straddled the two would share only the template header."""
    links = [_lcp(a, b) for a, b in zip(rows, rows[1:])]  # links[i]: rows i and i+1
    groups: list[list[int]] = [[0]] if rows else []
    for i in range(1, len(rows)):
        around = max(links[i - 2] if i >= 2 else 0, links[i] if i < len(links) else 0)
        if links[i - 1] + TOPIC_DROP <= around:
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def even_chunks(items: list[int], size: int) -> list[list[int]]:
    """As few chunks of at most `size` as possible, of near-equal length (no batch of one left over)."""
    n = -(-len(items) // size)
    step = -(-len(items) // n) if items else 1
    return [items[i:i + step] for i in range(0, len(items), step)]


def prefix_reuse_support(model: Any) -> tuple[bool, str]:
    """Whether one prefix KV cache may be repeated over a batch: only if every layer is plain full
    attention, as the model config declares it.

    A sliding window (or attention chunk) is counted in cache slots, so the padding gap between the
    shared prefix and a shorter row's suffix moves the window; a recurrent layer (SSM, conv, linear
    attention) keeps a state that neither repeats over a batch nor skips a gap; an ALiBi bias built
    from key slots (MPT) counts the gap as distance.
    """
    if getattr(model, "_is_stateful", False):
        return False, "recurrent layers (stateful model)"
    try:
        types = set(_layer_types(model.config.get_text_config(decoder=True)))
    except Exception as exc:  # unknown layout: do not guess
        return False, f"layer types unknown ({type(exc).__name__})"
    other = sorted(types - {"full_attention"})
    if other:
        return False, f"{', '.join(other)} layers"
    if _uses_alibi(model.config):
        return False, "ALiBi position bias"
    return True, "every layer is full attention"


def _uses_alibi(config: Any) -> bool:
    attn = getattr(config, "attn_config", None)
    attn_alibi = attn.get("alibi") if isinstance(attn, dict) else getattr(attn, "alibi", False)
    return bool(getattr(config, "alibi", False) or attn_alibi)


def _layer_types(config: Any) -> list[str]:
    try:
        from transformers.cache_utils import get_layer_types_and_kwargs
    except ImportError:  # older transformers: what the config says; any window makes it sliding
        if getattr(config, "layer_types", None):
            return list(config.layer_types)
        windowed = any(getattr(config, k, None) is not None for k in ("sliding_window", "attention_chunk_size"))
        return ["sliding_attention" if windowed else "full_attention"]
    return list(get_layer_types_and_kwargs(config)[0])


def _kv_bytes(cache: Any) -> int:
    tensors = [getattr(layer, name, None) for layer in getattr(cache, "layers", ()) for name in ("keys", "values")]
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


class PrefixKVCache:
    """KV caches of recent prompt prefixes (template header + a topic's exemplars), keyed by their
    token ids, least recently used out first, within max_bytes (the latest entry stays even when
    larger, so a prefix group's batches share it). max_bytes=0 keeps nothing: every batch computes
    its own prefix. An entry is computed the same way whenever it is missing (one row, the prefix
    alone) and never mutated, so a hit gives the same bits as a recompute."""

    def __init__(self, max_bytes: int, max_entries: int = PREFIX_CACHE_ENTRIES) -> None:
        self.max_bytes, self.max_entries = max_bytes, max_entries
        self._entries: OrderedDict[tuple[int, ...], tuple[Any, int]] = OrderedDict()

    def get(self, key: tuple[int, ...]) -> Any:
        if key not in self._entries:
            return None
        self._entries.move_to_end(key)
        return self._entries[key][0]

    def put(self, key: tuple[int, ...], cache: Any) -> None:
        if self.max_bytes <= 0:
            return
        self._entries[key] = (cache, _kv_bytes(cache))
        self._entries.move_to_end(key)
        while len(self._entries) > 1 and (len(self._entries) > self.max_entries or self.nbytes > self.max_bytes):
            self._entries.popitem(last=False)

    @property
    def nbytes(self) -> int:
        return sum(n for _, n in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


def suffix_batch(torch: Any, rows: list[list[int]], shared: int, pad_id: int):
    """(input_ids, attention_mask, position_ids) for the suffixes of `rows` after their first `shared` tokens
    (the same in every row, taken from a KV cache): suffixes left-padded after the prefix, the mask covering
    the prefix and hiding the gap, positions continuing from the prefix."""
    suffixes = [ids[shared:] for ids in rows]
    width = max(len(x) for x in suffixes)
    input_ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), shared + width), dtype=torch.long)
    positions = torch.full((len(rows), width), shared, dtype=torch.long)
    mask[:, :shared] = 1
    for r, x in enumerate(suffixes):
        input_ids[r, width - len(x):] = torch.tensor(x, dtype=torch.long)
        mask[r, shared + width - len(x):] = 1
        positions[r, width - len(x):] = torch.arange(shared, shared + len(x))
    return input_ids, mask, positions
