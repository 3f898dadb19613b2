"""The figures a phone user feels, derived from device reports (issue 33). Pure: no Django. Each says what it is.

- Time to first token at the benchmark's median prompt. The first token comes from the prompt's last logits, so it
  costs one prefill of the prompt: TTFT = prompt tokens / the device's prompt speed (llama-bench's pp avg_ts). The
  prompt's length is the file's own where its server cost profile tokenized the median-length Mobile-MMLU prompt
  with the file's vocabulary (evaluator/ondevice_profile.py: ``ttft.prompt_tokens``); else PUBLISHED_MEDIAN_PROMPT_TOKENS.
  Derived, and labelled so: pp512's rate at another length is an approximation. A report whose pp test ran exactly
  that many tokens (``llama-bench -p N``) gives the measured figure: n_prompt / its avg_ts.
- Sustained speed: a phone slows as it heats (thermal studies see 40% within minutes). llama-bench's ``samples_ts``
  lists each repetition's tokens/s in order; the drop is 1 - last / first, shown when a report has at least
  SUSTAINED_MIN_REPETITIONS repetitions (the README asks for -r 10).
- Whether the file fits: its bytes (every weight is read for each token, so all of it must stay in memory: a phone
  has no swap, and a memory-mapped page evicted is read again from flash) plus the KV cache at the profile's context,
  against the share of the device's RAM one app may hold (APP_RAM_SHARE, an assumption: its sources below).

Every figure derived here is finite or None (``finite``): never inf or NaN, which JSON cannot hold and a page would
print as "inf s". What a report's own tests give (its prompt rates by length, its sustained drop) is derived once, at
intake (``report_figures``), and stored on the report: pages never read the repetitions again.
"""
from __future__ import annotations

import math
import statistics

# The median-length Mobile-MMLU prompt (evaluator/ondevice_prompt.txt: the median of 401 prompts shaped as the
# published files are, bench/real_shapes.py; 1,699 characters) is 424 tokens in Gemma 3's vocabulary, BOS included
# (measured with llama.cpp on gemma-3-270m-q4_k_m.gguf). Used where a file has no profile of its own.
PUBLISHED_MEDIAN_PROMPT_TOKENS = 424
SOURCE_FILE = "file"
SOURCE_PUBLISHED = "published"
PROMPT_SOURCES = {
    SOURCE_FILE: "the median-length Mobile-MMLU prompt in this file's own tokens (its server cost profile)",
    SOURCE_PUBLISHED: (f"the median-length Mobile-MMLU prompt of the published shapes, {PUBLISHED_MEDIAN_PROMPT_TOKENS} "
                       "tokens (Gemma 3's vocabulary; this file has no profile)"),
}
SUSTAINED_MIN_REPETITIONS = 5

# The profile opens every file with n_ctx = max(pp + 1, tg + 1, 2048) (evaluator/ondevice_profile.py): 2048 at its
# pp512/tg128. A profile that records n_ctx is read instead.
PROFILE_MIN_CONTEXT = 2048
# llama.cpp's default KV cache type is f16 (cache_type_k/v): 2 bytes an element. It keeps every layer's cache at the
# full context ("full-size SWA cache" for Gemma 3's sliding-window layers), so the figure is what llama.cpp allocates.
KV_BYTES_PER_ELEMENT = 2
# A phone leaves one app about half its RAM. An assumption, from:
# - iOS: an app has a per-device memory limit below the RAM (Apple, "Reducing your app's memory use": "The memory
#   limit that triggers the exception depends on the device"; os_proc_available_memory() tells an app its own;
#   the com.apple.developer.kernel.increased-memory-limit entitlement raises it on some models). Measured jetsam
#   limits are about half the RAM: 2,040 MB of a 4 GB iPhone XS (Stack Overflow, "iOS app maximum memory budget",
#   question 5887248, its table of measured limits).
# - Android: no fixed per-app cap on native memory (the heap limits of ActivityManager.getMemoryClass() are for Java
#   objects only); the low-memory killer (lmkd) ends apps when free memory runs low, and the system, its services
#   and the launcher hold some 2-3 GB of an 8 GB phone.
APP_RAM_SHARE = 0.5
APP_RAM_SOURCE = ("assumed: a phone leaves one app about half its RAM (iOS's per-device app memory limit, measured "
                  "near half the RAM; Android's low-memory killer and the system's own 2–3 GB)")
GIB = 2**30  # a phone's "8 GB" of RAM is 8 GiB of LPDDR
FITS, TIGHT, TOO_BIG, UNKNOWN = "fits", "tight", "does not fit", "unknown"


def median_prompt(profile: dict | None) -> tuple[int, str]:
    """(tokens, source): the benchmark's median prompt in the file's tokens where its profile measured it."""
    tokens = ((profile or {}).get("ttft") or {}).get("prompt_tokens")
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        return tokens, SOURCE_FILE
    return PUBLISHED_MEDIAN_PROMPT_TOKENS, SOURCE_PUBLISHED


def finite(value) -> float | None:
    """A derived figure as it may be stored or served: a finite number, else None."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _ratio(numerator, denominator) -> float | None:
    """numerator / denominator when both are finite and the quotient is too (a denormal divisor overflows)."""
    numerator, denominator = finite(numerator), finite(denominator)
    if numerator is None or not denominator:
        return None
    try:
        return finite(numerator / denominator)
    except OverflowError:
        return None


def test_kind(n_prompt: int, n_gen: int) -> str:
    """pp (prompt processing), tg (generation) or pg (both in one test: a mixed rate)."""
    return "pg" if n_prompt and n_gen else "pp" if n_prompt else "tg"


def fastest(tests, kind: str):
    """A report's figure of a kind (pp, tg): its fastest test of that kind (objects with n_prompt, n_gen, avg_ts)."""
    return max((t for t in tests if test_kind(t.n_prompt, t.n_gen) == kind), key=lambda t: t.avg_ts, default=None)


