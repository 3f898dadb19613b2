"""A device report's llama-bench JSON (``llama-bench -m FILE.gguf -o json``), checked completely before anything is
stored. Pure: no Django; the caller matches the file and stores the result.

The fields read, as tools/llama-bench/llama-bench.cpp of the pinned llama.cpp (llama-cpp-python 0.3.36's
vendor/llama.cpp, commit 0c1e570) writes them; its ``json_printer`` prints one object per test, an array of them:

- ``model_filename``: the path given to ``-m`` (``inst.model``); only its last part, the file name, is kept.
- ``model_size``: ``llama_model_size(model)``: the bytes of every tensor of the file (``ggml_nbytes`` summed by the
  model loader), not the file's size, which adds the header and padding.
- ``model_type``: ``llama_model_desc``, e.g. "llama 1B Q4_K - Medium".
- ``n_prompt`` / ``n_gen``: tokens of the prompt batch and tokens generated one at a time by the test: pp512 is
  ``n_prompt=512, n_gen=0``, tg128 ``n_prompt=0, n_gen=128``, ``-pg`` tests both (a mixed rate, not kept).
- ``avg_ts`` / ``stddev_ts``: tokens per second, ``1e9 * (n_prompt + n_gen) / ns`` of each repetition, their mean
  and sample standard deviation (``test::get_ts``, ``avg``, ``stdev``).
- ``n_threads``, ``n_depth`` (tokens already in the context), ``n_gpu_layers``: the test's settings.
- ``build_commit`` / ``build_number``: ``llama_commit()`` / ``llama_build_number()`` of the binary (git's short hash
  and commit count at build time; "unknown" and 0 without git).
- ``backends`` (the ggml backends other than CPU, else "CPU"), ``cpu_info`` and ``gpu_info``
  (``ggml_backend_dev_description`` of the CPU and GPU devices, joined with ", ").
- ``test_time``: the test's start, RFC 3339 in UTC (``%FT%TZ``).
- ``samples_ts``: tokens/s of each repetition, in the order they ran (``test::get_ts``), after llama-bench's one
  warm-up run; kept (at most MAX_SAMPLES a test, MAX_REPORT_SAMPLES a report): the first and the last of them say how
  much a device slows as it heats up (phone_figures.sustained). ``avg_ts`` and ``stddev_ts`` are their mean and
  standard deviation (``avg``, ``stdev`` over ``get_ts()``), so samples that disagree with them were not printed by
  llama-bench: within SAMPLES_TOLERANCE is accepted (the printed digits round), more is refused.

A report's figure of each kind (prompt processing, generation) is its fastest test of that kind: llama-bench may sweep
threads or sizes, and the fastest is what the device does at its best setting.
"""
from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from leaderboard.core.csv import formula_lead

from . import phone_figures
from .refusals import ABSURD_SPEED, MALFORMED, MIXED_FILES, OUT_OF_BOUNDS, ReportRefused, clean_text, raise_first

MAX_TESTS = 64
MAX_SAMPLES = 100  # repetitions of one test (-r): the README asks for 10
MAX_REPORT_SAMPLES = 1000  # repetitions of all of a report's tests: a sweep of 100 tests at -r 10
SAMPLES_TOLERANCE = 0.1  # samples' mean and standard deviation within 10% of avg_ts of what the test states
# A test's time: llama-bench first shipped in 2023 (llama.cpp began that March); a clock a day ahead is a time zone.
EARLIEST_TEST = datetime(2023, 1, 1, tzinfo=timezone.utc)  # test objects in one report: a thread sweep of a few sizes
# String fields: llama-bench's own fields, and the device fields typed by a person. Longer is refused, not cut.
TEXT_LIMITS = {"model_filename": 300, "model_type": 100, "build_commit": 40, "backends": 100, "cpu_info": 200,
               "gpu_info": 200}
# Integer fields: (least, most). Sizes beyond these are no benchmark a phone runs; threads beyond no device has.
INT_BOUNDS = {"model_size": (1, 10**12), "n_prompt": (0, 65_536), "n_gen": (0, 16_384), "n_depth": (0, 1_048_576),
              "n_threads": (1, 1024), "n_gpu_layers": (-1, 100_000), "build_number": (0, 10**9),
              "model_n_params": (0, 10**13), "n_batch": (1, 1_048_576), "n_ubatch": (1, 1_048_576)}
