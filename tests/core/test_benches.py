"""The bench/ scripts run outside the suite, so a rename in the code would break them unnoticed: every name
they import from the project (function-local imports included) must exist."""
import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ("leaderboard", "evaluator", "frontend", "tests", "bench")


def _project_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module.split(".")[0] in PROJECT:
            yield node.lineno, node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    yield node.lineno, alias.name, []


def _missing(module: str, name: str) -> bool:
    if hasattr(importlib.import_module(module), name):
        return False
    try:
        importlib.import_module(f"{module}.{name}")  # a submodule imported by name
    except ImportError:
        return True
    return False


@pytest.mark.parametrize("script", sorted((ROOT / "bench").glob("*.py")), ids=lambda p: p.name)
def test_a_bench_imports_only_what_the_code_has(script):
    broken = [f"{script.name}:{line} {module}.{name}" for line, module, names in _project_imports(script)
              for name in names if _missing(module, name)]
    assert not broken, "bench imports names the code no longer has: " + ", ".join(broken)