def ttft_derived(pp_tokens_per_s: float | None, prompt_tokens: int) -> float | None:
    """Seconds to the first token of a `prompt_tokens` prompt at this prompt speed: one prefill."""
    return _ratio(prompt_tokens, pp_tokens_per_s) if pp_tokens_per_s and pp_tokens_per_s > 0 else None


def prompt_rates(tests) -> dict:
    """A report's prompt speeds by prompt length: {str(n_prompt): the fastest avg_ts of its pp tests of that many
    tokens} from (n_prompt, n_gen, avg_ts) triples; what ttft_measured needs, stored at intake (JSON keys are text)."""
    rates: dict = {}
    for n_prompt, n_gen, avg in tests:
        if n_prompt and not n_gen and finite(avg) and avg > 0:
            rates[str(n_prompt)] = max(rates.get(str(n_prompt), 0.0), float(avg))
    return rates


def ttft_measured(rates: dict | None, prompt_tokens: int) -> float | None:
    """Seconds to prefill exactly `prompt_tokens`, from a report's pp test of that many tokens (prompt_rates: the
    fastest when it swept threads); None without one."""
    rate = (rates or {}).get(str(prompt_tokens)) if isinstance(rates, dict) else None
    return _ratio(prompt_tokens, rate) if isinstance(rate, (int, float)) and rate > 0 else None


def sustained(samples) -> dict | None:
    """The first and last repetition's tokens/s and the drop between them (a fraction: 0.25 is 25% slower at the
    end), for SUSTAINED_MIN_REPETITIONS repetitions or more; None for fewer, or where it is not finite."""
    samples = list(samples or ())
    if len(samples) < SUSTAINED_MIN_REPETITIONS or not finite(samples[0]) or samples[0] <= 0:
        return None
    quotient = _ratio(samples[-1], samples[0])
    if quotient is None:
        return None
    return {"first": samples[0], "last": samples[-1], "drop": 1 - quotient, "repetitions": len(samples)}


def report_figures(tests) -> dict:
    """What a report's pages need of its tests, derived once at intake and stored on the report: its prompt rates by
    length (for the measured TTFT) and the sustained drop of its generation figure (its fastest tg test). `tests`:
    objects with n_prompt, n_gen, avg_ts and samples_ts (llama_bench.BenchTest, a stored DeviceTest)."""
    tests = list(tests)
    tg = fastest(tests, "tg")
    figure = tg and sustained(tg.samples_ts)
    return {"prompt_rates": prompt_rates((t.n_prompt, t.n_gen, t.avg_ts) for t in tests),
            "tg_sustained_drop": figure["drop"] if figure else None}


def median_drop(drops_by_account: dict) -> float | None:
    """One vote per account (the median of its reports' drops), then their median."""
    votes = [statistics.median(d) for d in drops_by_account.values() if d]
    return statistics.median(votes) if votes else None


def profile_context(profile: dict | None) -> int:
    """The context (tokens) the profile ran the file at."""
    profile = profile or {}
    if isinstance(profile.get("n_ctx"), int) and profile["n_ctx"] > 0:
        return profile["n_ctx"]
    pp, tg = ((profile.get(kind) or {}).get("tokens") or 0 for kind in ("pp", "tg"))
    return max(pp + 1, tg + 1, PROFILE_MIN_CONTEXT)


def kv_cache_bytes(kv: dict | None, context: int) -> int | None:
    """Bytes of llama.cpp's KV cache at `context` tokens: keys and values of every layer, f16, from the GGUF header's
    block_count, head_count_kv and key/value_length (each head's width; embedding_length / head_count where the
    header omits them): layers × KV heads × (key + value length) × 2 bytes × context. None where a fact is missing."""
    kv = kv or {}
    layers, heads_kv = kv.get("block_count"), kv.get("head_count_kv", kv.get("head_count"))
    width = kv["embedding_length"] // kv["head_count"] if kv.get("embedding_length") and kv.get("head_count") else None
    k_len, v_len = kv.get("key_length", width), kv.get("value_length", width)
    if not all(isinstance(v, int) and v > 0 for v in (layers, heads_kv, k_len, v_len)):
        return None
    return layers * heads_kv * (k_len + v_len) * KV_BYTES_PER_ELEMENT * context


def fit(file_bytes: int | None, kv_bytes: int | None, ram_gb: float | None) -> dict:
    """Does the file with its KV cache fit the share of `ram_gb` one app gets? `verdict`: fits (within the share),
    tight (within the RAM but over the share: the app may be killed), does not fit (over the RAM), unknown (no file
    size or RAM). The KV cache, when unknown, is left out and `kv_known` says so: the need is then a lower bound."""
    ram_gb = finite(ram_gb) if ram_gb and ram_gb > 0 else None  # a stored inf would overflow the budget
    need = (file_bytes or 0) + (kv_bytes or 0) if file_bytes else None
    out = {"file_bytes": file_bytes, "kv_bytes": kv_bytes, "kv_known": kv_bytes is not None, "need_bytes": need,
           "ram_gb": ram_gb, "budget_bytes": int(ram_gb * GIB * APP_RAM_SHARE) if ram_gb else None}
    if need is None or not ram_gb:
        return {**out, "verdict": UNKNOWN}
    verdict = FITS if need <= out["budget_bytes"] else TIGHT if need <= ram_gb * GIB else TOO_BIG
    return {**out, "verdict": verdict}
