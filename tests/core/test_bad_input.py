"""Bad input never answers 500 (issue 22, finding 7): JSON nested deeper than any request needs, ids past 64 bits
in paths and query strings, and query strings with thousands of parameters are each a 400 (or a 404 for an id
that names nothing) saying what is wrong, on the API ({code, detail, hint}) and on the pages."""
import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.converters import IntConverter
from django.urls.exceptions import Resolver404
from rest_framework.parsers import JSONParser as DRFJSONParser
from rest_framework.views import APIView

from leaderboard.core.converters import MAX_ID, IdConverter, parse_id
from leaderboard.core.middleware import MAX_QUERY_PARAMETERS, MAX_REPEATS
from leaderboard.core.parsers import MAX_JSON_DEPTH
from tests.results.conftest import make_run  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db
BOARD = "/api/v1/leaderboard/"
PAST = str(MAX_ID + 1)
DIGITS = "9" * 5000  # int() refuses more than 4,300 digits


def _patterns(resolver=None, prefix=""):
    """(route, pattern) of every URL pattern of the site, the admin's included."""
    for entry in (resolver or get_resolver()).url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, route)
        else:
            yield route, entry


def _api_views():
    return {p.callback.view_class for _, p in _patterns() if isinstance(p, URLPattern)
            and issubclass(getattr(p.callback, "view_class", object), APIView)}


@pytest.fixture
def signed_in(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="x" * 12))
    return client


