"""The layers of ARCHITECTURE §7, as import-linter contracts in pyproject.toml: an import up the layers that is
not one of the listed known violations fails here."""
from pathlib import Path

import pytest

# Installed by requirements-dev.txt; the vLLM environment, which only runs tests marked vllm, lacks it.
lint_imports = pytest.importorskip("importlinter.cli").lint_imports

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "pyproject.toml"


def lint(config: Path, capsys) -> tuple[int, str]:
    code = lint_imports(config_filename=str(config), no_cache=True, no_logo=True)
    return code, capsys.readouterr().out


def test_the_layer_contracts_hold(capsys):
    code, report = lint(CONFIG, capsys)
    assert code == 0, report


def test_an_import_up_the_layers_that_is_not_listed_fails(tmp_path, capsys):
    """The contracts are live: with one known violation taken off its list, the check fails and names it."""
    listed = '    "leaderboard.core.metrics -> leaderboard.evaluations.models",\n'
    text = CONFIG.read_text()
    assert listed in text
    (tmp_path / "pyproject.toml").write_text(text.replace(listed, ""))
    code, report = lint(tmp_path / "pyproject.toml", capsys)
    assert code != 0 and "leaderboard.core.metrics -> leaderboard.evaluations.models" in report, report
