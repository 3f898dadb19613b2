"""The board of tests/boards/ondevice_world.py (a 16-bit model, three submitted GGUF files and one made here, scored by
the real path) plus the file a real llama-bench run measured (data/README.md), and the bodies of device reports."""
import copy
import json
from pathlib import Path

from tests.boards import ondevice_world
from tests.boards.ondevice_world import BASE, first_right, profile
from tests.results.quantized_runs import gguf_entry, letter_run, questions

DATA = Path(__file__).with_name("data")
CAPTURED_JSON = DATA / "llama-bench-tiny-q4_k_m.json"
NAME, BYTES, MODEL_SIZE = "llama-q4_k_m.gguf", 1_088_512, 1_064_912
SHA256 = "ee812d5bff88fbebee7ea2361cbe7a54e7a61322439722cae380597664876865"
HUB = f"org/tiny-GGUF/{NAME}"
RIGHT = 285  # of the 480 validation questions
DEVICE = {"make": "Google", "model": "Pixel 8", "chip": "Tensor G3", "ram_gb": 8, "os_version": "Android 14",
          "charging": False}


def captured() -> list:
    """A fresh copy of the real llama-bench output."""
    return json.loads(CAPTURED_JSON.read_text(encoding="utf-8"))


def with_speeds(tg: float, pp: float | None = None, bench=None) -> list:
    """The captured output with its tests' avg_ts (and samples) set: another device's figures, same file."""
    out = copy.deepcopy(bench or captured())
    for test in out:
        rate = tg if test["n_gen"] else (pp if pp is not None else test["avg_ts"])
        test["avg_ts"], test["stddev_ts"], test["samples_ts"] = rate, rate / 50, [rate] * 3
    return out


def captured_file_run(hub=HUB, *, sha256=SHA256, model_size=MODEL_SIZE, right=RIGHT, profiled=True):
    """The measured file on the board: a submitted GGUF file's scored open-split run, pinned to the file's sha256,
    with the server's cost profile (which names llama.cpp's model_size)."""
    submission = gguf_entry(hub, base_model=BASE, quantization="Q4_K_M")
    files = [{"file": hub.split("/", 2)[2], "size": BYTES, "sha256": sha256}]
    efficiency = {"ondevice": {**profile(40.0, 300.0, 0.5, 50_000_000, BYTES), "model_size": model_size}}
    return letter_run(hub, first_right(right, len(questions())), precision="gguf", submission=submission,
                      model_files=files, efficiency=efficiency if profiled else {})


def profiled_size(run, model_size):
    """The server's profile of `run`'s file names llama.cpp's model_size, as a profile measured now does."""
    from leaderboard.evaluations.models import EvaluationRun

    efficiency = EvaluationRun.objects.get(pk=run.pk).efficiency
    efficiency["ondevice"]["model_size"] = model_size
    EvaluationRun.objects.filter(pk=run.pk).update(efficiency=efficiency)


def build():
    out = ondevice_world.build()
    out["captured"] = captured_file_run()
    return out


def body(bench=None, **fields):
    """A POST body: the captured output and DEVICE, with `fields` replacing or adding top-level or device fields."""
    device = {**DEVICE, **{k: v for k, v in fields.items() if k in DEVICE}}
    rest = {k: v for k, v in fields.items() if k not in DEVICE}
    return {"llama_bench": captured() if bench is None else bench, "device": device, **rest}
