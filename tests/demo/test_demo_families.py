"""The demo's models of other families (DEMO_FAMILY_MODELS: GQA, sliding and full attention, a conv/attention hybrid,
an SSM), as `./dev.sh serve` builds them first (load_demo --untrained-only: no training) and evaluates them through
`manage.py evaluate`: the board ranks them beside tiny-random, each with its own architecture."""
import shutil

import pytest
from django.core.management import call_command

from leaderboard.benchmarks.demo import DEMO_FAMILY_MODELS, demo_models_dir
from leaderboard.evaluations.selectors import model_location

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

ARCHITECTURES = {"tiny-qwen2": "Qwen2ForCausalLM", "tiny-gemma3": "Gemma3ForCausalLM",
                 "tiny-lfm2": "Lfm2ForCausalLM", "tiny-mamba": "MambaForCausalLM"}


@pytest.fixture
def untrained_demo(demo_models_built, demo_models_folder, settings, tmp_path):
    """load_demo --untrained-only in a var folder of this test's own, over the run's demo tokenizer (copied)."""
    settings.VAR_DIR = tmp_path
    shutil.copytree(demo_models_folder / "tokenizer", tmp_path / "demo" / "tokenizer")
    call_command("load_demo", "--untrained-only", verbosity=0)


def test_serve_s_first_step_builds_every_untrained_model_and_no_trained_one(untrained_demo):
    built = sorted(path.name for path in demo_models_dir().iterdir() if (path / "config.json").exists())
    assert built == sorted(["tiny-random", *DEMO_FAMILY_MODELS])  # tiny-val-memorizer: trained later
    for name in DEMO_FAMILY_MODELS:
        assert model_location(model_ref=f"demo/{name}") == str(demo_models_dir() / name)


def test_the_board_ranks_the_demo_s_families_each_with_its_architecture(client, untrained_demo):
    for name in DEMO_FAMILY_MODELS:  # MMLU-Pro's 42 demo questions: the families' paths, quickly
        call_command("evaluate", "--model", f"demo/{name}", "--benchmark", "mmlu-pro", "--split", "validation",
                     "--no-efficiency", "--line", verbosity=0)
    rows = client.get("/api/v1/leaderboard/", {"benchmark": "mmlu-pro"}).json()["results"]
    assert {r["hub_id"] for r in rows} == {f"demo/{name}" for name in ARCHITECTURES}
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert all(r["n"] == 42 and 0 <= r["accuracy"] <= 100 for r in rows)
    for name, architecture in ARCHITECTURES.items():  # the model page's facts
        assert client.get(f"/api/v1/models/demo/{name}/").json()["architecture"] == architecture
