"""The demo through the whole pipeline: submit -> GPU queue (a worker with the GPU settings, no sealed key)
-> scoring on the trusted worker -> Δ. tiny-val-memorizer learned the validation answers and is flagged;
tiny-random is not."""
import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from leaderboard.benchmarks.demo import DEMO_MODELS
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.hub.ids import ModelRef
from leaderboard.submissions.services import submission_create
from tests.support.fake_hub import files_from_folder
from tests.support.lifecycle import flush_broker, start_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
FAST = dict(RUN_CHUNK_SIZE=240, RUN_LEASE_SECONDS=60, RUN_RETRY_DELAY_SECONDS=0, RUN_BATCH_SIZE=32,
            RUN_TORCH_THREADS=1)


@pytest.fixture
def demo_on_hub(fake_hub, demo_models_built):
    """The two demo models, built from the demo database as load_demo does, published as demo/<name>."""
    for name, path in demo_models_built.items():
        files = files_from_folder(path)
        files["README.md"] = b"---\nlicense: apache-2.0\n---\n# demo model\n"
        fake_hub.add_repo(f"demo/{name}", repo_type="model", files=files, license="apache-2.0")
    return [f"demo/{name}" for name in DEMO_MODELS]


def test_the_memorizer_is_flagged_and_the_random_model_is_not(client, demo_on_hub, settings):
    settings.SUBMISSION_VALIDATION_VARIANTS = ["original"]
    user = User.objects.create_user("demo-author")
    flush_broker()
    submissions = [submission_create(user=user, ref=ModelRef(hub_id)) for hub_id in demo_on_hub]
    runs = EvaluationRun.objects.filter(submission__in=submissions)
    assert sorted(runs.values_list("split", flat=True)) == ["test", "test", "validation", "validation"]

    def done():
        return all(r.status in (RunStatus.SUCCEEDED, RunStatus.FAILED) for r in runs.all())

    with start_worker(queues="gpu", **FAST) as gpu, start_worker(queues="default", **FAST) as scorer:
        wait_until(done, timeout=300, interval=0.5,
                   message=lambda: f"the demo runs\n{gpu.log[-3000:]}\n{scorer.log[-2000:]}")
    flush_broker()
    assert set(runs.values_list("status", flat=True)) == {RunStatus.SUCCEEDED}
    # The GPU worker ran with the GPU-worker settings: it predicted but never scored.
    assert "evaluations.score_run[" not in gpu.log and "evaluations.score_run[" in scorer.log

    rows = client.get(reverse("api-contamination"), {"benchmark": "mobile-mmlu"}).json()["results"]
    board = {row["hub_id"]: row for row in rows}
    memorizer, random = board["demo/tiny-val-memorizer"], board["demo/tiny-random"]
    assert memorizer["flagged"] and memorizer["z"] < -3 and memorizer["validation"]["accuracy"] > 90
    assert not random["flagged"] and abs(random["z"]) < 3
    leaderboard = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu"}).json()["results"]
    flags = {row["hub_id"]: row["possible_contamination"] for row in leaderboard}
    assert flags == {"demo/tiny-val-memorizer": True, "demo/tiny-random": False}
