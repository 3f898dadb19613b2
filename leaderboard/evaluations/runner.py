"""What a GPU worker does with a run id: claim it, predict it in a process of its own, hand off scoring.

Why a process of its own: Celery's prefork pool runs each task in a daemonic child, and a daemonic
process may not start children, which vLLM always does (its EngineCore, tensor-parallel workers). So the
task (the parent) claims the run, starts `python -m leaderboard.evaluations.predict_process` (a plain,
non-daemonic process: model load and prediction), renews the lease from a thread while that child lives
(model load included), and records the outcome. The child's exit returns every byte of GPU memory, and a
model that crashes the interpreter (segfault, OOM kill) fails one attempt, not the worker.

It never reads a sealed answer: scoring happens on the default (trusted) queue.
"""
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import close_old_connections, connection, transaction

from evaluator import checkpoint
from evaluator.backends import create_backend
from evaluator.ondevice_profile import ProfileError, label, measure_reliable_profile
from evaluator.precisions import resolve_load
from evaluator.prompts import render_questions
from evaluator.protocols import get_protocol
from evaluator.protocols import render_questions as protocol_prompts

from leaderboard.benchmarks.models import SEALED_SPLITS

from . import failures, gguf_fetch, gguf_make, lifecycle, model_cache, selectors, services
from .models import EvaluationRun, RunStatus

log = logging.getLogger(__name__)

DRAINED = "DRAINED"  # an outcome, not a failure: the run goes back to the queue as it was
STDERR_TAIL_LINES = 400  # the child's last lines: where vLLM's engine process prints its root cause
KILL_GRACE_SECONDS = 10


@dataclass
class Outcome:
    """What the prediction process reports: ok, or the failure code and an excerpt safe for the run's split."""

    ok: bool
    code: str = ""
    excerpt: str = ""
    detail: str = ""  # one line for the failure reason (failures.detail)
    during_load: bool = False

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


# --- the parent: the Celery task ---------------------------------------------------------------

def predict(run_id: int) -> dict:
    run = lifecycle.run_claim_for_worker(run_id=run_id)
    if run is None:
        log.info("run %s: not claimable (already taken or finished); message dropped", run_id)
        return {"run": run_id, "claimed": False}
    log.info("run %s: claimed, attempt %s", run_id, run.attempts)
    try:
        outcome, cancelled = _predict_in_child(run)
    except SoftTimeLimitExceeded as exc:  # the child has been stopped; the attempt is recorded as timed out
        outcome, cancelled = failed(run, exc, during_load=False), False
    if cancelled:
        log.info("run %s: cancelled or taken over while predicting; the process was stopped", run_id)
        return {"run": run_id, "claimed": True, "status": RunStatus.CANCELLED}
    return record(run_id=run_id, attempt=run.attempts, outcome=outcome)


def record(*, run_id: int, attempt: int, outcome: Outcome) -> dict:
    """Scoring on success; otherwise a retry or a recorded reason (lifecycle decides which)."""
    if outcome.ok:
        with transaction.atomic():
            transaction.on_commit(lambda: lifecycle.send_score(run_id))
        return {"run": run_id, "claimed": True, "status": RunStatus.SCORING}
    if outcome.code == DRAINED:
        status = lifecycle.run_release(run_id=run_id, attempt=attempt)
        log.info("run %s: released at a chunk boundary (worker shutting down) -> %s", run_id, status)
        return {"run": run_id, "claimed": True, "status": status}
    status = lifecycle.run_attempt_failed(run_id=run_id, attempt=attempt, code=outcome.code,
                                          excerpt=outcome.excerpt, detail=outcome.detail)
    log.warning("run %s: attempt failed (%s) -> %s", run_id, outcome.code, status)
    return {"run": run_id, "claimed": True, "status": status}


def _predict_in_child(run: EvaluationRun) -> tuple[Outcome, bool]:
    """Run the child to its end; (its outcome, whether the run was cancelled/superseded meanwhile)."""
    with tempfile.TemporaryDirectory(prefix=f"run-{run.pk}-") as tmp:
        report = Path(tmp) / "outcome.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "leaderboard.evaluations.predict_process", str(run.pk), str(run.attempts),
             str(report)],
            cwd=settings.BASE_DIR, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
            start_new_session=True,  # its own process group: a cancel stops the engine's processes too
            preexec_fn=_die_with_parent,
        )
        tail = _StderrTail(proc.stderr)
        beat = Heartbeat(run, on_lost=lambda: _stop(proc))
        try:
            returncode = proc.wait()
        except BaseException:  # the soft time limit, a warm shutdown's second signal: the child goes too
            _stop(proc)
            raise
        finally:
            beat.stop()
            tail.join()
        if beat.lost:
            return Outcome(ok=False), True
        outcome = _read_outcome(report)
    if outcome is None:  # the interpreter died without a word: a crash, or the kernel's OOM killer
        exc = failures.ProcessDied(returncode, tail.text())
        outcome = failed(run, exc, during_load=True)
    elif not outcome.ok:
        outcome.code = failures.refine(outcome.code, tail.text(), during_load=outcome.during_load)
        if run.split not in SEALED_SPLITS:  # the engine's own words reach the reason (open splits only)
            outcome.excerpt = failures.with_root_cause(outcome.excerpt, tail.text())
            if "root cause" in outcome.detail.lower():  # vLLM: "Engine core initialization failed. See root cause above"
                outcome.detail = failures.root_cause(tail.text()) or outcome.detail
    return outcome, False


