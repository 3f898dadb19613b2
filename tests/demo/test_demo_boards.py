"""The demo models evaluated as `dev.sh serve` does on the demo's second and third boards (Mobile-MMLU-Pro, MMLU-Pro),
through `manage.py evaluate`: neither board is empty, and the mobile-vs-general view pairs them."""
import pytest
from django.core.management import call_command

from leaderboard.benchmarks.demo import DEMO_MODELS
from leaderboard.demo.seed import demo_models_register

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def demo_models(demo_models_built, demo_models_folder, settings):
    """The demo models built from the demo database as load_demo does, where `evaluate --model demo/<name>` finds
    them (VAR_DIR/demo)."""
    settings.VAR_DIR = demo_models_folder.parent
    demo_models_register(demo_models_built)


def test_the_demo_models_fill_the_pro_and_the_general_boards(client, demo_models):
    for model in DEMO_MODELS:
        for benchmark in ("mobile-mmlu-pro", "mmlu-pro"):
            call_command("evaluate", "--model", f"demo/{model}", "--benchmark", benchmark, "--split", "validation",
                         "--no-efficiency", "--line", verbosity=0)
    boards = {slug: {r["hub_id"]: r for r in client.get("/api/v1/leaderboard/", {"benchmark": slug}).json()["results"]}
              for slug in ("mobile-mmlu-pro", "mmlu-pro")}
    assert set(boards["mobile-mmlu-pro"]) == set(boards["mmlu-pro"]) == {f"demo/{m}" for m in DEMO_MODELS}
    # The memorizer learned the validation answers, so the Pro subset of validation too; MMLU-Pro it never saw.
    assert boards["mobile-mmlu-pro"]["demo/tiny-val-memorizer"]["accuracy"] > 90
    assert boards["mmlu-pro"]["demo/tiny-val-memorizer"]["accuracy"] < 60
    rows = client.get("/api/v1/mobile-vs-general/", {"mobile": "mobile-mmlu-pro"}).json()["results"]
    measured = {r["hub_id"]: r for r in rows if r["source"] == "measured"}
    assert set(measured) == {f"demo/{m}" for m in DEMO_MODELS}
    assert measured["demo/tiny-val-memorizer"]["mobile_rank"] == 1
    assert any(r["source"] == "paper, Table 2" for r in rows)
