from celery import shared_task


@shared_task(name="core.ping")
def ping():
    """Round-trip check that a worker consumes the broker (used by the README's startup and tests)."""
    return "pong"
