"""Every refusal of a management command carries a code, as the API's do (`CODE: what is wrong — how to fix it`),
and the exit status says whether the arguments were refused (2) or the work failed (1)."""
import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from leaderboard.benchmarks import services as bench_services
from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.contamination import services as contamination_services
from leaderboard.evaluations import services as run_services
from leaderboard.evaluations.models import EvaluationRun, FailureCode

pytestmark = pytest.mark.django_db


def refusal(*args) -> tuple[str, int]:
    with pytest.raises(CommandError) as refused:
        call_command(*args, verbosity=0)
    message = str(refused.value)
    return message.split(":", 1)[0], refused.value.returncode


@pytest.mark.parametrize("args, code, status", [
    (("evaluate", "--model", "x", "--benchmark", "nothing-here"), "NO_QUESTIONS", 2),
    (("evaluate", "--model", "org/x", "--template", "no-such-template"), "UNKNOWN_VARIANT_OR_TEMPLATE", 2),
    (("evaluate", "--model", "/no/such/folder"), "INVALID_ID", 2),
    (("export_results", "--run", "1", "--split", "test"), "OPTIONS_CONFLICT", 2),
    (("export_results", "--model", "org/nobody"), "NO_PUBLISHED_RESULTS", 2),
    (("rerun", "--run", "1", "--reason", "x", "--user", "nobody"), "NO_STAFF_USER", 2),
    (("submit", "demo-org/tiny", "--user", "nobody"), "NO_USER", 2),
    (("grant_worker_role", "no_such_role_here"), "ROLE_NOT_FOUND", 1),
])
def test_it_handles_bad_arguments_with_a_code(demo_loaded, args, code, status):
    assert refusal(*args) == (code, status)


def test_it_handles_no_matching_runs(demo_loaded):
    User.objects.create_user("ops", "ops@example.com", "pw", is_staff=True)
    assert refusal("rerun", "--run", "987654", "--reason", "x", "--user", "ops") == ("NO_MATCHING_RUNS", 2)


def test_a_failed_run_names_its_failure_code(demo_loaded, tmp_path):
    """A model folder with nothing in it: the run fails to load, and the command says how (its failure code)."""
    code, status = refusal("evaluate", "--model", str(tmp_path), "--no-efficiency")
    run = EvaluationRun.objects.get()
    assert (code, status) == (run.failure_code, 1) and code in FailureCode.values


def test_delta0_and_pinned_version_refusals_have_codes(demo_loaded):
    with pytest.raises(contamination_services.Delta0Refused) as out_of_range:
        contamination_services.delta0_check(-12)
    assert out_of_range.value.code == "DELTA0_OUT_OF_RANGE" and "between -1 and 1" in out_of_range.value.hint
    with pytest.raises(contamination_services.Delta0Refused) as bad_se:
        contamination_services.delta0_check(0.0, 2.0)
    assert bad_se.value.code == "DELTA0_SE_OUT_OF_RANGE"
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run_services.run_create(version=version, split="validation", model_ref="org/model")
    with pytest.raises(bench_services.VersionPinned) as pinned:
        bench_services.split_hash_refresh(version=version, split="validation")
    assert pinned.value.code == "VERSION_PINNED" and pinned.value.status == 409
