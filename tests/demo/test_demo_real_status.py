"""dev.sh's ondevice_demo, run by `./dev.sh serve` beside the server: the site's status line (SITE_STATUS_FILE) says the
real model's file is on its way until it is on the board, and names it when it fails; its device report measures the
file load_real_gguf names. The function runs as dev.sh has it, with the commands it calls stubbed (each records what
it was asked, and what the status line said at that moment)."""
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEV_SH = (REPO / "dev.sh").read_text()


def function(name):
    start = DEV_SH.index(f"\n{name}() {{\n") + 1
    return DEV_SH[start:DEV_SH.index("\n}\n", start) + 3]


STUB = """#!/usr/bin/env bash
echo "$(basename "$0") $* | status: $(cat "$VAR/site-status.txt" 2>/dev/null)" >> "$VAR/calls.log"
case "$*" in
  *load_real_gguf*) [ "$REAL_FAILS" = 1 ] && exit 1; echo "entry line"; echo "file: $VAR/gemma.gguf" ;;
  *llama-bench*|-m*) echo "[]" ;;
esac
"""


def ondevice_demo(tmp_path, *, real_fails=False):
    var, venv = tmp_path / "var", tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    var.mkdir()
    (var / "made-gguf").mkdir()
    (var / "made-gguf" / "tiny-random-Q4_K_M.gguf").write_bytes(b"tiny")
    (var / "gemma.gguf").write_bytes(b"real")
    for name in ("python", "llama-bench"):
        (venv / "bin" / name).write_text(STUB)
        (venv / "bin" / name).chmod(0o755)
    script = "\n".join(["set -euo pipefail", f"LLAMACPP_VENV={venv}", "setup_llamacpp() { :; }",
                        function("ondevice_demo"), function("ondevice_demo_report"), "ondevice_demo"])
    subprocess.run(["bash", "-c", script], check=False, timeout=60, cwd=tmp_path,
                   env={"PATH": "/usr/bin:/bin", "VAR": str(var), "LEADERBOARD_VAR_DIR": str(var),
                        "REAL_FAILS": "1" if real_fails else "0"})
    return var, (var / "calls.log").read_text().splitlines()


@pytest.mark.parametrize("real_fails", [False, True])
def test_the_status_line_says_the_real_file_is_on_its_way_until_it_is_there(tmp_path, real_fails):
    var, calls = ondevice_demo(tmp_path, real_fails=real_fails)
    real = [c for c in calls if "load_real_gguf" in c]
    assert len(real) == 1 and "manage.py load_real_gguf --skip-if-done" in real[0]
    # while it runs, the board's status line says so (after the toy variants, which it named before)
    assert "A real model's file (Gemma 3 270M Q4_K_M, from its package) is being evaluated" in real[0]
    assert all("real model's file (Gemma 3 270M" in c for c in calls if "evaluate --model" in c)
    reports = [c for c in calls if c.startswith("python manage.py device_report")]
    benches = [c for c in calls if c.startswith("llama-bench")]
    if real_fails:
        assert (var / "site-status.txt").read_text().startswith("Some on-device variants of the demo models failed:")
        assert "the real model's file (Gemma 3 270M Q4_K_M)" in (var / "site-status.txt").read_text()
        assert [b.split()[2] for b in benches] == [f"{var}/made-gguf/tiny-random-Q4_K_M.gguf"] * 2
    else:
        assert not (var / "site-status.txt").exists()  # everything is on the board: no line
        # its device reports: the file the command named, by its sha256, after the toy file's; each file measured
        # and reported by two demo accounts, so the device board has confirmed figures (two people agree)
        assert [b.split()[2] for b in benches] == [f"{var}/made-gguf/tiny-random-Q4_K_M.gguf"] * 2 + [
            f"{var}/gemma.gguf"] * 2
        assert [r.split("--user ")[1].split()[0] for r in reports] == ["demo", "demo-second"] * 2
        for report in reports[2:]:
            assert "--make Demo server" in report and "--sha256 " in report
            assert report.split("--sha256 ")[1].split()[0] == (
                subprocess.run(["sha256sum", str(var / "gemma.gguf")], capture_output=True, text=True).stdout[:64])
