"""The refusal behind a management command's error: commands print a DomainError's message (CommandError(str(exc))
raised `from None`), so a test asserts the refusal's code on the DomainError the CommandError was raised from."""
from leaderboard.core.errors import DomainError


def refusal_of(error: BaseException) -> DomainError:
    """The DomainError `error` (a CommandError) was raised from: its cause, or the context `from None` hides."""
    refusal = error.__cause__ or error.__context__
    assert isinstance(refusal, DomainError), f"{error!r} was not raised from a refusal (its context: {refusal!r})"
    return refusal
