"""The one refusal type of the domain: a machine-readable code, a plain message and a hint saying how to fix it.

Services raise a DomainError (or a subclass); the API renders it through one DRF exception handler
(core/api.py: `{"code", "detail", "hint", ...extra}` with its status), management commands and pages show its
message. Plain Python: pure modules (upload parsing, hub id checks) raise it without importing Django.
"""


class DomainError(Exception):
    """`code` (e.g. "QUOTA_EXCEEDED"), `message` (what is wrong), `hint` (how to fix it), `status` (HTTP);
    `extra` keys (e.g. existing_submission) are added to the API's body. A subclass may fix code and status as
    class attributes and pass code=None; it may keep the builtin base it had (ValueError, ...) for the callers that
    catch that."""

    code = "INVALID"
    status = 400

    def __init__(self, code: str | None, message: str, hint: str = "", status: int | None = None, **extra):
        super().__init__(message)
        self.message, self.hint, self.extra = message, hint, extra
        if code:
            self.code = code
        if status:
            self.status = status

    def as_dict(self) -> dict:
        return {"code": self.code, "detail": self.message, "hint": self.hint, **self.extra}


class SealedSplitError(DomainError, PermissionError):
    """A read of sealed content (questions, answers, per-question or per-topic figures of the test split):
    answered as if there were nothing there (404). Still a PermissionError for the callers that catch one."""

    code = "SEALED_SPLIT"
    status = 404

    def __init__(self, message: str, hint: str = "use an open split (validation or dev)"):
        super().__init__(None, message, hint)
