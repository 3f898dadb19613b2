"""Account mail in tests. The site queues it on commit for the default worker (frontend.accounts.mail_later), and a
test's transaction never commits: so for every test, the mail task runs at once in the test's process (Celery's
Task.apply runs the task's own code, without a broker), and mail.outbox shows what the worker would send.

A test that asks for `account_mail_queued` keeps the real path instead: on commit, through the Redis broker's default
queue, to a worker (tests/frontend/test_account_mail.py)."""
import pytest


@pytest.fixture
def account_mail_queued():
    """Account mail goes through the broker, as deployed (no task runs in the test's process)."""


@pytest.fixture(autouse=True)
def _account_mail_at_once(request, monkeypatch):
    if "account_mail_queued" in request.fixturenames:
        return
    from frontend import accounts, tasks

    monkeypatch.setattr(accounts, "mail_later", lambda kind, user_ids: tasks.send_mail.apply(
        args=[kind, list(user_ids)], throw=True))
