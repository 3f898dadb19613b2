"""bench/ondevice_bench.py end to end on a one-layer tiny Llama, two real-shaped questions and small pp/tg sizes, so a
change cannot break it unnoticed: it prints the llama.cpp / transformers ratio with the prompt sizes, their agreement
(f32 both sides: the same letters), and the cost profile's coefficients of variation under its label."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.llamacpp, pytest.mark.slow]
BENCH = Path(__file__).resolve().parents[2] / "bench" / "ondevice_bench.py"


def test_the_bench_prints_the_ratio_the_agreement_and_the_profile_cv():
    out = subprocess.run([sys.executable, str(BENCH), "--n", "2", "--repeats", "2", "--pp", "16", "--tg", "4",
                          "--blocks", "1", "--layers", "1", "--threads", "1"],
                         capture_output=True, text=True, check=True, timeout=300).stdout
    assert re.search(r"2 real-shaped prompts: mean prompt characters [\d,]+, mean prompt tokens \d+", out)
    assert re.search(r"llamacpp / transformers \d+\.\d\dx", out)
    assert "same letter 100%" in out  # an f32 file and float32 torch pick the same letter
    assert "measured on a server CPU with 1 threads: a proxy, not a phone" in out
    assert len(re.findall(r"CV within a profile \(worst of 3\) +\d+\.\d%   CV across processes +\d+\.\d%", out)) == 3
    assert re.search(r"worst CV \d+\.\d% \((within|over) the 5% aim\)", out)
