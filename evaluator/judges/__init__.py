"""MRScore judges (Django-free): the Appendix D prompt, reply parsing, and two judges behind one
protocol - a local model through the evaluator's backends, and an OpenAI-compatible HTTP endpoint.

Judges are registered lazily by name, like the backends: importing this package imports
neither torch nor anything network-related beyond the standard library.
"""
from __future__ import annotations

import importlib
from typing import Any

from .base import Judge, JudgeError
from .engine import JudgeItem, plan_hash, run_judging
from .parsing import Judgement, parse_score
from .prompt import PROMPT_VERSION, prompt_hash, render

_REGISTRY: dict[str, str] = {
    "local": "evaluator.judges.local:LocalJudge",
    "http": "evaluator.judges.http:HTTPJudge",
}
JUDGE_KINDS = tuple(_REGISTRY)


def create_judge(kind: str, model: str, **kwargs: Any) -> Judge:
    try:
        module_name, cls_name = _REGISTRY[kind].split(":")
    except KeyError:
        raise JudgeError(f"unknown judge kind {kind!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    return getattr(importlib.import_module(module_name), cls_name)(model, **kwargs)


__all__ = ["JUDGE_KINDS", "PROMPT_VERSION", "Judge", "JudgeError", "JudgeItem", "Judgement", "create_judge",
           "parse_score", "plan_hash", "prompt_hash", "render", "run_judging"]
