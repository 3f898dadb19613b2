"""Why a run failed, in a code an author can act on, and a short log excerpt that leaks nothing sealed."""
import traceback

from .models import FailureCode

HINTS = {
    FailureCode.MODEL_NOT_FOUND: "Check the model id and revision on the hub; private repos are not supported.",
    FailureCode.GATED: "The model is gated: its conditions must be accepted for the leaderboard's hub account.",
    FailureCode.UNSUPPORTED_ARCHITECTURE: "The installed transformers/vLLM cannot load this architecture; "
                                          "models that need custom code are refused unless allow-listed.",
    FailureCode.OUT_OF_MEMORY: "The model did not fit the worker's memory at this precision; try a quantized precision.",
    FailureCode.MODEL_LOAD_ERROR: "The weights or tokenizer could not be loaded; check they load with "
                                  "AutoModelForCausalLM.from_pretrained(..., use_safetensors=True).",
    FailureCode.EVALUATION_ERROR: "Evaluation stopped with an error; an admin can re-run it.",
    FailureCode.WORKER_LOST: "The worker stopped responding (it was restarted or killed) too many times.",
    FailureCode.TIMEOUT: "The run exceeded its time limit.",
    FailureCode.CANCELLED: "The run was cancelled.",
}
RETRYABLE = frozenset(FailureCode) - {FailureCode.CANCELLED, FailureCode.MODEL_NOT_FOUND, FailureCode.GATED,
                                      FailureCode.UNSUPPORTED_ARCHITECTURE}


class RunCancelled(Exception):
    pass


def classify(exc: BaseException, *, during_load: bool) -> str:
    name = type(exc).__name__
    text = str(exc)
    if isinstance(exc, RunCancelled):
        return FailureCode.CANCELLED
    if name in ("RepositoryNotFoundError", "RevisionNotFoundError", "EntryNotFoundError"):
        return FailureCode.MODEL_NOT_FOUND
    if name == "GatedRepoError":
        return FailureCode.GATED
    if name == "OutOfMemoryError" or "out of memory" in text.lower():
        return FailureCode.OUT_OF_MEMORY
    if name == "SoftTimeLimitExceeded":
        return FailureCode.TIMEOUT
    if during_load and ("does not recognize this architecture" in text or "model type" in text
                        and "not" in text and "recognized" in text):
        return FailureCode.UNSUPPORTED_ARCHITECTURE
    return FailureCode.MODEL_LOAD_ERROR if during_load else FailureCode.EVALUATION_ERROR


def log_excerpt(exc: BaseException, *, sealed: bool, limit: int = 1500) -> str:
    """The traceback's tail. For a sealed run only the exception type: a message may quote a prompt."""
    if sealed:
        return f"{type(exc).__name__} (details withheld: sealed split)"
    text = "".join(traceback.format_exception(exc))
    return text[-limit:]
