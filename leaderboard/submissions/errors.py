"""Refusals of a submission, each mapped to an HTTP status by the API."""


class SubmissionError(Exception):
    status = 400
    code = "INVALID"

    def __init__(self, message, *, hint="", code=None, **extra):
        super().__init__(message)
        self.message, self.hint, self.extra = message, hint, extra
        if code:
            self.code = code

    def as_dict(self):
        return {"code": self.code, "detail": self.message, "hint": self.hint, **self.extra}


class DuplicateSubmission(SubmissionError):
    status = 409
    code = "DUPLICATE"


class QuotaExceeded(SubmissionError):
    status = 429
    code = "QUOTA_EXCEEDED"


class NotNamespaceOwner(SubmissionError):
    status = 403
    code = "NOT_NAMESPACE_OWNER"
