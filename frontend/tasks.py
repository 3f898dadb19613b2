from celery import shared_task

from . import accounts


@shared_task(name="accounts.expire_unconfirmed")
def expire_unconfirmed():
    """Beat's hourly removal of unconfirmed accounts past SIGNUP_CONFIRM_DAYS (frontend/accounts.py)."""
    return accounts.unconfirmed_expire()
