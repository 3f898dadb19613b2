"""Why a run failed, in a code an author can act on, and a short log excerpt that leaks nothing sealed."""
import errno
import traceback
from dataclasses import dataclass

from .models import FailureCode


@dataclass(frozen=True)
class FailureHelp:
    hint: str  # ends the stored failure reason (status API, admin, e-mail): what went wrong, in a sentence
    advice: str = ""  # "What to do" on the submission's status page: what the author can do about it


DEFAULT_ADVICE = "Submit again or ask an admin."

# The one table of what each failure code tells an author.
FAILURE_HELP = {
    FailureCode.MODEL_NOT_FOUND: FailureHelp(
        "Check the model id and revision on the hub; private repos are not supported.",
        "Check the hub id and revision: the model must be public and the revision must exist."),
    FailureCode.GATED: FailureHelp(
        "The model is gated: its conditions must be accepted for the leaderboard's hub account.",
        "Gated models cannot be evaluated. Submit an ungated copy, or ask the author to lift the gate."),
    FailureCode.UNSUPPORTED_ARCHITECTURE: FailureHelp(
        "The installed transformers/vLLM cannot run this architecture (or its attention shape) on the worker's "
        "hardware; models that need custom code are refused unless allow-listed.",
        "The evaluator's transformers/vLLM versions cannot load this architecture without custom code. Submit a "
        "model with a supported architecture."),
    FailureCode.OUT_OF_MEMORY: FailureHelp(
        "The model, or its KV cache for the run's context, did not fit the worker's memory at this precision; try "
        "a quantized precision or a smaller model.",
        "The model did not fit the evaluating GPU at this precision. Submit it again with a smaller precision (int8 "
        "or a 4-bit format) or submit a smaller model."),
    FailureCode.MODEL_LOAD_ERROR: FailureHelp(
        "The weights or tokenizer could not be loaded; check they load with "
        "AutoModelForCausalLM.from_pretrained(..., use_safetensors=True).",
        "Loading failed. Check that the weights, config and tokenizer load with transformers' AutoModelForCausalLM "
        "and AutoTokenizer, without trust_remote_code, then submit again."),
    FailureCode.EVALUATION_ERROR: FailureHelp(
        "Evaluation stopped with an error; an admin can re-run it.",
        "The model loaded but evaluation failed. Check the tokenizer and chat template setting, then submit again; "
        "failed runs do not count against your quota."),
    FailureCode.WORKER_LOST: FailureHelp(
        "The worker stopped responding (it was restarted or killed) too many times.",
        "The worker running it stopped three times. Submit again (failed runs do not count against your quota) or "
        "ask an admin for a re-run."),
    FailureCode.TIMEOUT: FailureHelp(
        "The run exceeded its time limit.",
        "The run took longer than the time limit. A smaller precision or model runs faster."),
    FailureCode.CANCELLED: FailureHelp(
        "The run was cancelled.",
        "The run was cancelled. Submit again when you are ready; cancelled runs do not count against your quota."),
    FailureCode.INFRASTRUCTURE_ERROR: FailureHelp(
        "The worker's infrastructure (the hub, the database, the disk or the network) failed repeatedly; nothing "
        "points at the model. An admin can re-run it."),
    FailureCode.SCORING_ERROR: FailureHelp(
        "Scoring on the trusted worker failed repeatedly; an admin can re-score it once the cause (often the "
        "sealed answer key) is fixed."),
    FailureCode.PLAN_MISMATCH: FailureHelp(
        "The run's stored chunks or questions no longer match the plan it was created with; an admin can re-run "
        "it."),
}


def hint(code: str) -> str:
    """The sentence that ends a failure reason ("" for a code without one)."""
    help_ = FAILURE_HELP.get(code)
    return help_.hint if help_ else ""


def advice(code: str) -> str:
    """What the author can do about a failure (a failure code, or a run status such as CANCELLED)."""
    help_ = FAILURE_HELP.get(code)
    return (help_.advice if help_ else "") or DEFAULT_ADVICE


RETRYABLE = frozenset(FailureCode) - {FailureCode.CANCELLED, FailureCode.MODEL_NOT_FOUND, FailureCode.GATED,
                                      FailureCode.UNSUPPORTED_ARCHITECTURE, FailureCode.PLAN_MISMATCH,
                                      FailureCode.INFRASTRUCTURE_ERROR}  # retried on its own budget


# What the engines say, lower-cased. vLLM's engine runs in child processes: its words reach us in the
# prediction process's stderr, while the exception in hand only says "Engine core initialization failed".
_OUT_OF_MEMORY = ("out of memory", "no available memory for the cache blocks", "kv cache is needed",
                  "larger than the available kv cache memory", "is less than desired", "less than requested memory for kv",
                  "cannot allocate memory")
_UNSUPPORTED = ("does not recognize this architecture", "are not supported for now", "head size",
                "unrecognized configuration class", "is not supported by the", "not supported on this platform")
_GENERIC = (FailureCode.MODEL_LOAD_ERROR, FailureCode.EVALUATION_ERROR)


