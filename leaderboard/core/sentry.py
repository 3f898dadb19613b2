"""Optional error reporting to Sentry. The one place that imports sentry_sdk.

sentry-sdk is not in requirements.txt: install it where SENTRY_DSN is set
(`pip install "sentry-sdk>=2.20"`; the docker images take it through the SENTRY build arg).
Called from the settings module, so it imports nothing from Django but the exception.
"""
from django.core.exceptions import ImproperlyConfigured


def sentry_init(*, dsn: str, environment: str, release: str = "", traces_sample_rate: str = "0") -> bool:
    """Start Sentry with the Django and Celery integrations; False (and nothing done) without a DSN."""
    if not dsn:
        return False
    try:
        sample_rate = float(traces_sample_rate)
    except ValueError:
        sample_rate = -1.0
    if not 0.0 <= sample_rate <= 1.0:
        raise ImproperlyConfigured(f"SENTRY_TRACES_SAMPLE_RATE={traces_sample_rate!r} must be a number from 0 to 1.")
    try:
        import sentry_sdk
        from sentry_sdk.integrations.celery import CeleryIntegration
        from sentry_sdk.integrations.django import DjangoIntegration
    except ImportError:
        raise ImproperlyConfigured(
            "SENTRY_DSN is set but sentry-sdk is not installed: `pip install \"sentry-sdk>=2.20\"` "
            "(or unset SENTRY_DSN)."
        ) from None
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release or None,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        # No user ids, IPs, cookies, request bodies or frame locals: a form or an admin page may carry
        # tokens, and the trusted worker's locals can hold the sealed answer key, which must never
        # reach a third party.
        send_default_pii=False,
        max_request_body_size="never",
        include_local_variables=False,
        traces_sample_rate=sample_rate,
    )
    return True
