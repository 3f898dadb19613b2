"""Refusals of a submission: DomainErrors, answered by the API's exception handler with their status."""
from leaderboard.core.errors import DomainError


class SubmissionError(DomainError):
    """Raised message first, as the submission code always has: SubmissionError(message, hint=, code=, **extra)."""

    def __init__(self, message, *, hint="", code=None, **extra):
        super().__init__(code, message, hint, **extra)


class DuplicateSubmission(SubmissionError):
    status = 409
    code = "DUPLICATE"


class QuotaExceeded(SubmissionError):
    status = 429
    code = "QUOTA_EXCEEDED"


class NotNamespaceOwner(SubmissionError):
    status = 403
    code = "NOT_NAMESPACE_OWNER"
