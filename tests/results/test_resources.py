"""Resources and formats of the API (issue 22, finding 8): a page has a maximum size, a parameter an operation does
not declare is refused (so it cannot make a new cache entry), the contamination API is cached like the results API,
and every list (and every detail that offers CSV) answers `?format=csv` with flat rows."""
import ast
import csv
import io
import json
import uuid

import pytest
from django.core.management import call_command

from leaderboard.contamination.apis import BOARD_COLUMNS
from leaderboard.core.api import MAX_PAGE_SIZE
from leaderboard.evaluations.models import EvaluationRun
from leaderboard.results import cache as results_cache
from leaderboard.submissions.models import ModelEntry, Submission
from tests.mrscore.conftest import judge_server  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db
BOARD = "/api/v1/leaderboard/"
CONTAMINATION = "/api/v1/contamination/"
FILL = {"{slug}": "mobile-mmlu", "{hub_id}": "org/alpha"}


@pytest.fixture
def schema(client):
    return client.get("/api/schema/", {"format": "json"}).json()


def _get_operations(schema, *, filled_only=True):
    """path (parameters filled) -> its GET operation; paths with ids of objects left out when filled_only."""
    out = {}
    for path, operations in schema["paths"].items():
        if "get" not in operations:
            continue
        for placeholder, value in FILL.items():
            path = path.replace(placeholder, value)
        if "{" in path:
            if filled_only:
                continue
            path = path.replace(path[path.index("{"):path.index("}") + 1], "1")
        out[path] = operations["get"]
    return out


def _success(schema, operation):
    content = operation["responses"]["200"].get("content", {})
    body = content.get("application/json", {}).get("schema", {})
    while "$ref" in body:
        body = schema["components"]["schemas"][body["$ref"].rsplit("/", 1)[1]]
    return body, content


def _is_list(schema, operation) -> bool:
    body, _ = _success(schema, operation)
    return body.get("type") == "array" or body.get("properties", {}).get("results", {}).get("type") == "array"


def _offers_csv(schema, operation) -> bool:
    return "text/csv" in _success(schema, operation)[1]


def _body(response):
    return b"".join(response.streaming_content) if response.streaming else response.content


def _looks_like_a_repr(cell: str) -> bool:
    """A Python dict/list (or JSON object/array) written into one cell."""
    text = cell.lstrip("'").strip()
    if text[:1] not in "{[(":
        return False
    for parse in (ast.literal_eval, json.loads):
        try:
            return isinstance(parse(text), (dict, list, tuple))
        except (ValueError, SyntaxError):
            continue
    return False


@pytest.fixture
def world(client, make_run, django_user_model, judge_server):
    """A board with a Δ point, a finished MRScore job, and a signed-in user with a submission and its run."""
    make_run("org/alpha", 300)
    make_run("org/alpha", 301, split="test")
    judge_server.reply = lambda question: str(1 + len(question) % 10)
    call_command("mrscore", "--benchmark", "mobile-mmlu", "--judge", "judge-x", "--endpoint", judge_server.endpoint,
                 "--revision", "r1", "--concurrency", "16", "--chunk-size", "256", "--verbosity", "0",
                 stdout=io.StringIO(), stderr=io.StringIO())
    user = django_user_model.objects.create_user("someone", password="x" * 12)
    submission = Submission.objects.create(submitter=user, model=ModelEntry.objects.get(hub_id="org/alpha"),
                                           revision_sha="a" * 40, precision="bfloat16", benchmarks=["mobile-mmlu"])
    EvaluationRun.objects.filter(model_ref="org/alpha").update(submission=submission)
    client.force_login(user)
    return client


# --- (e) + (d): CSV of every list, and of every detail that offers it --------------------------------------------

def test_every_list_and_csv_endpoint_gives_flat_csv_rows(world, schema):
    operations = _get_operations(schema)
    lists = {path for path, op in operations.items() if _is_list(schema, op)}
    assert {"/api/v1/benchmarks/", "/api/v1/mrscore/jobs/", "/api/v1/submissions/", BOARD, CONTAMINATION,
            "/api/v1/contamination/history/", "/api/v1/models/org/alpha/history/",
            "/api/v1/mrscore/distribution/"} <= lists
    assert not [path for path in lists if not _offers_csv(schema, operations[path])], "lists without CSV"
    walked = {path for path, op in operations.items() if path in lists or _offers_csv(schema, op)}
    assert "/api/v1/contamination/models/org/alpha/" in walked and len(walked) >= 14
    with_rows = set()
    for path in sorted(walked):
        required = {p["name"]: "mobile-mmlu" for p in operations[path].get("parameters", [])
                    if p["in"] == "query" and p.get("required")}  # results/topics.csv: ?benchmark=
        response = world.get(path, {"format": "csv", **required})
        assert response.status_code == 200, (path, _body(response)[:300])
        assert response["Content-Type"].startswith("text/csv"), path
        header, *rows = list(csv.reader(io.StringIO(_body(response).decode())))
        assert header and len(set(header)) == len(header), path
        assert not [c for c in header if any(ch in c for ch in "{}[]'\"")], (path, header)
        bad = [cell for row in rows for cell in row if _looks_like_a_repr(cell)]
        assert not bad, (path, bad[:3])
        assert all(len(row) == len(header) for row in rows), path
        if rows:
            with_rows.add(path)
    assert {"/api/v1/benchmarks/", "/api/v1/mrscore/jobs/", "/api/v1/submissions/", CONTAMINATION,
            "/api/v1/contamination/models/org/alpha/", BOARD} <= with_rows


