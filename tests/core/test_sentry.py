"""Sentry starts only with a DSN, with the Django and Celery integrations and no personal data.

The suite runs without sentry-sdk installed (a stand-in module records the call)."""
import sys
import types

import pytest
from django.core.exceptions import ImproperlyConfigured

from leaderboard.core.sentry import sentry_init


@pytest.fixture
def fake_sentry(monkeypatch):
    """A stand-in sentry_sdk recording init() (the real package is optional and not installed for tests)."""
    calls = []
    sdk = types.ModuleType("sentry_sdk")
    sdk.init = lambda **kwargs: calls.append(kwargs)
    integrations = types.ModuleType("sentry_sdk.integrations")
    modules = {"sentry_sdk": sdk, "sentry_sdk.integrations": integrations}
    for name, cls in (("celery", "CeleryIntegration"), ("django", "DjangoIntegration")):
        module = types.ModuleType(f"sentry_sdk.integrations.{name}")
        setattr(module, cls, type(cls, (), {}))
        modules[f"sentry_sdk.integrations.{name}"] = module
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    return calls


def test_it_works(fake_sentry):
    assert sentry_init(dsn="https://key@sentry.example/1", environment="staging", release="abc",
                       traces_sample_rate="0.1") is True
    (kwargs,) = fake_sentry
    assert kwargs["dsn"] == "https://key@sentry.example/1" and kwargs["environment"] == "staging"
    assert kwargs["send_default_pii"] is False and kwargs["include_local_variables"] is False
    assert kwargs["max_request_body_size"] == "never" and kwargs["traces_sample_rate"] == 0.1
    assert sorted(type(i).__name__ for i in kwargs["integrations"]) == ["CeleryIntegration", "DjangoIntegration"]


def test_it_does_nothing_without_a_dsn(fake_sentry):
    assert sentry_init(dsn="", environment="production") is False and fake_sentry == []


def test_it_handles_sentry_sdk_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentry_sdk", None)  # import fails as if not installed
    with pytest.raises(ImproperlyConfigured, match="sentry-sdk is not installed"):
        sentry_init(dsn="https://key@sentry.example/1", environment="production")


def test_it_handles_a_bad_sample_rate(fake_sentry):
    with pytest.raises(ImproperlyConfigured, match="SENTRY_TRACES_SAMPLE_RATE='lots'"):
        sentry_init(dsn="https://key@sentry.example/1", environment="production", traces_sample_rate="lots")
