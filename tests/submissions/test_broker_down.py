"""A submission is accepted or refused whole: with the broker down when it commits, it is stored with its runs
QUEUED (the database is the source of truth), the API answers 201, and the reconciler publishes the runs later."""
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from leaderboard.evaluations import lifecycle
from leaderboard.evaluations.models import EvaluationRun, RunStatus
from leaderboard.submissions.models import Submission

# Transactional: on_commit callbacks (where runs are published) run when the request's transaction commits.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

CLOSED_PORT = "redis://127.0.0.1:1/0"  # nothing listens there: connection refused


@contextmanager
def broker_down():
    """Point the Celery app's publishing connection at a closed port (its connection pools are rebuilt from
    broker_write_url, read when they are first made), and back afterwards."""
    from leaderboard.celery import app

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app.conf, "broker_write_url", CLOSED_PORT)
        mp.setattr(app, "_pool", None)
        mp.setattr(app.amqp, "_producer_pool", None)
        yield
    app._pool = None  # pools made while the broker was "down" hold connections to the closed port
    app.amqp._producer_pool = None


@pytest.fixture
def api(demo_loaded, hub_model):
    author = User.objects.create_user("author", "author@example.com", "pw")
    client = Client(raise_request_exception=False)  # a server error is a 500 response, as in production
    client.force_login(author)

    def post(**data):
        return client.post(reverse("api-submissions"), {"hub_id": "demo-org/tiny", **data},
                           content_type="application/json")
    return post


def test_broker_down_at_commit_stores_the_queued_submission_answers_201_and_the_reconciler_publishes_it(
        api, redis_broker, settings, caplog):
    import redis

    with broker_down():
        response = api()
        assert response.status_code == 201, response.content
        body = response.json()
        assert body["status"] == "queued" and {r["status"] for r in body["runs"]} == {"queued"}
        submission = Submission.objects.get()
        assert submission.pk == body["id"]
        runs = EvaluationRun.objects.filter(submission=submission)
        assert runs.count() == 2 and set(runs.values_list("status", flat=True)) == {RunStatus.QUEUED}
        assert all(runs.values_list("enqueued_at", flat=True))
        assert "reconciler will publish it" in caplog.text

        # The retry is a duplicate of the accepted submission: 409 is the right answer now.
        retry = api()
        assert retry.status_code == 409 and retry.json()["existing_submission"] == body["id"]
        assert Submission.objects.count() == 1

    # The broker is back: the reconciler publishes the runs whose message never left.
    broker = redis.Redis.from_url(redis_broker)
    assert broker.llen("gpu") == 0
    earlier = timezone.now() - timedelta(seconds=settings.RECONCILE_AFTER_SECONDS + 60)
    EvaluationRun.objects.update(enqueued_at=earlier, published_at=earlier)  # the reconciler's grace has passed
    assert lifecycle.reconcile() == 2
    assert broker.llen("gpu") == 2