class RunCancelled(Exception):
    pass


class Drained(Exception):
    """The worker is shutting down (a redeploy): the prediction stopped at a chunk boundary, to resume elsewhere."""


class Stopped(BaseException):
    """The prediction process was told to stop (SIGTERM): a time limit, a cancel, a shutdown."""


class ProcessDied(RuntimeError):
    """The prediction process ended without reporting: a crash, or a kill (the kernel's OOM killer)."""

    def __init__(self, returncode: int, stderr_tail: str = ""):
        how = f"signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
        super().__init__(f"the prediction process ended with {how} and no outcome")
        self.returncode, self.stderr_tail = returncode, stderr_tail


def classify(exc: BaseException, *, during_load: bool) -> str:
    name = type(exc).__name__
    text = str(exc)
    if isinstance(exc, (RunCancelled, KeyboardInterrupt)):  # Ctrl-C on manage.py evaluate
        return FailureCode.CANCELLED
    if name in ("RepositoryNotFoundError", "RevisionNotFoundError", "EntryNotFoundError"):
        return FailureCode.MODEL_NOT_FOUND
    if name == "GatedRepoError":
        return FailureCode.GATED
    if name == "PlanMismatch":
        return FailureCode.PLAN_MISMATCH
    if is_infrastructure(exc):
        return FailureCode.INFRASTRUCTURE_ERROR
    if name == "OutOfMemoryError":
        return FailureCode.OUT_OF_MEMORY
    if name == "SoftTimeLimitExceeded":
        return FailureCode.TIMEOUT
    if isinstance(exc, Stopped):
        return FailureCode.WORKER_LOST
    if isinstance(exc, ProcessDied) and exc.returncode == -9:
        return refine(FailureCode.OUT_OF_MEMORY, exc.stderr_tail, during_load=during_load)
    generic = FailureCode.MODEL_LOAD_ERROR if during_load else FailureCode.EVALUATION_ERROR
    return refine(generic, text + "\n" + getattr(exc, "stderr_tail", ""), during_load=during_load)


# Errors of the worker's surroundings, not of the model: they pass, and must not spend the model's attempts.
_INFRA_NAMES = {"OperationalError", "InterfaceError",  # the database went away (a restart, a failover)
                "ConnectError", "ConnectTimeout", "ReadTimeout", "WriteTimeout", "PoolTimeout", "RemoteProtocolError",
                "ConnectionError", "Timeout", "ChunkedEncodingError", "LocalEntryNotFoundError"}


def is_infrastructure(exc: BaseException) -> bool:
    """A database, network or disk failure, or the hub answering 429/5xx (anywhere in the exception's chain)."""
    seen = 0
    while exc is not None and seen < 8:
        if type(exc).__name__ in _INFRA_NAMES or isinstance(exc, (ConnectionError, TimeoutError)):
            return True
        if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
            return True
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if isinstance(status, int) and (status == 429 or status >= 500):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def refine(code: str, text: str, *, during_load: bool) -> str:
    """A generic code made specific by what the engine printed (OOM, an architecture it cannot run)."""
    if code not in _GENERIC and code != FailureCode.OUT_OF_MEMORY:
        return code
    lowered = text.lower()
    if any(p in lowered for p in _OUT_OF_MEMORY):
        return FailureCode.OUT_OF_MEMORY
    if during_load and (any(p in lowered for p in _UNSUPPORTED) or ("model type" in lowered and "recognized" in lowered)):
        return FailureCode.UNSUPPORTED_ARCHITECTURE
    return code


def root_cause(stderr_tail: str, limit: int = 600) -> str:
    """The last error line the engine printed ("ValueError: ...", "torch.OutOfMemoryError: ..."), if any."""
    for line in reversed(stderr_tail.splitlines()):
        message = line.split("] ", 1)[-1].strip()  # vLLM prefixes "(EngineCore pid=..) ERROR ... [file:line] "
        head = message.split(":", 1)[0]
        if ":" in message and (head.endswith(("Error", "Exception")) or head.endswith("Exit")) and " " not in head:
            return message[:limit]
    return ""


def detail(exc: BaseException, *, sealed: bool, limit: int = 300) -> str:
    """One line for the failure reason: the error itself; for a sealed run its type only (a message
    may quote a prompt)."""
    if sealed:
        return type(exc).__name__
    cause = root_cause(getattr(exc, "stderr_tail", ""))
    return cause or f"{type(exc).__name__}: {exc}"[:limit]


def with_root_cause(excerpt: str, stderr_tail: str) -> str:
    cause = root_cause(stderr_tail)
    return f"{excerpt}\nroot cause (engine): {cause}" if cause and cause not in excerpt else excerpt


def log_excerpt(exc: BaseException, *, sealed: bool, limit: int = 1500) -> str:
    """The traceback's tail. For a sealed run only the exception type: a message may quote a prompt."""
    if sealed:
        return f"{type(exc).__name__} (details withheld: sealed split)"
    text = "".join(traceback.format_exception(exc))
    return text[-limit:]
