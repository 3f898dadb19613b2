"""ruff with the project's rules (pyproject.toml) passes on the whole tree, and settings defaults live in settings."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_passes():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_settings_defaults_live_in_settings_only():
    """`getattr(settings, "X", default)` repeats a default that settings/base.py owns, and the two drift apart."""
    found = []
    for package in ("leaderboard", "evaluator", "frontend"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if "settings" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "getattr" and len(node.args) == 3
                        and getattr(node.args[0], "id", "") == "settings"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, "read settings.X and define its default in leaderboard/settings/base.py: " + ", ".join(found)
