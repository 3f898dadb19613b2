"""Backends registered lazily by name (as lm-evaluation-harness does): importing this
package imports neither torch nor vLLM; `create_backend("vllm", ...)` does."""
from __future__ import annotations

import importlib
from typing import Any

from .base import Backend, BackendError, BackendUnavailable, encode_prompt, letter_token_forms

_REGISTRY: dict[str, str] = {
    "transformers": "evaluator.backends.transformers_backend:TransformersBackend",
    "vllm": "evaluator.backends.vllm_backend:VLLMBackend",
}


def register_backend(name: str, target: str) -> None:
    """Register "package.module:ClassName" under a name (plug-ins, tests)."""
    _REGISTRY[name] = target


def available_backends() -> list[str]:
    return sorted(_REGISTRY)


def get_backend_class(name: str) -> type:
    try:
        module_name, cls_name = _REGISTRY[name].split(":")
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; known: {', '.join(available_backends())}") from None
    return getattr(importlib.import_module(module_name), cls_name)


def create_backend(name: str, model: str, **kwargs: Any) -> Backend:
    """Build a backend by name; the heavy library is imported here, not at import time."""
    return get_backend_class(name)(model, **kwargs)


__all__ = [
    "Backend", "BackendError", "BackendUnavailable", "available_backends", "create_backend",
    "encode_prompt", "get_backend_class", "letter_token_forms", "register_backend",
]
