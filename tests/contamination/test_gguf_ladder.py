"""A GGUF file submitted on its own (issue 24, 2a) is a model like any other under the Ladder rule: its sealed run,
scored by the real path, is judged in its own family (its base model, else repository, and quantization: issue 38)
and spends its submitter's budget."""
import pytest
from django.contrib.auth.models import User

from leaderboard.contamination.models import LadderDecision
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.hub.ids import ModelRef
from leaderboard.submissions import services
from tests.support.fake_hub import readme
from tests.support.tiny_gguf import tiny_gguf

pytestmark = pytest.mark.django_db
ENTRY = "alice-org/tiny-GGUF/tiny-Q8_0.gguf"


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice")


@pytest.fixture
def gguf_test_run(fake_hub, version, alice):
    fake_hub.add_repo("alice-org/tiny-GGUF", repo_type="model", files={
        "README.md": readme({"license": "mit"}), "tiny-Q8_0.gguf": tiny_gguf()})

    def submit():
        submission = services.submission_create(user=alice, ref=ModelRef("alice-org/tiny-GGUF"),
                                                gguf_file="tiny-Q8_0.gguf")
        return EvaluationRun.objects.get(submission=submission, split="test")
    return submit


def test_a_gguf_files_sealed_run_is_judged_in_its_own_family(make_run, alice, gguf_test_run):
    make_run("alice-org/tiny-GGUF", "test", 300, submitter=alice)  # the repository's safetensors model
    run = gguf_test_run()
    make_run(ENTRY, "test", 200, run=run)  # the GPU worker's part, then the real scoring path
    decision = LadderDecision.objects.get(candidate_run_id=run.pk)
    # its family: its repository (no base model named) @ its quantization; not compared with the 16-bit model
    assert decision.family == "alice-org/tiny-gguf@q8_0" and decision.reason == "first"


def test_a_gguf_files_sealed_run_spends_the_submitters_budget(make_run, alice, gguf_test_run, settings):
    settings.LADDER_RELEASES_PER_WINDOW = 1
    make_run("alice-org/other", "test", 200, submitter=alice)  # the one release of the window
    run = gguf_test_run()
    make_run(ENTRY, "test", 300, run=run)
    decision = LadderDecision.objects.get(candidate_run_id=run.pk)
    assert decision.reason == "budget" and not decision.moved


def test_a_scored_gguf_file_is_on_the_board_and_its_page(client, make_run, alice, fake_hub, version):
    from django.urls import reverse

    fake_hub.add_repo("alice-org/tiny-GGUF", repo_type="model", files={
        "README.md": readme({"license": "mit"}), "tiny-Q8_0.gguf": tiny_gguf()})
    submission = services.submission_create(user=alice, ref=ModelRef("alice-org/tiny-GGUF"),
                                            gguf_file="tiny-Q8_0.gguf")
    for run in EvaluationRun.objects.filter(submission=submission):
        make_run(ENTRY, run.split, 200, run=run)
    board = client.get(reverse("api-leaderboard"), {"benchmark": "mobile-mmlu", "split": "validation"}).json()
    row = next(r for r in board["results"] if r["hub_id"] == ENTRY)
    assert row["precision"] == "gguf"
    page = client.get(reverse("model-detail", args=[ENTRY]))
    assert page.status_code == 200 and 'id="model-gguf"' in page.content.decode()
