"""One lazy registry (evaluator/registry.py) behind the backends and the judges."""
import subprocess
import sys
from collections import OrderedDict

import pytest

from evaluator.backends import BACKENDS, BackendError, available_backends, get_backend_class, register_backend
from evaluator.judges import JUDGE_KINDS, JudgeError, create_judge
from evaluator.registry import LazyRegistry


def test_it_imports_an_entry_only_when_asked_and_names_the_known_ones():
    registry = LazyRegistry("thing", {"dict": "collections:OrderedDict"}, error=LookupError)
    assert registry.names() == ["dict"] and "dict" in registry and "other" not in registry
    assert registry.get("dict") is OrderedDict
    assert registry.create("dict", [("a", 1)]) == OrderedDict(a=1)
    registry.register("counter", "collections:Counter")
    assert registry.names() == ["counter", "dict"]
    with pytest.raises(LookupError, match=r"unknown thing 'nope'; known: counter, dict"):
        registry.get("nope")


@pytest.mark.parametrize("target", ["collections", "collections:", ":Counter", "a:b:c"])
def test_a_target_that_is_not_module_colon_class_is_refused(target):
    with pytest.raises(ValueError, match="package.module:ClassName"):
        LazyRegistry("thing", {}).register("x", target)


def test_backends_and_judges_use_it():
    assert available_backends() == ["llamacpp", "transformers", "vllm"] == BACKENDS.names()
    assert set(JUDGE_KINDS) == {"local", "http"}
    with pytest.raises(BackendError, match="unknown backend 'nope'; known: llamacpp, transformers, vllm"):
        get_backend_class("nope")
    with pytest.raises(JudgeError, match="unknown judge kind 'nope'; known: http, local"):
        create_judge("nope", "org/model")
    register_backend("plugin", "collections:OrderedDict")
    try:
        assert get_backend_class("plugin") is OrderedDict
    finally:
        BACKENDS._targets.pop("plugin")


def test_importing_the_registries_imports_no_heavy_library():
    code = ("import sys, evaluator, evaluator.backends, evaluator.judges; "
            "print(sorted(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
