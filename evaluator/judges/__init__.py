"""MRScore judges (Django-free): the Appendix D prompt, reply parsing, and two judges behind one
protocol - a local model through the evaluator's backends, and an OpenAI-compatible HTTP endpoint.

Judges are registered lazily by name, like the backends (evaluator/registry.py): importing this package
imports neither torch nor anything network-related beyond the standard library.
"""
from __future__ import annotations

from typing import Any

from ..registry import LazyRegistry
from .base import Judge, JudgeError
from .engine import JudgeItem, plan_hash, run_judging
from .parsing import Judgement, parse_score
from .prompt import PROMPT_VERSION, prompt_hash, render

JUDGES: LazyRegistry[Judge] = LazyRegistry("judge kind", {
    "local": "evaluator.judges.local:LocalJudge",
    "http": "evaluator.judges.http:HTTPJudge",
}, error=JudgeError)
JUDGE_KINDS = tuple(JUDGES.names())


def create_judge(kind: str, model: str, **kwargs: Any) -> Judge:
    return JUDGES.create(kind, model, **kwargs)


__all__ = ["JUDGES", "JUDGE_KINDS", "PROMPT_VERSION", "Judge", "JudgeError", "JudgeItem", "Judgement",
           "create_judge", "parse_score", "plan_hash", "prompt_hash", "render", "run_judging"]
