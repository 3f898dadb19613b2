"""One shots rule (leaderboard/benchmarks/shots.py: 0..25) on every route that takes a number of shots: the API's
query strings (400 naming the parameter), the pages' (404) and run creation (RunConfigError with its code)."""
import pytest
from django.urls import reverse

from leaderboard.benchmarks.models import BenchmarkVersion
from leaderboard.benchmarks.shots import MAX_SHOTS, SHOTS_OUT_OF_RANGE, shots_problem
from leaderboard.evaluations import services
from leaderboard.evaluations.models import EvaluationRun

pytestmark = pytest.mark.django_db
API = [("api-leaderboard", {}), ("api-results-topics-csv", {"benchmark": "mobile-mmlu"}),
       ("api-contamination", {}), ("api-contamination-history", {})]
PAGES = ["leaderboard", "contamination"]


def test_the_rule():
    assert MAX_SHOTS == 25
    assert not shots_problem(0) and not shots_problem(25) and not shots_problem("25")
    assert all(shots_problem(v) for v in (26, -1, "26", "-1", "x", "", "٣", True, 2.0, None))


@pytest.mark.parametrize("name,params", API)
@pytest.mark.parametrize("shots,status", [(25, 200), (26, 400), (-1, 400)])
def test_the_api(client, demo_loaded, name, params, shots, status):
    response = client.get(reverse(name), {**params, "shots": shots})
    assert response.status_code == status, response.content
    if status == 400:  # JSON {"shots": [...]}, or for the CSV endpoint one "detail" cell naming it
        assert "shots" in (response.json() if response["Content-Type"].startswith("application/json")
                           else response.content.decode())


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("shots,status", [(25, 200), (26, 404), (-1, 404)])
def test_the_pages(client, demo_loaded, name, shots, status):
    assert client.get(reverse(name), {"shots": shots}).status_code == status


@pytest.mark.parametrize("shots", [26, -1])
def test_run_creation_refuses_out_of_range(demo_loaded, shots):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    with pytest.raises(services.RunConfigError) as refused:
        services.run_create(version=version, split="validation", model_ref="demo-org/tiny", shots=shots)
    assert refused.value.code == SHOTS_OUT_OF_RANGE and EvaluationRun.objects.count() == 0


def test_run_creation_accepts_the_most(demo_loaded):
    version = BenchmarkVersion.objects.get(benchmark__slug="mobile-mmlu")
    run = services.run_create(version=version, split="validation", model_ref="demo-org/tiny", shots=MAX_SHOTS)
    assert run.shots == MAX_SHOTS