REQUIRED = ("model_filename", "model_type", "model_size", "n_threads", "n_prompt", "n_gen", "avg_ts", "stddev_ts",
            "build_commit", "backends", "cpu_info", "gpu_info", "test_time")
# Absurd speeds. Generating a token reads every weight once, so tokens/s x model_size is memory traffic: no device
# moves 10 TB/s (a B200 GPU: 8 TB/s; phones: under 0.1 TB/s). Tiny files fit in a cache: a flat ceiling as well.
MAX_TRAFFIC_BYTES_PER_S = 10**13
MAX_GEN_TOKENS_PER_S = 100_000
MAX_PROMPT_TOKENS_PER_S = 1_000_000
# And the floor: under 0.01 tokens/s one repetition of tg128 takes 3.5 hours and of pp512 14 hours; llama-bench runs
# each test at least twice (a warm-up, then -r). Slower is no measurement (5e-324 made TTFT infinite).
MIN_TOKENS_PER_S = 0.01


@dataclass(frozen=True)
class BenchTest:
    n_prompt: int
    n_gen: int
    n_depth: int
    n_threads: int
    n_gpu_layers: int | None
    avg_ts: float
    stddev_ts: float
    samples: int
    test_time: datetime
    samples_ts: tuple = ()  # tokens/s of each repetition, in order

    @property
    def kind(self) -> str:
        """pp (prompt processing), tg (generation) or pg (both in one test: a mixed rate)."""
        return phone_figures.test_kind(self.n_prompt, self.n_gen)


@dataclass(frozen=True)
class BenchReport:
    file_name: str  # the last part of model_filename
    model_size: int  # bytes of the file's tensors (llama_model_size)
    model_type: str
    build_commit: str
    build_number: int | None
    backends: str
    cpu_info: str
    gpu_info: str
    tests: tuple = field(default_factory=tuple)

    def fastest(self, kind: str) -> BenchTest | None:
        """The report's figure of a kind (pp, tg): its fastest test of that kind, or None."""
        return phone_figures.fastest(self.tests, kind)


def _int(test: dict, name: str, where: str, problems: dict, default=None):
    value = test.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        problems.setdefault(MALFORMED, []).append(f"{where}: {name} must be a whole number, not {value!r:.40}")
        return None
    least, most = INT_BOUNDS[name]
    if not least <= value <= most:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"{where}: {name} is {value:,}, outside {least:,}..{most:,}")
    return value


def _speed(test: dict, name: str, where: str, problems: dict) -> float | None:
    value = test.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        problems.setdefault(MALFORMED, []).append(f"{where}: {name} must be a number, not {value!r:.40}")
        return None
    if value < 0:
        problems.setdefault(ABSURD_SPEED, []).append(f"{where}: {name} is negative ({value:g})")
    return float(value)


def _time(value, where: str, problems: dict) -> datetime | None:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
                                                      value):
        problems.setdefault(MALFORMED, []).append(f"{where}: test_time must be an RFC 3339 time such as "
                                                  f"2025-01-31T12:00:00Z, not {value!r:.40}")
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(timezone.utc)
    except ValueError:
        problems.setdefault(MALFORMED, []).append(f"{where}: test_time {value!r} is not a real date")
        return None
    except OverflowError:  # before year 1 or after 9999 in UTC: no datetime holds it
        when = None
    latest = datetime.now(timezone.utc) + timedelta(days=1)
    if when is None or not EARLIEST_TEST <= when <= latest:
        problems.setdefault(OUT_OF_BOUNDS, []).append(
            f"{where}: test_time {value} is outside {EARLIEST_TEST:%Y-%m-%d}..{latest:%Y-%m-%d} (UTC): llama-bench "
            "prints the time the test started; run it again with the device's clock set")
        return None
    return when


