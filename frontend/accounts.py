"""Sign-up with e-mail confirmation (Django's auth models). A new account stays inactive until its owner opens the link
mailed to them; password reset is Django's own view with our forms (frontend/account_urls.py, frontend/forms.py).
Mail is sent by the default worker, never in the request (mail_later, frontend/account_mail.py).

The rules of OWASP ASVS against enumeration: sign-up does the same whether or not its address has an account (an
account is stored, holding its user name until it expires) and only the mail differs: a confirmation link, or a notice
to the address's owner. An unconfirmed account never blocks the owner of its address: a new sign-up replaces it, a
password reset reaches it (and confirms it), and it expires after SIGNUP_CONFIRM_DAYS, freeing its name and address.
"""
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.encoding import force_str
from django.utils.http import base36_to_int, urlsafe_base64_decode

from leaderboard.core.api_tokens import token_revoke_all
from leaderboard.submissions.models import NamespaceGrant, Submission
from leaderboard.submissions.selectors import name_holders

MAIL_TASK = "accounts.send_mail"  # frontend/tasks.py; on the default queue, the trusted worker's
SIGNUP, CONFIRM, RESET = "signup", "confirm", "reset"  # the mails, written by frontend/account_mail.py


class ConfirmationTokens(PasswordResetTokenGenerator):
    """Its own salt, so a confirmation link is never a password-reset link; is_active in the hash, so it works once;
    valid SIGNUP_CONFIRM_DAYS, as long as the unconfirmed account lives (Django's own check uses the reset links'
    PASSWORD_RESET_TIMEOUT)."""

    key_salt = "frontend.accounts.ConfirmationTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"

    def check_token(self, user, token):
        try:
            timestamp = base36_to_int(token.split("-")[0])
        except (AttributeError, ValueError):
            return False
        if self._num_seconds(self._now()) - timestamp > settings.SIGNUP_CONFIRM_DAYS * 24 * 3600:
            return False
        return any(constant_time_compare(self._make_token_with_timestamp(user, timestamp, secret), token)
                   for secret in [self.secret, *self.secret_fallbacks])


confirmation_tokens = ConfirmationTokens()


def _pending():
    """Accounts nobody has confirmed: inactive and never signed in. Staff, and accounts with submissions or an admin's
    namespace grant, are an admin's doing (a deactivated account) and never count."""
    return get_user_model().objects.filter(
        is_active=False, last_login__isnull=True, is_staff=False, is_superuser=False).exclude(
        Exists(Submission.objects.filter(submitter=OuterRef("pk")))).exclude(
        Exists(NamespaceGrant.objects.filter(user=OuterRef("pk"))))


def _confirm_cutoff():
    return timezone.now() - timedelta(days=settings.SIGNUP_CONFIRM_DAYS)


def unconfirmed():
    """Unconfirmed accounts whose confirmation link still works."""
    return _pending().filter(date_joined__gte=_confirm_cutoff())


def unconfirmed_expire() -> int:
    """Deletes unconfirmed accounts past SIGNUP_CONFIRM_DAYS (their links no longer work), freeing their user names and
    addresses; beat runs it (frontend/tasks.py) and every sign-up does too, first."""
    _, deleted = _pending().filter(date_joined__lt=_confirm_cutoff()).delete()
    return deleted.get(get_user_model()._meta.label, 0)  # accounts, not the rows that go with them


def username_taken(username: str, *, replacing_email: str | None = None) -> bool:
    """Whether an account holds the user name in its canonical form (submissions.identity: a user name owns the
    namespace of that name). An expired unconfirmed account holds nothing, nor does an unconfirmed one that a sign-up
    with its own address replaces."""
    holders = name_holders(username).exclude(pk__in=_pending().filter(date_joined__lt=_confirm_cutoff()).values("pk"))
    if replacing_email:
        holders = holders.exclude(pk__in=unconfirmed().filter(email__iexact=replacing_email).values("pk"))
    return holders.exists()


def mail_later(kind: str, user_ids: list[int]):
    """Queues one mail task when the transaction commits, whether or not there is anyone to mail, so that a request's
    time says nothing about an address. The message carries ids only: the worker makes the links and tokens, from
    SITE_URL and the site secret (a broker message is no place for a reset link, and no message can choose where a
    link points)."""
    transaction.on_commit(lambda: current_app.send_task(MAIL_TASK, args=[kind, list(user_ids)], queue="default"))


def signup_create(*, form):
    """Stores the new, inactive account, replacing the unconfirmed ones of its address, and queues its mail (the
    confirmation link, or a notice to the owner when the address already has an active account: the worker decides,
    so the browser is told the same, in the same time, either way)."""
    email = form.cleaned_data["email"]
    with transaction.atomic():
        unconfirmed_expire()
        unconfirmed().filter(email__iexact=email).delete()
        user = form.save(commit=False)
        user.is_active = False
        user.save()
        mail_later(SIGNUP, [user.pk])
    return user


def signup_resend(*, email: str) -> int:
    """Queues a new confirmation link for each unconfirmed account of `email` whose link still works (a new link is
    valid SIGNUP_CONFIRM_DAYS from the sign-up, as the account lives); the browser is told the same whatever the
    number, which is returned for the tests. One message is queued either way."""
    users = list(unconfirmed().filter(email__iexact=email).values_list("pk", flat=True))
    mail_later(CONFIRM, users)
    return len(users)


def signup_confirm(*, uidb64, token):
    """Activates the account the link names; None when the link is wrong, expired or already used."""
    try:
        user = unconfirmed().get(pk=int(force_str(urlsafe_base64_decode(uidb64))))
    except (ValueError, TypeError, OverflowError, get_user_model().DoesNotExist):
        return None
    if not confirmation_tokens.check_token(user, token):
        return None
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user


def is_unconfirmed(user) -> bool:
    return unconfirmed().filter(pk=user.pk).exists()


def revoke_tokens_on_new_password(sender, instance, created, **kwargs):
    """A new password revokes every API token of the account, as it ends the account's sessions: whoever held the old
    password may have made a token with it. Connected to the user model's post_save (apps.py), so every way of setting
    one does it: the reset link, the change page, the admin's forms, manage.py changepassword. `_password` is how
    Django itself tells a new password (set_password) from a re-hash of the same one on sign-in, which keeps them."""
    if not created and getattr(instance, "_password", None) is not None:
        token_revoke_all(user=instance)
