"""The phone-class cost profile of a GGUF file: what running it costs on a small CPU, measured on the server's.

Measured in a fresh process (`python -m evaluator profile --in-process`, started by measure_profile), on the CPU
only (n_gpu_layers=0, no offload, every GPU hidden: the GPU image's llama.cpp is built with CUDA) with a fixed number
of threads, so nothing the evaluation loaded (weights in the page cache aside) or a GPU flatters it:

- pp and tg tokens/s as llama-bench measures them (llama.cpp's tools/llama-bench/llama-bench.cpp): pp = one
  batch of `pp` tokens (BOS where the file adds one, then pseudo-random ids) decoded at once; tg = `tg` single-token decodes after an
  empty context, each the next pseudo-random id; one warm-up run of each (pp: the batch, tg: one token), then
  `repeats` runs, the memory cleared before each; tokens/s of a run = tokens / its seconds; mean and sample sd.
- time to first token of a median-length Mobile-MMLU prompt (ondevice_prompt.txt: the median of 401
  real-shaped questions rendered with the default template, 1,699 characters): tokenize, prefill, pick the
  first token; mean and sd over `repeats`, each from an empty context.
- peak resident memory of that process (VmHWM) and whether the file was memory-mapped (file pages the
  process touched count as resident when it is), the file's size (every part of a split file) and llama.cpp's
  `model_size` (llama_model_size: its tensors' bytes, the figure llama-bench prints; a device report without a
  sha256 is matched to the file by it, leaderboard/devices/board_files.py).
- the CPU's model and flags, the thread count, the CPUs this process may use, the cores other processes kept busy
  while it measured (`other_cores`: the machine's busy CPU time from /proc/stat less this process's own, over the
  measurement's wall time; a busy machine slows llama.cpp's threads many-fold) and the 1-minute load average before
  and after, llama.cpp's build and system info.
- energy only from RAPL counters (/sys/class/powercap/intel-rapl:*/energy_uj) where readable; otherwise
  `energy` is null and `energy_why` says why. Nothing is estimated.

A profile can be noise: on a busy 2-core machine the demo's tiny file published tg 230.8 ± 321.5 tokens/s where
llama-bench said 9,455 minutes later. measure_reliable_profile re-measures one whose figures vary by more than
`max_cv` (coefficient of variation, sd / mean, of pp, tg or TTFT over its repeats) or while other processes kept
busy more cores than its threads left free (the load average lags by a minute and counts the profile's own threads
and the evaluation just before it: it judges only profiles measured before `other_cores` was), up to `retries` times; what it keeps says in `reliability` whether it can be trusted
and why not (the board keeps an unreliable one off its speed frontier).

Every figure is a server CPU's: LABEL says so wherever the profile appears.
"""
from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .backends.gguf_file import SPLIT_NAME
from .cpu_state import cpu_info, cpus_available, load_average, machine_busy_seconds, other_cores

DEFAULT_THREADS = 4  # a phone-class core count; a setting (ONDEVICE_PROFILE_THREADS, --threads)
MAX_CV, RETRIES = 0.10, 2  # settings: ONDEVICE_PROFILE_MAX_CV, ONDEVICE_PROFILE_RETRIES
OTHER_CORES_MARGIN = 0.5  # cores other processes may keep busy beyond those the profile's threads leave free
PP_TOKENS, TG_TOKENS, REPEATS = 512, 128, 5  # llama-bench's defaults: pp512, tg128, -r 5
N_BATCH, N_UBATCH = 2048, 512  # llama-bench's defaults
PROMPT_FILE = Path(__file__).with_name("ondevice_prompt.txt")
RAPL_ROOT = Path("/sys/class/powercap")
LABEL = "measured on a server CPU with {threads} threads: a proxy, not a phone"
_ROOT = Path(__file__).resolve().parents[1]


class ProfileError(Exception):
    def __init__(self, message: str, code: str = "PROFILE_ERROR") -> None:
        super().__init__(message)
        self.code = code


def label(threads: int) -> str:
    return LABEL.format(threads=threads)


