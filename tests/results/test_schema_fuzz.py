"""schemathesis against /api/schema/: every operation, a bounded number of generated requests each,
on a database with the demo benchmark and results; no 5xx and every response as the schema says."""
import itertools

import pytest
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, Phase, given  # noqa: E402
from hypothesis import settings as hypothesis_settings  # noqa: E402
from hypothesis.errors import Unsatisfiable  # noqa: E402
from leaderboard.core.api_tokens import token_create  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.generation import GenerationMode  # noqa: E402
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,  # noqa: E402
                                               status_code_conformance)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
EXAMPLES = 40  # per operation and mode (valid, invalid requests)
PARTS = 4  # the operations in four tests, so that parallel test processes share them (one took over three minutes)
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@pytest.fixture
def fuzz_data(make_run, django_user_model, monkeypatch, fake_hub):  # submissions see a local fake hub
    make_run("org/alpha", 300, variants=("original", "R1"), extra_correct={"R1": 250})
    make_run("org/alpha", 301, split="test")
    make_run("=cmd|' /C calc'!A0", 200)
    user = django_user_model.objects.create_user("fuzzer", password="x" * 12)
    # Throttles are a second layer tested elsewhere; here they would only turn requests into 429s.
    monkeypatch.setattr("rest_framework.throttling.SimpleRateThrottle.allow_request", lambda *a: True)
    return token_create(user=user)


@pytest.fixture
def wsgi_app():
    """The WSGI app, without closing the test's database connection at each request's end (as Django's
    test client does)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.mark.parametrize("part", range(PARTS))
def test_the_api_matches_its_schema(fuzz_data, wsgi_app, part):
    schema = schemathesis.openapi.from_wsgi("/api/schema/", wsgi_app)
    failures = {}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    operations = sorted(operations, key=lambda operation: operation.label)[part::PARTS]
    for operation, mode in itertools.product(operations, [GenerationMode.POSITIVE, GenerationMode.NEGATIVE]):
        @given(case=operation.as_strategy(generation_mode=mode))
        @hypothesis_settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
                             phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
        def check(case):
            response = case.call(headers={"Authorization": f"Token {fuzz_data}"})
            case.validate_response(response, checks=CHECKS)

        try:
            check()
        except Unsatisfiable:
            assert mode is GenerationMode.NEGATIVE, operation.label  # no parameter to make invalid
        except BaseException as exc:  # collect every operation's failures, not just the first one's
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            failures[f"{operation.label} ({mode.value} data)"] = f"{type(exc).__name__}: {str(exc)[:2000]}"
    assert not failures, "\n\n".join(f"{label}\n{text}" for label, text in failures.items())
