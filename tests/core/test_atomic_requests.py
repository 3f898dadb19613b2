"""A request stores all or nothing (issue 31, finding 2's class): whatever a view wrote is rolled back when the answer
is a 4xx or 5xx, however the error came: a refusal raised after a write, a body that fails to serialise or render
after the write, or a view that returns its own 400 (core.middleware.AtomicRequestMiddleware)."""
import csv
import io

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.urls import path, reverse
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from leaderboard.core.csv_http import streaming_csv
from leaderboard.core.errors import DomainError
from leaderboard.submissions import services
from leaderboard.submissions.models import Submission
from leaderboard.submissions.serializers import SubmissionOutputSerializer

pytestmark = pytest.mark.django_db


def _writes_then_answers(status):
    def view(request):
        User.objects.create_user(f"written-{status}", f"w{status}@example.com", "pw")
        return HttpResponse("answered", status=status)
    return view


def _users_csv(request):
    """A download whose rows are read lazily, through a server-side cursor, as the body is streamed."""
    return streaming_csv(["username"], User.objects.order_by("username").values("username").iterator(chunk_size=2),
                         "users.csv")


urlpatterns = [path(f"writes-then-{status}/", _writes_then_answers(status)) for status in (200, 302, 400, 409, 503)]
urlpatterns.append(path("users.csv", _users_csv))


@pytest.fixture
def author(demo_loaded):
    return User.objects.create_user("author", "author@example.com", "pw")


@pytest.fixture
def api(client, author, hub_model):
    client.force_login(author)
    client.raise_request_exception = False  # a 500 is an answer here, as it is to a real client

    def post():
        return client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny"}, content_type="application/json")
    return post


def _fails(exc):
    def to_representation(self, instance):
        raise exc
    return to_representation


@pytest.mark.parametrize("exc, status", [(serializers.ValidationError("cannot show this value"), 400),
                                         (OverflowError("date value out of range"), 500)])
def test_an_api_post_whose_answer_fails_to_serialise_after_the_write_stores_nothing(api, snapshot, monkeypatch,
                                                                                      exc, status):
    before = snapshot()
    monkeypatch.setattr(SubmissionOutputSerializer, "to_representation", _fails(exc))
    assert api().status_code == status
    assert snapshot() == before and not Submission.objects.exists()
    monkeypatch.undo()
    assert api().status_code == 201 and Submission.objects.count() == 1  # the same request, answered: stored


def test_an_api_post_whose_answer_fails_to_render_stores_nothing(api, snapshot, monkeypatch):
    """Rendering (DRF's JSON) happens after the view returns, outside Django's ATOMIC_REQUESTS block."""
    before = snapshot()
    monkeypatch.setattr(JSONRenderer, "render", _fails(ValueError("Out of range float values are not JSON compliant")))
    assert api().status_code == 500 and snapshot() == before


def test_a_refusal_raised_after_the_write_stores_nothing(api, snapshot, monkeypatch):
    real = services.submission_create

    def creates_then_refuses(**kwargs):
        real(**kwargs)
        raise DomainError("QUOTA_EXCEEDED", "refused after the write", "", 429)

    before = snapshot()
    monkeypatch.setattr(services, "submission_create", creates_then_refuses)
    response = api()
    assert (response.status_code, response.json()["code"]) == (429, "QUOTA_EXCEEDED")
    assert snapshot() == before


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("status", [400, 409, 503])
def test_a_view_that_returns_an_error_after_writing_stores_nothing(client, snapshot, status):
    before = snapshot()
    assert client.post(f"/writes-then-{status}/").status_code == status
    assert snapshot() == before


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("status", [200, 302])
def test_a_view_that_succeeds_keeps_what_it_wrote(client, status):
    assert client.post(f"/writes-then-{status}/").status_code == status
    assert User.objects.filter(username=f"written-{status}").exists()


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_streamed_csv_is_read_after_the_commit(client):
    """Real transactions (no test transaction around the request): the body is read after the view has returned, in
    autocommit, through a server-side cursor, and holds every row."""
    for name in ("ann", "bob", "cy", "dee", "eve"):
        User.objects.create_user(name, f"{name}@example.com", "pw")
    response = client.get("/users.csv")
    assert response.status_code == 200 and response.streaming
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows == [["username"], ["ann"], ["bob"], ["cy"], ["dee"], ["eve"]]
