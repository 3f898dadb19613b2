"""A NUL character (%00) in a URL or a form field is a clear 400 (or a form error), never a 500 from PostgreSQL,
which refuses NUL in text. The path and the query string are checked once, by NulByteMiddleware."""
import pytest
from django.contrib.auth.models import User
from django.test import RequestFactory

from leaderboard.core.middleware import NulByteMiddleware

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(client):
    client.raise_request_exception = False  # a 500 is an answer to assert on, not an exception in the test
    return client


@pytest.mark.parametrize("url,where", [
    ("/api/v1/models/a%00b/", "the URL path"),
    ("/models/a%00b/", "the URL path"),
    ("/compare/?models=a%00b", "the query parameter 'models'"),
    ("/contamination/?benchmark=%00", "the query parameter 'benchmark'"),
    ("/api/v1/leaderboard/?benchmark=mobile-mmlu&split=%00", "the query parameter 'split'"),
    ("/leaderboard/?%00=1", "a query parameter name"),
])
def test_it_refuses_nul_in_the_url(client, demo_loaded, url, where):
    response = client.get(url)
    assert response.status_code == 400, response.content[:300]
    text = response.content.decode()
    assert where in text and "NUL character (%00)" in text
    if url.startswith("/api/"):
        assert response.json()["code"] == "NUL_CHARACTER"


@pytest.mark.parametrize("url", ["/compare/?models=a%2500b", "/contamination/?benchmark=mobile-mmlu",
                                 "/api/v1/models/no-such%2Fmodel/"])
def test_it_leaves_other_urls_alone(client, demo_loaded, url):
    assert client.get(url).status_code in (200, 404)  # "%2500" is the text "%00", not a NUL


def test_it_checks_the_raw_query_string():
    seen = []
    middleware = NulByteMiddleware(lambda request: seen.append(request) or "passed")
    factory = RequestFactory()
    request = factory.get("/compare/")
    request.META["QUERY_STRING"] = "models=a\x00b"  # undecoded NUL, as a server might pass it
    assert middleware(request).status_code == 400 and seen == []
    assert middleware(factory.get("/compare/", {"models": "org/a"})) == "passed"


def test_it_refuses_nul_in_a_form_field(client, demo_loaded, snapshot):
    client.force_login(User.objects.create_user("nul", "n@example.com", "pw"))
    before = snapshot()
    response = client.post("/submit/", {"hub_id": "org/a\x00b", "revision": "main", "precision": "bfloat16",
                                        "model_type": "pretrained", "benchmarks": ["mobile-mmlu"]})
    assert response.status_code == 200  # the form again, with the error next to the field
    errors = response.context["form"].errors.as_data()
    assert list(errors) == ["hub_id"] and [e.code for e in errors["hub_id"]] == ["null_characters_not_allowed"]
    assert snapshot() == before


def test_it_refuses_nul_in_an_api_field(client, demo_loaded, snapshot):
    client.force_login(User.objects.create_user("nul", "n@example.com", "pw"))
    before = snapshot()
    response = client.post("/api/v1/submissions/", {"hub_id": "org/a\x00b"}, content_type="application/json")
    assert response.status_code == 400 and list(response.json()) == ["hub_id"]  # DRF's field error, no code
    assert snapshot() == before


def test_the_api_schema_documents_the_400(client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert "400" in operation["responses"], f"{method.upper()} {path}"
