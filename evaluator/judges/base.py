"""The judge protocol: question texts in, one Judgement each out, plus a provenance record."""
from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

from .parsing import Judgement


class JudgeError(RuntimeError):
    """A judge that cannot work as configured, or an endpoint that keeps failing.

    Messages never contain question text (the sealed split is judged too)."""

    code = "JUDGE_ERROR"


@runtime_checkable
class Judge(Protocol):
    kind: str  # "local" or "http"
    model: str

    def judge(self, questions: Sequence[str]) -> list[Judgement]:
        """One Judgement per question text, in order."""

    def describe(self) -> dict[str, Any]:
        """Provenance: model, revision, endpoint kind, prompt version and hash, scoring method, settings."""
