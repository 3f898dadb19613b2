"""What goes wrong when the hub is asked: the refusal of a model (``SubmissionRefused`` with one of CODES) and the
failed requests the hub client raises (``HubError`` and its kinds), which each caller words for its own reader."""
from __future__ import annotations

from leaderboard.core.errors import DomainError

INVALID_ID = "INVALID_ID"
MODEL_NOT_FOUND = "MODEL_NOT_FOUND"
REVISION_NOT_FOUND = "REVISION_NOT_FOUND"
GATED = "GATED"
PRIVATE = "PRIVATE"
NO_SAFETENSORS = "NO_SAFETENSORS"
CUSTOM_CODE = "CUSTOM_CODE"
TOO_LARGE = "TOO_LARGE"
NO_LICENSE = "NO_LICENSE"
NO_CONFIG = "NO_CONFIG"
HUB_UNAVAILABLE = "HUB_UNAVAILABLE"
UNKNOWN_PRECISION = "UNKNOWN_PRECISION"
# A GGUF file submitted on its own (gguf_checks.py)
GGUF_NOT_FOUND = "GGUF_NOT_FOUND"
NOT_GGUF = "NOT_GGUF"
GGUF_TRUNCATED = "GGUF_TRUNCATED"
GGUF_SPLIT_INCOMPLETE = "GGUF_SPLIT_INCOMPLETE"
GGUF_ARCH_UNSUPPORTED = "GGUF_ARCH_UNSUPPORTED"
GGUF_TOO_LARGE = "GGUF_TOO_LARGE"
GGUF_NO_TOKENIZER = "GGUF_NO_TOKENIZER"
# ... and what a header may cost or claim (gguf_header.HeaderLimits, gguf_quant.py)
GGUF_HEADER_TOO_LARGE = "GGUF_HEADER_TOO_LARGE"
GGUF_TOO_MANY_KEYS = "GGUF_TOO_MANY_KEYS"
GGUF_TOO_MANY_TENSORS = "GGUF_TOO_MANY_TENSORS"
GGUF_ARRAY_TOO_LONG = "GGUF_ARRAY_TOO_LONG"
GGUF_HEADER_TOO_SLOW = "GGUF_HEADER_TOO_SLOW"
GGUF_PARAMS_OUT_OF_RANGE = "GGUF_PARAMS_OUT_OF_RANGE"
GGUF_QUANT_MISMATCH = "GGUF_QUANT_MISMATCH"
GGUF_BAD_ALIGNMENT = "GGUF_BAD_ALIGNMENT"  # general.alignment not a UINT32 power of two (gguf.cpp refuses it)
GGUF_METADATA_OUT_OF_RANGE = "GGUF_METADATA_OUT_OF_RANGE"  # an attention fact not a UINT32 within its bounds
# ... and what one intake may cost, all parts together (gguf_checks.IntakeLimits)
GGUF_TOO_MANY_PARTS = "GGUF_TOO_MANY_PARTS"
GGUF_TOO_MANY_REQUESTS = "GGUF_TOO_MANY_REQUESTS"
GGUF_INTAKE_TOO_SLOW = "GGUF_INTAKE_TOO_SLOW"
GGUF_CODES = (GGUF_NOT_FOUND, NOT_GGUF, GGUF_TRUNCATED, GGUF_SPLIT_INCOMPLETE, GGUF_ARCH_UNSUPPORTED, GGUF_TOO_LARGE,
              GGUF_NO_TOKENIZER, GGUF_HEADER_TOO_LARGE, GGUF_TOO_MANY_KEYS, GGUF_TOO_MANY_TENSORS, GGUF_ARRAY_TOO_LONG,
              GGUF_HEADER_TOO_SLOW, GGUF_PARAMS_OUT_OF_RANGE, GGUF_QUANT_MISMATCH, GGUF_BAD_ALIGNMENT,
              GGUF_METADATA_OUT_OF_RANGE, GGUF_TOO_MANY_PARTS, GGUF_TOO_MANY_REQUESTS, GGUF_INTAKE_TOO_SLOW)
CODES = (INVALID_ID, MODEL_NOT_FOUND, REVISION_NOT_FOUND, GATED, PRIVATE, NO_SAFETENSORS, CUSTOM_CODE, TOO_LARGE,
         NO_LICENSE, NO_CONFIG, HUB_UNAVAILABLE, UNKNOWN_PRECISION, *GGUF_CODES)


class SubmissionRefused(DomainError):
    """A model the leaderboard will not evaluate (400): ``code`` (one of CODES), ``message`` (what), ``hint`` (fix).

    ``retryable`` is true only for HUB_UNAVAILABLE: the same request may pass later.
    """

    def __init__(self, code: str, message: str, hint: str = ""):
        super().__init__(code, message, hint)

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    @property
    def retryable(self) -> bool:
        return self.code == HUB_UNAVAILABLE


# --- failed hub requests (client.hub_errors maps huggingface_hub's exceptions onto these) ---------------------

class HubError(Exception):
    """A hub request that did not give an answer the caller can use; ``detail``: what is known of why."""

    def __init__(self, detail: str = ""):
        super().__init__(detail)
        self.detail = detail


class InvalidRepoId(HubError):
    """huggingface_hub refused the repository id before asking (``detail``: its reason)."""


class RepoGated(HubError):
    """The repository is gated and the token has no access to its files."""


class RepoNotFound(HubError):
    """No such repository, or a private one the token cannot see."""


class RevisionNotFound(HubError):
    """The repository has no such branch, tag or commit."""


class HubHTTPError(HubError):
    """Any other error answer: ``status`` (None if unknown) and the hub's own message as ``detail`` ("" if none)."""

    def __init__(self, status: int | None, detail: str):
        super().__init__(detail)
        self.status = status


class RepoDisabled(HubHTTPError):
    """The hub disabled the repository (an HTTP 403 it explains)."""


class HubUnreachable(HubError):
    """No answer at all (connection refused, reset, timed out); ``detail``: the exception's class name."""


class HubAnswerUnreadable(HubUnreachable):
    """An answer that is not what the hub client expects (not JSON, a missing field)."""


class FileTooLarge(HubError):
    """A file read with a cap (config.json) is larger than ``limit`` bytes."""

    def __init__(self, limit: int):
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


class SafetensorsUnreadable(HubError):
    """The safetensors headers could not be read; ``detail``: the exception's class name."""