# --- nesting depth ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [5000, 200, MAX_JSON_DEPTH + 1])
def test_a_deeply_nested_json_body_is_a_400(signed_in, depth):
    """5,000 levels made json raise RecursionError (500); 200 parsed, and were walked by everything after."""
    body = "[" * depth + "]" * depth
    response = signed_in.post("/api/v1/submissions/", data=body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    error = response.json()
    assert error["code"] == "JSON_TOO_DEEP" and str(MAX_JSON_DEPTH) in error["detail"] and error["hint"]


def test_a_json_body_of_ordinary_depth_reaches_the_view(signed_in):
    nested = {"hub_id": "org/model", "benchmarks": ["mobile-mmlu"], "extra": [[[{"a": [1]}]]]}
    response = signed_in.post("/api/v1/submissions/", data=nested, content_type="application/json")
    assert response.json().get("code") != "JSON_TOO_DEEP"


def test_every_api_view_parses_json_with_the_bounded_parser():
    views = _api_views()
    assert len(views) >= 15
    plain = [v.__name__ for v in views if any(p is DRFJSONParser for p in v.parser_classes)]
    assert not plain, f"views parsing JSON without a depth bound: {plain}"


# --- ids ----------------------------------------------------------------------------------------------------------

def test_no_route_takes_an_unbounded_integer():
    """Django's <int:...> takes any number of digits, which SQLite cannot bind (OverflowError, a 500)."""
    unbounded = [route for route, p in _patterns() if isinstance(p, URLPattern)
                 and any(isinstance(c, IntConverter) for c in p.pattern.converters.values())]
    assert not unbounded, f"routes with <int:...>: {unbounded}"


def _id_routes():
    return [(route, p) for route, p in _patterns() if isinstance(p, URLPattern) and p.pattern.converters
            and all(isinstance(c, IdConverter) for c in p.pattern.converters.values())]


def test_every_id_route_matches_ids_up_to_64_bits_and_nothing_larger():
    """Paths and pages, the admin's included: a larger number matches no id route, so no lookup sees it."""
    routes = _id_routes()
    names = {p.name for _, p in routes}
    assert {"api-run-lm-eval", "api-submission-detail", "api-mrscore-job", "submission-status",
            "evaluations_evaluationrun_exact"} <= names
    for route, pattern in routes:
        (name,) = pattern.pattern.converters
        path = "/" + route.replace(f"<id:{name}>", "{}")
        assert resolve(path.format(MAX_ID)).kwargs == {name: MAX_ID}
        for beyond in (PAST, DIGITS, "²"):
            try:
                match = resolve(path.format(beyond))
            except Resolver404:
                continue
            assert match.route != route  # another route's (the admin's catch-all redirect), never this one


@pytest.mark.parametrize("path", ["/api/v1/runs/{}/lm-eval.json", "/api/v1/submissions/{}/",
                                  "/api/v1/mrscore/jobs/{}/", "/submissions/{}/"])
def test_an_id_past_64_bits_is_a_404(client, path):
    assert client.get(path.format(PAST)).status_code == 404
    assert client.get(path.format(MAX_ID)).status_code == 404


def test_ids_in_query_strings_are_bounded(client, demo_loaded):
    response = client.get(BOARD, {"version": PAST})
    assert response.status_code == 400 and "version" in response.json()
    response = client.get("/api/v1/mrscore/benchmarks/mobile-mmlu/topics/", {"job": PAST})
    assert response.status_code == 400 and "job" in response.json()


@pytest.mark.parametrize("query", [{"page": "²"}, {"page": DIGITS}, {"page": PAST}])
@pytest.mark.parametrize("page", ["/leaderboard/", "/topics/"])
def test_a_page_number_that_is_no_number_shows_the_first_page(client, make_run, page, query):
    make_run("org/alpha", 300)
    assert client.get(page, query).status_code == 200


@pytest.mark.parametrize("run", ["²", DIGITS, PAST, ""])
@pytest.mark.parametrize("page", ["/models/org/alpha/", "/models/org/alpha/questions/"])
def test_a_run_that_is_no_id_is_a_404(client, make_run, page, run):
    """"²".isdigit() is true and int() refuses 5,000 digits: each was a 500."""
    make_run("org/alpha", 300)
    assert client.get(page, {"run": run}).status_code == 404


def test_parse_id():
    assert [parse_id(t) for t in ("0", "42", str(MAX_ID))] == [0, 42, MAX_ID]
    assert [parse_id(t) for t in (PAST, DIGITS, "²", "-1", "+1", " 1", "1.0", "", "١")] == [None] * 9


# --- parameter counts ---------------------------------------------------------------------------------------------

def _query(*pairs):
    return "&".join(pairs)


@pytest.mark.parametrize("debug", [False, True])  # DEBUG (the embedded default): Django's own 400 page was a 500
@pytest.mark.parametrize("path", [BOARD, "/api/v1/benchmarks/", "/leaderboard/", "/about/"])
def test_thousands_of_parameters_are_a_400_naming_the_problem(client, demo_loaded, settings, path, debug):
    settings.DEBUG = debug
    response = client.get(f"{path}?{_query(*['topic=first-aid'] * 3000)}")
    assert response.status_code == 400
    if path.startswith("/api/"):
        error = response.json()
        assert error["code"] == "TOO_MANY_PARAMETERS" and "3000 parameters" in error["detail"]
        assert str(MAX_QUERY_PARAMETERS) in error["hint"]
    else:
        assert "3000 parameters" in response.content.decode()


def test_one_name_repeated_too_often_is_a_400_naming_it(client, demo_loaded):
    response = client.get(f"{BOARD}?{_query(*['topic=first-aid'] * (MAX_REPEATS + 1))}")
    assert response.status_code == 400
    error = response.json()
    assert error["code"] == "TOO_MANY_PARAMETERS" and "'topic'" in error["detail"]
    assert client.get(f"{BOARD}?{_query(*['topic=first-aid'] * MAX_REPEATS)}").status_code == 200


def test_a_long_comma_list_is_refused_briefly(client, demo_loaded):
    """One ?topic= of 5,000 comma-separated values: a short 400 naming the bound, not every value echoed back."""
    response = client.get(BOARD, {"topic": ",".join(f"t{i}" for i in range(5000))})
    assert response.status_code == 400 and len(response.content) < 1000
    assert "100" in " ".join(response.json()["topic"])
