"""mypy with the project's settings (pyproject.toml [tool.mypy]) passes on evaluator/, the engine that runs
without Django."""
import subprocess
import sys
from pathlib import Path

import pytest

# Installed by requirements-dev.txt; the vLLM environment, which only runs tests marked vllm, lacks it.
pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_passes_on_the_evaluator():
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
                          cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