def _samples(value, where: str, problems: dict) -> tuple:
    """samples_ts: a list of at most MAX_SAMPLES finite, non-negative tokens/s (absent: none)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.setdefault(MALFORMED, []).append(f"{where}: samples_ts must be a list of tokens/s")
        return ()
    if len(value) > MAX_SAMPLES:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"{where}: samples_ts has {len(value):,} repetitions, over the "
                                                      f"limit of {MAX_SAMPLES:,}")
        return ()
    bad = [v for v in value if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)]
    if bad:
        problems.setdefault(MALFORMED, []).append(f"{where}: samples_ts must hold numbers, not {bad[0]!r:.40}")
        return ()
    if any(v < 0 for v in value):
        problems.setdefault(ABSURD_SPEED, []).append(f"{where}: samples_ts holds a negative speed")
    return tuple(float(v) for v in value)


def _outside_speeds(rate: float, kind: str) -> str | None:
    """Why `rate` tokens/s is no speed a device makes in a test of `kind`, if it is not: under MIN_TOKENS_PER_S, or
    over the kind's ceiling."""
    ceiling = MAX_GEN_TOKENS_PER_S if kind == "tg" else MAX_PROMPT_TOKENS_PER_S
    if rate == 0:
        return "0 tokens/s"
    if rate < MIN_TOKENS_PER_S:
        return f"{rate!r} tokens/s, under {MIN_TOKENS_PER_S:g} tokens/s: no benchmark finishes that slowly"
    if rate > ceiling:
        shown = f"{rate:,.0f}" if rate < 1e15 else repr(rate)  # 1e+308, not 309 digits
        return f"{shown} tokens/s, over {ceiling:,} tokens/s for a {kind} test"
    return None


def _unlike_samples(test: BenchTest, where: str) -> list[str]:
    """Why a test's samples_ts cannot be the repetitions its avg_ts and stddev_ts were computed from, if so: a speed
    no device makes, or a mean or standard deviation more than SAMPLES_TOLERANCE of avg_ts from the stated one."""
    out = [f"{where}: samples_ts holds {why}" for why in dict.fromkeys(
        filter(None, (_outside_speeds(v, test.kind) for v in test.samples_ts if v >= 0)))]
    if out or not test.samples_ts:
        return out
    mean = statistics.fmean(test.samples_ts)
    allowed = SAMPLES_TOLERANCE * max(test.avg_ts, mean)
    hint = "llama-bench prints avg_ts and stddev_ts from the same repetitions: upload its output unedited"
    if abs(mean - test.avg_ts) > allowed:
        out.append(f"{where}: samples_ts average {mean:,.1f} tokens/s, but avg_ts is {test.avg_ts:,.1f}: {hint}")
    elif len(test.samples_ts) > 1 and abs((spread := statistics.stdev(test.samples_ts)) - test.stddev_ts) > allowed:
        out.append(f"{where}: samples_ts spread {spread:,.1f} tokens/s (standard deviation), but stddev_ts is "
                   f"{test.stddev_ts:,.1f}: {hint}")
    return out


def _absurd(test: BenchTest, model_size: int | None, where: str) -> list[str]:
    """Why a test's speed cannot be real, if it cannot."""
    rate, out = test.avg_ts, []
    outside = _outside_speeds(rate, test.kind)
    if outside:
        out.append(f"{where}: avg_ts is {outside}")
    elif test.kind == "tg" and model_size and rate * model_size > MAX_TRAFFIC_BYTES_PER_S:
        out.append(f"{where}: avg_ts is {rate:,.1f} tokens/s; each generated token reads the file's {model_size:,} "
                   f"bytes of weights, so that is {rate * model_size / 1e12:,.1f} TB/s, more than any device moves")
    if test.stddev_ts > max(rate, 1.0) * 10:
        out.append(f"{where}: stddev_ts {test.stddev_ts:,.1f} is over ten times avg_ts {rate:,.1f}")
    return out + _unlike_samples(test, where)


def _test(item, index: int, problems: dict) -> tuple[BenchTest | None, dict]:
    """One test object: the test, and its file fields (checked by the caller for one file per report)."""
    where = f"test {index}"
    if not isinstance(item, dict):
        problems.setdefault(MALFORMED, []).append(f"{where} is not a JSON object")
        return None, {}
    missing = [name for name in REQUIRED if name not in item]
    if missing:
        problems.setdefault(MALFORMED, []).append(f"{where} has no {', '.join(missing)}")
        return None, {}
    texts = {name: clean_text(item[name], f"{where}: {name}", limit, problems, required=name == "model_filename")
             for name, limit in TEXT_LIMITS.items()}
    if formula_lead(file_name_of(texts["model_filename"])):  # what is stored is the path's last part
        problems.setdefault(MALFORMED, []).append(
            f"{where}: model_filename's file name {file_name_of(texts['model_filename'])[:40]!r} starts with "
            f"{file_name_of(texts['model_filename'])[0]!r}, which a spreadsheet would run as a formula")
    ints = {name: _int(item, name, where, problems) for name in INT_BOUNDS}
    avg, sd = _speed(item, "avg_ts", where, problems), _speed(item, "stddev_ts", where, problems)
    when = _time(item["test_time"], where, problems)
    samples = _samples(item.get("samples_ts"), where, problems)
    if None in (avg, sd, when, ints["n_prompt"], ints["n_gen"], ints["n_threads"], ints["model_size"]):
        return None, texts
    if ints["n_prompt"] + ints["n_gen"] == 0:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"{where}: n_prompt and n_gen are both 0")
        return None, texts
    test = BenchTest(n_prompt=ints["n_prompt"], n_gen=ints["n_gen"], n_depth=ints["n_depth"] or 0,
                     n_threads=ints["n_threads"], n_gpu_layers=ints["n_gpu_layers"], avg_ts=avg, stddev_ts=sd,
                     samples=len(samples), test_time=when, samples_ts=samples)
    absurd = _absurd(test, ints["model_size"], where)
    if absurd:
        problems.setdefault(ABSURD_SPEED, []).extend(absurd)
    return test, {**texts, "model_size": ints["model_size"], "build_number": ints["build_number"]}


