"""No product file over 400 lines and no function or method over 60 (migrations excluded): a module or a function
past these sizes does several things, and is split into parts named for what they do."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PACKAGES = ("leaderboard", "evaluator", "frontend")
MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, first line, length in lines) of every function and method, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node.lineno, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{name}.")
        else:
            yield from _functions(node, prefix)


def oversized(root: Path, packages=PRODUCT_PACKAGES) -> list[str]:
    """One line per file over MAX_FILE_LINES and per function over MAX_FUNCTION_LINES under root's packages."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.relative_to(root).parts:
                continue
            text = path.read_text(encoding="utf-8")
            where = path.relative_to(root).as_posix()
            lines = len(text.splitlines())
            if lines > MAX_FILE_LINES:
                found.append(f"{where}: {lines} lines (at most {MAX_FILE_LINES})")
            for name, line, length in _functions(ast.parse(text, filename=where)):
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{where}:{line} {name}: {length} lines (at most {MAX_FUNCTION_LINES})")
    return found


def test_no_product_file_or_function_is_oversized():
    found = oversized(ROOT)
    if found:
        pytest.fail(f"{len(found)} product file(s) or function(s) over the size limits; split each into parts "
                    "named for what they do:\n" + "\n".join(f"  {item}" for item in found), pytrace=False)


def test_it_finds_a_long_file_a_long_method_and_a_nested_function_and_skips_migrations(tmp_path):
    package = tmp_path / "leaderboard"
    (package / "migrations").mkdir(parents=True)
    body = "\n".join(f"    x = {i}" for i in range(60))
    fits = "\n".join(f"    x = {i}" for i in range(59))  # with its def line: exactly 60
    method_body = "\n".join(f"        x = {i}" for i in range(60))
    (package / "long.py").write_text("\n" * 400 + "class A:\n    def method(self):\n" + method_body + "\n")
    (package / "nested.py").write_text(f"def outer():\n    def inner():\n{method_body}\n    return inner\n"
                                       f"def fits():\n{fits}\n")
    (package / "migrations" / "0001_initial.py").write_text("\n" * 500 + f"def forwards():\n{body}\n    y = 1\n")
    assert oversized(tmp_path, packages=("leaderboard",)) == [
        "leaderboard/long.py: 462 lines (at most 400)",
        "leaderboard/long.py:402 A.method: 61 lines (at most 60)",
        "leaderboard/nested.py:1 outer: 63 lines (at most 60)",
        "leaderboard/nested.py:2 outer.inner: 61 lines (at most 60)",
    ]
