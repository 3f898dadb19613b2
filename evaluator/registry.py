"""Classes registered lazily by name (as lm-evaluation-harness does): an entry is a "package.module:ClassName"
string, imported the first time it is asked for, so importing a registry imports none of the heavy libraries
behind its entries (torch, vLLM). The backends and the judges each keep one."""
from __future__ import annotations

import importlib
from typing import Any, Generic, Mapping, TypeVar

T = TypeVar("T")


class LazyRegistry(Generic[T]):
    """Names to "module:Class" targets. `what` names an entry in errors ("backend", "judge kind"); `error` is
    the exception an unknown name raises, its message naming the known entries."""

    def __init__(self, what: str, entries: Mapping[str, str], *, error: type[Exception] = KeyError) -> None:
        self.what, self.error = what, error
        self._targets: dict[str, str] = {}
        for name, target in entries.items():
            self.register(name, target)

    def register(self, name: str, target: str) -> None:
        """Register "package.module:ClassName" under `name` (a later registration replaces an earlier one)."""
        module_name, sep, cls_name = target.partition(":")
        if not (module_name and sep and cls_name) or ":" in cls_name:
            raise ValueError(f"a {self.what} target is 'package.module:ClassName', not {target!r}")
        self._targets[name] = target

    def names(self) -> list[str]:
        return sorted(self._targets)

    def __contains__(self, name: object) -> bool:
        return name in self._targets

    def get(self, name: str) -> type[T]:
        """The class registered under `name`, its module imported now."""
        try:
            target = self._targets[name]
        except KeyError:
            raise self.error(f"unknown {self.what} {name!r}; known: {', '.join(self.names())}") from None
        module_name, _, cls_name = target.partition(":")
        cls: type[T] = getattr(importlib.import_module(module_name), cls_name)
        return cls

    def create(self, name: str, *args: Any, **kwargs: Any) -> T:
        """An instance of the class registered under `name`."""
        return self.get(name)(*args, **kwargs)
