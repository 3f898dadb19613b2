"""Sign-up with e-mail confirmation (Django's auth models; mail through EMAIL_BACKEND: console in dev, locmem in
tests). A new account stays inactive until its owner opens the link mailed to them; password reset is Django's own
view with our forms (frontend/account_urls.py, frontend/forms.py).

The rules of OWASP ASVS against enumeration: sign-up does the same whether or not its address has an account (an
account is stored, holding its user name until it expires) and only the mail differs: a confirmation link, or a notice
to the address's owner. An unconfirmed account never blocks the owner of its address: a new sign-up replaces it, a
password reset reaches it (and confirms it), and it expires after SIGNUP_CONFIRM_DAYS, freeing its name and address.
"""
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.encoding import force_bytes, force_str
from django.utils.http import base36_to_int, urlsafe_base64_decode, urlsafe_base64_encode

from leaderboard.submissions.models import NamespaceGrant, Submission


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
    deleted, _ = _pending().filter(date_joined__lt=_confirm_cutoff()).delete()
    return deleted


def username_taken(username: str, *, replacing_email: str | None = None) -> bool:
    """Whether an account holds the user name, in any case (a user name owns the namespace of that name,
    case-insensitively). An expired unconfirmed account holds nothing, nor does an unconfirmed one that a sign-up with
    its own address replaces."""
    holders = get_user_model().objects.filter(username__iexact=username).exclude(
        pk__in=_pending().filter(date_joined__lt=_confirm_cutoff()).values("pk"))
    if replacing_email:
        holders = holders.exclude(pk__in=unconfirmed().filter(email__iexact=replacing_email).values("pk"))
    return holders.exists()


def _mail(template, *, to, context):
    send_mail(subject=render_to_string(f"frontend/accounts/{template}_subject.txt", context).strip(),
              message=render_to_string(f"frontend/accounts/{template}.txt", context),
              from_email=None, recipient_list=[to])


def signup_create(*, form, request):
    """Stores the new, inactive account, replacing the unconfirmed ones of its address, and mails its address: the
    confirmation link, or, when the address already has an active account, a notice to its owner instead (the
    browser is told the same either way)."""
    email = form.cleaned_data["email"]
    with transaction.atomic():
        unconfirmed_expire()
        unconfirmed().filter(email__iexact=email).delete()
        user = form.save(commit=False)
        user.is_active = False
        user.save()
    owner = get_user_model().objects.filter(email__iexact=email, is_active=True).order_by("pk").first()
    context = {"user": owner or user, "site": request.get_host(), "days": settings.SIGNUP_CONFIRM_DAYS,
               "login": request.build_absolute_uri(reverse("login")),
               "reset": request.build_absolute_uri(reverse("password_reset"))}
    if owner is not None:
        _mail("signup_exists_email", to=owner.email, context=context)
        return user
    _mail_confirmation(user, request=request, context=context)
    return user


def _mail_confirmation(user, *, request, context=None):
    link = request.build_absolute_uri(reverse("signup-confirm", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": confirmation_tokens.make_token(user)}))
    context = context or {"user": user, "site": request.get_host(), "days": settings.SIGNUP_CONFIRM_DAYS}
    _mail("signup_email", to=user.email, context={**context, "link": link})


def signup_resend(*, email: str, request) -> int:
    """Mails a new confirmation link to each unconfirmed account of `email` whose link still works (a new link is
    valid SIGNUP_CONFIRM_DAYS from the sign-up, as the account lives); the browser is told the same whatever the
    number, which is returned for the tests."""
    users = list(unconfirmed().filter(email__iexact=email))
    for user in users:
        _mail_confirmation(user, request=request)
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
