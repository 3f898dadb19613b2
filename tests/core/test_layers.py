"""The layers of docs/ARCHITECTURE.md §7, as import-linter contracts in pyproject.toml: an import up the layers
that is not one of the named exemptions fails here."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Installed by requirements-dev.txt; the vLLM environment, which only runs tests marked vllm, lacks it.
pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pyproject.toml"
# In a process of its own: lint_imports reconfigures logging (disabling the loggers that exist), which would
# silence this process's loggers for the tests that come after.
LINT = "import sys; from importlinter.cli import lint_imports; sys.exit(lint_imports(sys.argv[1], no_cache=True, " \
       "no_logo=True))"


def lint(config: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", LINT, str(config)], cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=300, env={**os.environ, "COLUMNS": "200"})  # unwrapped lines
    return done.returncode, done.stdout + done.stderr


def test_the_layer_contracts_hold():
    code, report = lint(CONFIG)
    assert code == 0, report


def test_an_import_up_the_layers_that_is_not_listed_fails(tmp_path):
    """The contracts are live: with one exemption taken off its list, the check fails and names the import."""
    listed = '    "leaderboard.results.selectors -> leaderboard.contamination.ladder",\n'
    text = CONFIG.read_text()
    assert listed in text
    (tmp_path / "pyproject.toml").write_text(text.replace(listed, ""))
    code, report = lint(tmp_path / "pyproject.toml")
    assert code != 0 and "leaderboard.results.selectors -> leaderboard.contamination.ladder" in report, report
