"""Backends registered lazily by name (evaluator/registry.py): importing this package imports neither torch,
vLLM nor llama.cpp; `create_backend("vllm", ...)` does."""
from __future__ import annotations

from typing import Any

from ..registry import LazyRegistry
from .base import Backend, BackendError, BackendUnavailable, encode_prompt, letter_token_forms

BACKENDS: LazyRegistry[Backend] = LazyRegistry("backend", {
    "transformers": "evaluator.backends.transformers_backend:TransformersBackend",
    "vllm": "evaluator.backends.vllm_backend:VLLMBackend",
    "llamacpp": "evaluator.backends.llamacpp_backend:LlamaCppBackend",
}, error=BackendError)


def register_backend(name: str, target: str) -> None:
    """Register "package.module:ClassName" under a name (plug-ins, tests)."""
    BACKENDS.register(name, target)


def available_backends() -> list[str]:
    return BACKENDS.names()


def get_backend_class(name: str) -> type[Backend]:
    return BACKENDS.get(name)


def create_backend(name: str, model: str, **kwargs: Any) -> Backend:
    """Build a backend by name; the heavy library is imported here, not at import time."""
    return BACKENDS.create(name, model, **kwargs)


__all__ = [
    "BACKENDS", "Backend", "BackendError", "BackendUnavailable", "available_backends", "create_backend",
    "encode_prompt", "get_backend_class", "letter_token_forms", "register_backend",
]
