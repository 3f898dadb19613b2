from celery import shared_task

from . import account_mail, accounts


@shared_task(name="accounts.expire_unconfirmed")
def expire_unconfirmed():
    """Beat's hourly removal of unconfirmed accounts past SIGNUP_CONFIRM_DAYS (frontend/accounts.py)."""
    return accounts.unconfirmed_expire()


@shared_task(name=accounts.MAIL_TASK, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_mail(kind: str, user_ids: list[int]) -> int:
    """Account mail, on the default queue (the trusted worker: it makes the links' tokens with the site secret), so
    a request never waits for the mail server (frontend/account_mail.py). A mail server that fails (smtplib's errors
    are OSErrors) is tried again, with back-off."""
    return account_mail.deliver(kind, user_ids)