def test_a_models_contamination_csv_is_its_rows_in_the_boards_columns(client, make_run):
    make_run("org/alpha", 300)
    make_run("org/alpha", 301, split="test")
    response = client.get("/api/v1/contamination/models/org/alpha/", {"format": "csv"})
    header, *rows = list(csv.reader(io.StringIO(_body(response).decode())))
    assert header == BOARD_COLUMNS and len(rows) == 1
    row = dict(zip(header, rows[0]))
    board = dict(zip(*list(csv.reader(io.StringIO(_body(client.get(CONTAMINATION, {"format": "csv"})).decode())))))
    assert row["hub_id"] == "org/alpha" and row["delta"] and row == board


# --- (b): parameters an operation does not declare ---------------------------------------------------------------

def test_every_operation_refuses_a_parameter_it_does_not_declare(world, schema):
    for path, operation in _get_operations(schema, filled_only=False).items():
        response = world.get(path, {"zz": "1"}, HTTP_ACCEPT="application/json")
        assert response.status_code == 400, (path, response.status_code)
        error = response.json()
        assert error["code"] == "UNKNOWN_PARAMETER" and "'zz'" in error["detail"], path
        documented = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert documented <= set(error["accepted"]) and set(error["accepted"]) - documented <= {"format"}, path
        assert all(name in error["hint"] for name in error["accepted"]), path


def test_a_made_up_parameter_neither_reaches_the_database_nor_fills_the_cache(client, make_run,
                                                                               django_assert_num_queries):
    make_run("org/alpha", 300)
    assert client.get(BOARD).status_code == 200
    entries = len(results_cache._local.entries)
    with django_assert_num_queries(0):
        for _ in range(5):
            response = client.get(BOARD, {"zz": uuid.uuid4().hex, "sort": "name"})
            assert response.status_code == 400 and "sort" in response.json()["accepted"]
    assert len(results_cache._local.entries) == entries


def test_the_declared_parameters_still_work(client, make_run):
    make_run("org/alpha", 300)
    response = client.get(BOARD, {"format": "json", "limit": 1, "offset": 0, "sort": "name", "topic": "first-aid"})
    assert response.status_code == 200 and response.json()["count"] == 1


# --- (a): the page size -------------------------------------------------------------------------------------------

def test_a_page_is_at_most_the_maximum(client, make_run, schema):
    make_run("org/alpha", 300)
    make_run("org/beta", 200)
    page = client.get(BOARD, {"limit": 1_000_000_000, "offset": 1}).json()
    assert f"limit={MAX_PAGE_SIZE}" in page["previous"] and "1000000000" not in page["previous"]
    limits = [p["schema"] for op in _get_operations(schema, filled_only=False).values()
              for p in op.get("parameters", []) if p["name"] == "limit"]
    assert len(limits) >= 5 and all(s.get("maximum") == MAX_PAGE_SIZE for s in limits)


# --- (c): the contamination API is cached -------------------------------------------------------------------------

@pytest.mark.parametrize("path", [CONTAMINATION, "/api/v1/contamination/history/",
                                  "/api/v1/contamination/models/org/alpha/"])
def test_the_contamination_api_is_cached_until_results_change(client, make_run, django_assert_num_queries, path):
    make_run("org/alpha", 300)
    make_run("org/alpha", 301, split="test")
    first = client.get(path)
    assert first.status_code == 200 and first["ETag"]
    with django_assert_num_queries(0):  # Fisher, Holm and the board's queries once per results generation
        again = client.get(path)
        not_modified = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.content == first.content and not_modified.status_code == 304
    make_run("org/alpha", 320, revision="b" * 40)  # a new validation run: a new generation
    make_run("org/alpha", 321, revision="b" * 40, split="test")
    updating = client.get(path)  # the previous answer at once, said to be updating; recomputed after it
    assert updating["X-Board-Updating"] == "1" and updating["ETag"] == first["ETag"]
    after = client.get(path)
    assert after["ETag"] != first["ETag"] and after.content != first.content
