"""The Ladder's release budget that sock puppets do not multiply (issue 38, finding 2): a publication spends the
submitting account's budget and its model's namespace's, whoever submits; and a GGUF file of a model and quantization
already published (another sha256: a byte changed, another path, another uploader) is judged against it, not
published as a new model's first figure (through the real scoring path)."""
import pytest
from django.contrib.auth.models import User

from leaderboard.contamination.models import LadderDecision
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.submissions.models import ModelEntry, Submission

pytestmark = pytest.mark.django_db


def _decision(run):
    return LadderDecision.objects.get(candidate_run_id=run.pk)


def test_new_accounts_do_not_multiply_a_namespaces_budget(make_run, settings):
    settings.LADDER_RELEASES_PER_WINDOW = 2
    alice = User.objects.create_user("alice")
    make_run("crafted/one", "test", 200, submitter=alice)
    make_run("crafted/two", "test", 210, submitter=alice)
    puppets = [User.objects.create_user(f"puppet{i}") for i in range(3)]
    for i, puppet in enumerate(puppets):  # fresh accounts, crafted models of the same namespace
        decision = _decision(make_run(f"crafted/m{i}", "test", 220 + i, submitter=puppet))
        assert (decision.reason, decision.moved, decision.namespace) == ("budget", False, "crafted")
    assert _decision(make_run("elsewhere/model", "test", 200, submitter=puppets[0])).reason == "first"  # its own


def _gguf_run(version, hub_id, *, submitter, base, quantization="Q4_K_M", sha="a"):
    path = hub_id.split("/", 2)[2]
    entry, _ = ModelEntry.objects.get_or_create(hub_id=hub_id, defaults={
        "namespace": hub_id.split("/")[0].lower(), "params": 1_000_000_000, "gguf_file": path,
        "quantization": quantization})
    submission = Submission.objects.create(
        submitter=submitter, model=entry, revision_sha="b" * 40, precision="gguf", gguf_file=path,
        gguf_sha256=sha * 64, gguf_facts={"base_model": base, "quantization": quantization}, benchmarks=["mobile-mmlu"])
    return EvaluationRun.objects.create(
        benchmark_version=version, split="test", model_ref=hub_id, model_revision="b" * 40, precision="gguf",
        variants=["original"], status=RunStatus.SCORING, dataset_hash=version.split_hashes["test"],
        submission=submission)


def test_a_file_a_byte_away_from_a_published_one_is_judged_against_it(make_run, version):
    alice, bob = User.objects.create_user("alice"), User.objects.create_user("bob")
    first = make_run("org/m-GGUF/m-Q4_K_M.gguf", "test", 240,
                     run=_gguf_run(version, "org/m-GGUF/m-Q4_K_M.gguf", submitter=alice, base="Org/M"))
    assert (_decision(first).reason, _decision(first).family) == ("first", "org/m@q4_k_m")
    # the same file with a byte changed, under another path and another namespace, by another account
    copy = make_run("copier/x-GGUF/x.gguf", "test", 240,
                    run=_gguf_run(version, "copier/x-GGUF/x.gguf", submitter=bob, base="org/m", sha="c"))
    assert (_decision(copy).reason, _decision(copy).moved) == ("no-gain", False)
    other_quant = make_run("org/m-GGUF/m-Q8_0.gguf", "test", 250, run=_gguf_run(
        version, "org/m-GGUF/m-Q8_0.gguf", submitter=alice, base="org/m", quantization="Q8_0", sha="d"))
    assert _decision(other_quant).reason == "first"  # another quantization is another model
    unnamed = make_run("solo/y-GGUF/y-Q4_K_M.gguf", "test", 200, run=_gguf_run(
        version, "solo/y-GGUF/y-Q4_K_M.gguf", submitter=bob, base=None, sha="e"))
    assert _decision(unnamed).family == "solo/y-gguf@q4_k_m"  # no base named: the repository and quantization
