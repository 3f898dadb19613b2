import sys
import types

from evaluator.efficiency import fixed_sample, measure_efficiency


class FakeBackend:
    name, load_seconds = "fake", 1.5

    def __init__(self, device):
        self.device = device

    def letter_logprobs(self, prompts, *, use_chat_template=False):
        return [{"A": -1.0, "B": -2.0} for _ in prompts]

    def count_tokens(self, prompt, *, use_chat_template=False):
        return 10

    def param_count(self):
        return 123

    def weight_bytes(self):
        return 492

    def peak_memory_bytes(self):
        return 4096


def fake_nvml(monkeypatch):
    counter = {"mj": 0}

    def energy(handle):
        counter["mj"] += 3000  # 3 J between reads
        return counter["mj"]

    mod = types.ModuleType("pynvml")
    mod.nvmlInit = lambda: None
    mod.nvmlDeviceGetHandleByIndex = lambda i: ("gpu", i)
    mod.nvmlDeviceGetTotalEnergyConsumption = energy
    monkeypatch.setitem(sys.modules, "pynvml", mod)


def test_it_measures_energy_per_question_on_a_gpu(monkeypatch):
    fake_nvml(monkeypatch)
    out = measure_efficiency(FakeBackend("cuda:0"), [f"p{i}" for i in range(40)])
    assert out["sample_size"] == 32 and out["prefill_tokens_per_s"] > 0
    assert out["energy_j_per_question"] == 3.0 / 32
    assert out["label"].startswith("server measurement") and out["peak_memory_kind"] == "cuda max_memory_allocated"
    assert out["param_count"] == 123 and out["weight_bytes"] == 492 and out["load_seconds"] == 1.5


def test_it_reports_no_energy_on_cpu(monkeypatch):
    fake_nvml(monkeypatch)
    out = measure_efficiency(FakeBackend("cpu"), ["a", "b"])
    assert out["energy_j_per_question"] is None and out["peak_memory_kind"] == "process peak RSS"


def test_the_latency_sample_is_fixed():
    items = [f"q{i}" for i in range(100)]
    assert fixed_sample(items, key=str) == fixed_sample(list(reversed(items)), key=str)
    assert len(fixed_sample(items, key=str)) == 32