def measure_profile(path: str | Path, *, threads: int = DEFAULT_THREADS, repeats: int = REPEATS,
                    pp: int = PP_TOKENS, tg: int = TG_TOKENS, mmap: bool = True, timeout: float | None = None,
                    rapl_root: str | Path = RAPL_ROOT) -> dict[str, Any]:
    """The profile of the GGUF file at `path`, measured in a fresh child process (see the module's docstring)."""
    cmd = [sys.executable, "-m", "evaluator", "profile", "--in-process", "--model", str(path),
           "--threads", str(threads), "--repeats", str(repeats), "--pp", str(pp), "--tg", str(tg),
           "--rapl-root", str(rapl_root), "--mmap" if mmap else "--no-mmap"]
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": str(threads)}  # no GPU, pinned threads
    try:
        proc = subprocess.run(cmd, cwd=_ROOT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise ProfileError(f"the profile of {Path(path).name} took over {timeout:.0f} s") from exc
    if proc.returncode != 0:  # the child's own `error: CODE: message` line, else how it ended
        tail = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        refused = re.match(r"error: ([A-Z_]+): (.*)", tail)
        if refused:
            raise ProfileError(refused[2], refused[1])
        raise ProfileError(f"the profile of {Path(path).name} failed: {tail}")
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as exc:
        raise ProfileError(f"the profile of {Path(path).name} printed no JSON") from exc


_FIGURES = (("pp", "pp", "tokens_per_s"), ("tg", "tg", "tokens_per_s"), ("time to first token", "ttft", "seconds"))


def variation(profile: dict[str, Any]) -> dict[str, float]:
    """Each figure's coefficient of variation over the profile's repeats (sd / mean), by name."""
    out = {}
    for name, key, mean_key in _FIGURES:
        figure = profile.get(key) or {}
        mean, sd = figure.get(mean_key), figure.get("sd")
        if mean and sd is not None:
            out[name] = sd / mean
    return out


def noise(profile: dict[str, Any], *, max_cv: float = MAX_CV) -> list[str]:
    """Why a measured profile's figures cannot be trusted (empty: they can): a figure whose coefficient of variation
    over the repeats exceeds `max_cv`, or a 1-minute load average (before or after) above the CPUs the profile could
    use: more runnable threads than cores, so llama.cpp's threads waited for each other at every barrier."""
    reasons = [f"{name} varied {cv:.0%} between repeats (over {max_cv:.0%})"
               for name, cv in variation(profile).items() if cv > max_cv]
    cpus, others = profile.get("cpus_available"), profile.get("other_cores")
    if others is not None and cpus:
        free = max(0, cpus - int(profile.get("threads") or cpus))
        if others > free + OTHER_CORES_MARGIN:
            reasons.append(f"other processes kept {others:.1f} cores busy while it measured ({profile.get('threads')} "
                           f"threads on {cpus} CPUs)")
        return reasons
    loads = [x for x in profile.get("load_average") or [] if x is not None]
    if loads and cpus and max(loads) > cpus:
        reasons.append(f"load average {max(loads):.1f} on {cpus} CPUs (other processes competed for the cores)")
    return reasons


def reliability(profile: dict[str, Any] | None, *, max_cv: float = MAX_CV) -> dict[str, Any] | None:
    """Whether a profile can be trusted: its stored verdict (measure_reliable_profile), else judged now from its
    figures (profiles stored before verdicts were). None for no profile or a failed one."""
    if not profile or profile.get("error"):
        return None
    if profile.get("reliability"):
        return profile["reliability"]
    reasons = noise(profile, max_cv=max_cv)
    return {"reliable": not reasons, "reasons": reasons, "attempts": 1, "max_cv": max_cv}


def measure_reliable_profile(path: str | Path, *, max_cv: float = MAX_CV, retries: int = RETRIES,
                             **kwargs) -> dict[str, Any]:
    """measure_profile, again up to `retries` times while the profile is noisy (noise()). The first clean one is
    kept; if none is, the least noisy (fewest reasons, then the smallest worst CV), marked unreliable. Either way
    `reliability` says so: {reliable, reasons, attempts, max_cv}."""
    tried: list[tuple[tuple, dict[str, Any], list[str]]] = []
    for _ in range(retries + 1):
        profile = measure_profile(path, **kwargs)
        reasons = noise(profile, max_cv=max_cv)
        tried.append(((len(reasons), max(variation(profile).values(), default=0.0)), profile, reasons))
        if not reasons:
            break
    _, kept, reasons = min(tried, key=lambda t: t[0])
    return {**kept, "reliability": {"reliable": not reasons, "reasons": reasons, "attempts": len(tried),
                                    "max_cv": max_cv}}


def describe(profile: dict[str, Any]) -> str:
    """One line for people: the figures with the label."""
    if profile.get("error"):
        return f"cost profile failed: {profile['error']}"
    pp, tg, ttft = profile["pp"], profile["tg"], profile["ttft"]
    energy = "energy not measured" if profile.get("energy") is None else \
        f"tg {profile['energy']['tg_joules_per_token']:.3g} J/token (RAPL)"
    return (f"pp{pp['tokens']} {pp['tokens_per_s']:.1f} ± {pp['sd']:.1f} tok/s, tg{tg['tokens']} "
            f"{tg['tokens_per_s']:.1f} ± {tg['sd']:.1f} tok/s, TTFT {ttft['seconds'] * 1000:.0f} ms "
            f"({ttft['prompt_chars']} characters), peak RSS {profile['peak_rss_bytes'] / 2**20:.0f} MiB "
            f"({'memory-mapped' if profile['mmap'] else 'read into memory'}), {energy}; {profile['label']}"
            + _verdict(reliability(profile)))


def _verdict(verdict: dict[str, Any] | None) -> str:
    if verdict is None or verdict["reliable"]:
        return ""
    return f"; UNRELIABLE after {verdict['attempts']} attempt(s): {'; '.join(verdict['reasons'])}"


# --- the fresh process ----------------------------------------------------------------------------

def profile_in_process(path: str | Path, *, threads: int, repeats: int, pp: int, tg: int, mmap: bool,
                       rapl_root: str | Path = RAPL_ROOT) -> dict[str, Any]:
    from .backends.gguf_file import check_gguf, ftype_name
    from .backends.llamacpp_backend import _import_llama_cpp, placement
    from .gguf_convert import llama_cpp_build

    if min(threads, repeats, pp, tg) < 1:
        raise ProfileError("threads, repeats, pp and tg must each be at least 1")
    llama_cpp = _import_llama_cpp()
    path = check_gguf(str(path))
    t_start, load_before = time.perf_counter(), load_average()
    prompt = PROMPT_FILE.read_text(encoding="utf-8")
    try:
        llm = llama_cpp.Llama(model_path=str(path), n_ctx=max(pp + 1, tg + 1, 2048), n_batch=N_BATCH,
                              n_ubatch=N_UBATCH, n_threads=threads, n_threads_batch=threads, use_mmap=mmap, seed=0,
                              logits_all=False, verbose=False, **placement("cpu"))
    except (ValueError, RuntimeError) as exc:  # llama.cpp could not read or run the file
        raise ProfileError(f"llama.cpp cannot load {path.name}: {exc}", "MODEL_LOAD_ERROR") from exc
    try:
        bench = _Bench(llama_cpp, llm)
        prompt_ids = list(llm.tokenize(prompt.encode("utf-8"), add_bos=True))
        if len(prompt_ids) >= llm.n_ctx():
            raise ProfileError(f"the median prompt is {len(prompt_ids)} tokens, over the file's context")
        energy = _Rapl(Path(rapl_root))
        busy_before, own_before, wall_before = machine_busy_seconds(), time.process_time(), time.perf_counter()
        bench.prompt(pp)  # llama-bench's warm-up runs
        bench.gen(1)
        pp_runs, pp_joules = _repeat(lambda: bench.prompt(pp), repeats, bench, energy)
        tg_runs, tg_joules = _repeat(lambda: bench.gen(tg), repeats, bench, energy)
        ttft_runs = [_time_to_first_token(bench, llm, prompt) for _ in range(repeats)]
        competing = other_cores(busy_before, own_before, wall_before)
        md = llm.metadata
        out = {
            "label": label(threads),
            "method": "llama-bench's (warm-up, then repeats from an empty context; tokens/s = tokens / seconds)",
            "file": path.name, "file_bytes": file_bytes(path), "architecture": md.get("general.architecture"),
            "file_type": ftype_name(llama_cpp, md.get("general.file_type")) or "unknown",
            "params": int(llm._model.n_params()), "model_size": int(llama_cpp.llama_model_size(llm.model)),
            "threads": threads, "n_gpu_layers": 0, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
            "mmap": mmap, "repeats": repeats,
            "pp": _stats(pp, pp_runs), "tg": _stats(tg, tg_runs),
            "ttft": {"prompt_chars": len(prompt), "prompt_tokens": len(prompt_ids), "seconds": statistics.fmean(
                ttft_runs), "sd": _sd(ttft_runs), "runs": [round(s, 6) for s in ttft_runs]},
        }
    finally:
        llm.close()
    out.update(peak_rss_bytes=_peak_rss(), peak_rss_kind=(
        "VmHWM of the profiling process" + (" (the file's pages it touched count: memory-mapped)" if mmap else "")))
    out["energy"], out["energy_why"] = energy.result(pp_joules, pp * repeats, tg_joules, tg * repeats)
    # Other processes on the CPU make llama.cpp's threads wait for each other at every barrier: with more threads
    # than idle cores the figures fall many-fold (bench/ondevice_bench.py). The card says how busy the machine was.
    out.update(cpu=cpu_info(), load_average=[load_before, load_average()], cpus_available=cpus_available(),
               other_cores=competing, llama_cpp=llama_cpp_build(), pid=os.getpid(), seconds=time.perf_counter() - t_start,
               system_info=llama_cpp.llama_print_system_info().decode(errors="replace").strip())
    return out


class _Bench:
    """llama-bench's test_prompt and test_gen on llama.cpp's own calls (llama_batch_get_one, llama_decode)."""

    def __init__(self, llama_cpp, llm) -> None:
        self.lib, self.llm, self.ctx = llama_cpp, llm, llm.ctx
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self.n_vocab = llm.n_vocab()
        self.bos = llama_cpp.llama_vocab_bos(vocab) if llama_cpp.llama_vocab_get_add_bos(vocab) else None
        self.rng = random.Random(1)  # llama-bench: std::rand(), never seeded

    def clear(self) -> None:
        self.lib.llama_memory_clear(self.lib.llama_get_memory(self.ctx), False)

    def decode(self, ids: list[int]) -> None:
        for i in range(0, len(ids), N_BATCH):
            chunk = ids[i:i + N_BATCH]
            tokens = (self.lib.llama_token * len(chunk))(*chunk)  # held: the batch only points at it
            if self.lib.llama_decode(self.ctx, self.lib.llama_batch_get_one(tokens, len(chunk))) != 0:
                raise ProfileError(f"llama_decode failed on a batch of {len(chunk)} tokens")
        self.lib.llama_synchronize(self.ctx)

    def _first(self) -> int:
        return self.bos if self.bos is not None else self.rng.randrange(self.n_vocab)

    def prompt(self, n: int) -> None:
        self.decode([self._first()] + [self.rng.randrange(self.n_vocab) for _ in range(n - 1)])

    def gen(self, n: int) -> None:
        token = self._first()
        for _ in range(n):
            self.decode([token])
            token = self.rng.randrange(self.n_vocab)

    def first_token(self) -> int:
        import numpy as np

        logits = self.lib.llama_get_logits_ith(self.ctx, -1)
        return int(np.ctypeslib.as_array(logits, shape=(self.n_vocab,)).argmax())


def _time_to_first_token(bench: _Bench, llm, prompt: str) -> float:
    """Seconds from the prompt's text to its first token, from an empty context: tokenize, prefill, pick."""
    bench.clear()
    t0 = time.perf_counter()
    bench.decode(list(llm.tokenize(prompt.encode("utf-8"), add_bos=True)))
    bench.first_token()
    return time.perf_counter() - t0


def _repeat(work, repeats: int, bench: _Bench, energy: "_Rapl") -> tuple[list[float], float | None]:
    seconds: list[float] = []
    joules: float | None = 0.0
    for _ in range(repeats):
        bench.clear()
        before = energy.read()
        t0 = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - t0)
        after = energy.read()
        joules = None if joules is None or before is None or after is None else joules + energy.delta(before, after)
    return seconds, joules