def _read_outcome(path: Path) -> Outcome | None:
    try:
        return Outcome(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _die_with_parent():
    """Linux: the child gets SIGKILL if the task's process dies (a killed worker leaves no orphan engine)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _stop(proc: subprocess.Popen):
    """SIGTERM to the child's process group (vLLM shuts its engine down), SIGKILL after a grace period."""
    for sig, wait in ((signal.SIGTERM, KILL_GRACE_SECONDS), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


class _StderrTail(threading.Thread):
    """Copies the child's stderr into the worker's log and keeps the last lines for the failure reason."""

    def __init__(self, stream):
        super().__init__(daemon=True)
        self.stream, self.lines = stream, deque(maxlen=STDERR_TAIL_LINES)
        self.start()

    def run(self):
        for line in self.stream:
            self.lines.append(line)
            sys.stderr.write(line)

    def text(self) -> str:
        return "".join(self.lines)


class Heartbeat(threading.Thread):
    """Renews the lease while the child works, model load included; stops the child if the run was
    cancelled or another worker took it over (the lease no longer belongs to this attempt)."""

    def __init__(self, run, on_lost):
        super().__init__(daemon=True)
        self.run_row, self.on_lost = run, on_lost
        self.lost, self._done = False, threading.Event()
        self.interval = max(1.0, settings.RUN_LEASE_SECONDS / 4)
        self.start()

    def run(self):
        try:
            while not self._done.wait(self.interval):
                close_old_connections()
                try:
                    lifecycle.run_heartbeat(run=self.run_row)
                except failures.RunCancelled:
                    if self._handed_to_scoring():  # the child finished between two beats
                        return
                    self.lost = True
                    self.on_lost()
                    return
                except Exception:  # noqa: BLE001 - a database blip: the next beat tries again
                    log.warning("run %s: heartbeat failed", self.run_row.pk, exc_info=True)
        finally:
            connection.close()

    def _handed_to_scoring(self) -> bool:
        status = EvaluationRun.objects.filter(pk=self.run_row.pk).values_list("status", flat=True).first()
        return status == RunStatus.SCORING

    def stop(self):
        self._done.set()
        self.join()


# --- the child: load and predict ----------------------------------------------------------------

def predict_claimed(*, run_id: int, attempt: int) -> Outcome:
    """Load the model and predict every chunk of a run this worker's parent claimed (attempt `attempt`)."""
    run = lifecycle.run_for_worker(run_id)
    if run.status != RunStatus.RUNNING or run.attempts != attempt:
        return Outcome(ok=False, code=failures.FailureCode.CANCELLED, excerpt="superseded before loading")
    backend, loading = None, True
    try:
        device = settings.RUN_DEVICE
        _limit_cpu_threads(device)
        inputs = selectors.run_engine_inputs(run=run)  # read once: vLLM sizes its context from them too
        backend = load_backend(run, device=device, inputs=inputs)
        loading = False
        lifecycle.run_heartbeat(run=run)
        services.run_predict(run=run, backend=backend, inputs=inputs, on_progress_chunk=lambda: _after_chunk(run),
                             ondevice=ondevice_profiler(run, backend))
        return Outcome(ok=True)
    except failures.Drained:
        return Outcome(ok=False, code=DRAINED)
    except BaseException as exc:  # noqa: BLE001 - every failure becomes a retry or a recorded reason
        return failed(run, exc, during_load=loading)
    finally:
        if backend is not None and hasattr(backend, "close"):
            backend.close()


def _after_chunk(run: EvaluationRun):
    """Between chunks: renew the lease, and stop here if the worker is draining (the chunk is stored)."""
    lifecycle.run_heartbeat(run=run)
    if os.path.exists(settings.RUN_DRAIN_FILE):
        raise failures.Drained(f"run {run.pk}: the worker is shutting down")


def failed(run: EvaluationRun, exc: BaseException, *, during_load: bool) -> Outcome:
    sealed = run.split in SEALED_SPLITS
    return Outcome(ok=False, code=failures.classify(exc, during_load=during_load), during_load=during_load,
                   excerpt=failures.log_excerpt(exc, sealed=sealed), detail=failures.detail(exc, sealed=sealed))


def load_backend(run: EvaluationRun, *, device: str, batch_size: int | None = None, inputs=None):
    """The run's backend with the dtype and quantization its precision resolves to (evaluator/precisions.py).
    `inputs`: the run's (questions, dev exemplars) when the caller has read them already."""
    if run.backend == "llamacpp":
        return _load_gguf(run, device=device, inputs=inputs)
    location = selectors.model_location(model_ref=run.model_ref)
    revision = run.model_revision or None
    if settings.RUN_MODEL_CACHE_GB and location == run.model_ref:  # a hub id: its files go to the cache
        model_cache.prune(max_bytes=settings.RUN_MODEL_CACHE_GB * 10**9, keep=run.model_ref)
    kwargs = {"revision": revision, "device": device, "batch_size": batch_size or settings.RUN_BATCH_SIZE,
              "seed": run.seed}
    if run.backend == "vllm":
        config = checkpoint.config_dict(location, revision) if device.startswith("cuda") else None
        spec = resolve_load(precision=run.precision, device=device, backend=run.backend, checkpoint_config=config)
        kwargs.update(spec.as_dict(), sizing_prompts=_sizing_prompts(run, inputs or selectors.run_engine_inputs(run=run)), use_chat_template=run.use_chat_template,
                      max_new_tokens=services.max_new_tokens(run))
        if settings.RUN_TENSOR_PARALLEL_SIZE > 1:
            kwargs["tensor_parallel_size"] = settings.RUN_TENSOR_PARALLEL_SIZE
        if settings.RUN_VLLM_MEMORY_SHARE:
            kwargs["gpu_memory_utilization"] = settings.RUN_VLLM_MEMORY_SHARE
    else:
        kwargs["dtype"] = resolve_load(precision=run.precision, device=device, backend=run.backend).dtype
    return create_backend(run.backend, location, **kwargs)


def _load_gguf(run: EvaluationRun, *, device: str, inputs=None):
    """A GGUF run: a submitted file downloaded and its sha256 checked (gguf_fetch), or a file made here from a 16-bit
    checkpoint (gguf_make); then the llamacpp backend on the local path, with the context sized from the prompts."""
    repo_id = run.gguf_recipe["source"] if run.gguf_recipe else gguf_fetch.split_ref(run.model_ref)[0]
    if settings.RUN_MODEL_CACHE_GB:
        model_cache.prune(max_bytes=settings.RUN_MODEL_CACHE_GB * 10**9, keep=repo_id)
    if run.gguf_recipe:  # an on-device variant: the file is made here from the checkpoint
        path = gguf_make.made_file(run)
    else:
        path = gguf_fetch.fetch_gguf(model_ref=run.model_ref, revision=run.model_revision, parts=run.model_files)
    prompts = _sizing_prompts(run, inputs or selectors.run_engine_inputs(run=run))
    return create_backend("llamacpp", str(path), revision=run.model_revision, device=device, seed=run.seed,
                          threads=settings.RUN_LLAMACPP_THREADS or None, sizing_prompts=prompts,
                          use_chat_template=run.use_chat_template, max_new_tokens=services.max_new_tokens(run))


def ondevice_profiler(run: EvaluationRun, backend):
    """A GGUF run: a callable measuring its file's phone-class cost profile in a fresh CPU-only process
    (evaluator/ondevice_profile.py, ONDEVICE_PROFILE_* settings); None for other runs or with 0 threads.
    The file's other run (validation and test runs share a file) may have measured it already with the same
    settings: that profile is kept, naming its run (minutes of a worker's time for a 7B file).
    A noisy profile is measured again (ONDEVICE_PROFILE_MAX_CV, _RETRIES) and kept marked unreliable if it stays so.
    A profile that fails is recorded with its error: the run's predictions stand without it."""
    threads = settings.ONDEVICE_PROFILE_THREADS
    if run.backend != "llamacpp" or not threads:
        return None
    sizes = {"threads": threads, "repeats": settings.ONDEVICE_PROFILE_REPEATS, "pp": settings.ONDEVICE_PROFILE_PP,
             "tg": settings.ONDEVICE_PROFILE_TG}

    def measure():
        earlier = selectors.ondevice_profile_of_file(run=run, **sizes)
        if earlier is not None:
            return {**earlier[1], "measured_for_run": earlier[0]}
        try:
            return measure_reliable_profile(backend.path, timeout=settings.ONDEVICE_PROFILE_TIMEOUT_SECONDS,
                                            max_cv=settings.ONDEVICE_PROFILE_MAX_CV,
                                            retries=settings.ONDEVICE_PROFILE_RETRIES, **sizes)
        except ProfileError as exc:
            log.warning("run %s: %s", run.pk, exc)
            return {"label": label(threads), "threads": threads, "error": f"{exc.code}: {exc}"}
    return measure


def _sizing_prompts(run: EvaluationRun, inputs) -> list[str]:
    """Each question once, original order, with its topic's exemplars: the lengths the context must hold
    (answer-order variants differ by a few tokens, covered by the backend's margin)."""
    questions, dev = inputs
    if run.protocol:  # with every exemplar: the longest a question's prompt can be before k is lowered
        return protocol_prompts(get_protocol(run.protocol), questions, dev)
    return render_questions(questions, template=run.template, shots=run.shots, dev_questions=dev)


def _limit_cpu_threads(device: str):
    if settings.RUN_TORCH_THREADS and device == "cpu":
        import torch

        torch.set_num_threads(settings.RUN_TORCH_THREADS)