def file_name_of(path: str) -> str:
    """The last part of a path as llama-bench prints it (Android, Linux or Windows)."""
    return re.split(r"[/\\]", path)[-1]


def _one_file(facts: list[dict], problems: dict) -> None:
    """Every test of a report is of one file, measured by one build."""
    for name, what in (("model_filename", "file"), ("model_size", "file size"), ("build_commit", "llama.cpp build")):
        values = sorted({str(f[name]) if name != "model_filename" else file_name_of(f[name]) for f in facts})
        if len(values) > 1:
            problems.setdefault(MIXED_FILES, []).append(
                f"the tests name more than one {what} ({', '.join(values[:5])}): one report is one file measured by "
                "one llama-bench; run it once per file (-m FILE.gguf) and upload each output on its own")


def _parse(data, problems: dict) -> BenchReport | None:
    if not isinstance(data, list) or not data:
        problems.setdefault(MALFORMED, []).append(
            "llama_bench must be the JSON array llama-bench prints with -o json (a list of test objects), not "
            + ("an empty list" if data == [] else type(data).__name__))
        return None
    if len(data) > MAX_TESTS:
        problems.setdefault(OUT_OF_BOUNDS, []).append(f"the report has {len(data)} tests, over the limit of "
                                                      f"{MAX_TESTS}")
        return None
    repetitions = sum(len(t["samples_ts"]) for t in data if isinstance(t, dict) and isinstance(t.get("samples_ts"),
                                                                                             list))
    if repetitions > MAX_REPORT_SAMPLES:
        problems.setdefault(OUT_OF_BOUNDS, []).append(
            f"the report's tests hold {repetitions:,} repetitions (samples_ts) in all, over the limit of "
            f"{MAX_REPORT_SAMPLES:,}: run fewer tests or fewer repetitions (-r 10 is enough)")
        return None
    before = sum(map(len, problems.values()))
    parsed = [_test(item, i, problems) for i, item in enumerate(data)]
    if sum(map(len, problems.values())) > before:
        return None
    tests, facts = [t for t, _ in parsed], [f for _, f in parsed]
    _one_file(facts, problems)
    if not any(t.kind in ("pp", "tg") for t in tests):
        problems.setdefault(MALFORMED, []).append("the report has no prompt-processing (-p) or generation (-n) "
                                                  "test, only mixed -pg tests")
    first = facts[0]
    return BenchReport(file_name=file_name_of(first["model_filename"]), model_size=first["model_size"],
                       model_type=first["model_type"], build_commit=first["build_commit"],
                       build_number=first["build_number"], backends=first["backends"], cpu_info=first["cpu_info"],
                       gpu_info=first["gpu_info"], tests=tuple(tests))


def parse_report(data, problems: dict | None = None) -> BenchReport | None:
    """The report in `data` (llama-bench's parsed JSON: a list of test objects). With `problems` (code -> list, shared
    with the device's fields) every problem is added there and None may come back; without, a problem raises
    ReportRefused naming every problem of the first kind found (refusals.ORDER)."""
    own = problems is None
    problems = {} if own else problems
    report = _parse(data, problems)
    if own:
        raise_first(problems)
    return report


def loads(text) -> object:
    """llama-bench's JSON text (a page's text box, a command's file) parsed; REPORT_MALFORMED when it is not JSON."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReportRefused(MALFORMED, [f"the llama-bench output is not JSON ({str(exc)[:120]}): paste or upload "
                                        "what `llama-bench -o json` printed, from [ to ]"]) from None