def file_bytes(path: Path) -> int:
    """The file's size; a split file's (stem-00001-of-00003.gguf, llama.cpp loads the rest beside it): every part's."""
    match = SPLIT_NAME.match(path.name)
    if not match:
        return path.stat().st_size
    count = int(match["count"])
    return sum((path.parent / f"{match['stem']}-{i:05d}-of-{count:05d}.gguf").stat().st_size
               for i in range(1, count + 1))


def _stats(tokens: int, seconds: list[float]) -> dict[str, Any]:
    rates = [tokens / s for s in seconds]
    return {"tokens": tokens, "tokens_per_s": statistics.fmean(rates), "sd": _sd(rates),
            "runs": [round(r, 3) for r in rates]}


def _sd(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def _peak_rss() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB


class _Rapl:
    """Package energy counters (intel-rapl:N, also on AMD hosts that expose them), read only where readable."""

    def __init__(self, root: Path) -> None:
        self.domains = sorted(p for p in root.glob("intel-rapl:*") if p.name.count(":") == 1)
        self.why = None
        if not self.domains:
            self.why = (f"no RAPL counters ({root}/intel-rapl:* absent: a VM, a container without powercap, or a "
                        "CPU without RAPL); energy is not measured and not estimated")
        elif self.read() is None:
            self.why = ("RAPL counters present but not readable by this user (energy_uj is root-only on Linux "
                        ">= 5.10); energy is not measured and not estimated")

    def read(self) -> list[int] | None:
        if not self.domains:
            return None
        try:
            return [int((d / "energy_uj").read_text()) for d in self.domains]
        except (OSError, ValueError):
            return None

    def delta(self, before: list[int], after: list[int]) -> float:
        total = 0
        for domain, b, a in zip(self.domains, before, after):
            if a < b:  # the counter wrapped
                a += int((domain / "max_energy_range_uj").read_text())
            total += a - b
        return total / 1e6

    def result(self, pp_joules, pp_tokens, tg_joules, tg_tokens) -> tuple[dict | None, str | None]:
        if self.why or pp_joules is None or tg_joules is None:
            return None, self.why or "a RAPL counter could not be read during the runs; energy is not reported"
        return {"source": "RAPL", "domains": [d.name for d in self.domains],
                "scope": "whole CPU package(s): every process on the machine counts, not only this one",
                "pp_joules_per_token": pp_joules / pp_tokens, "tg_joules_per_token": tg_joules / tg_tokens}, None
