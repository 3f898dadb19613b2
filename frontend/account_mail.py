"""Account mail, written and sent by the default worker (frontend/tasks.send_mail, queued by accounts.mail_later on
commit): a sign-up's confirmation link or the notice to an address's owner, a new confirmation link, a password
reset. Links point at SITE_URL and tokens are made here, with the site secret the trusted worker holds; a message
carries only a kind and account ids, each checked again here, so a forged one can at most mail an account's own
address what it could have asked for."""
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from . import accounts


def deliver(kind: str, user_ids: list[int]) -> int:
    """Sends the mails of one queued message; the number sent."""
    write = {accounts.SIGNUP: _signup, accounts.CONFIRM: _confirmation, accounts.RESET: _reset}[kind]
    return sum(write(user) for user in get_user_model().objects.filter(pk__in=user_ids).order_by("pk"))


def _link(name: str, **kwargs) -> str:
    return f"{settings.SITE_URL.rstrip('/')}{reverse(name, kwargs=kwargs or None)}"


def _uid(user) -> str:
    return urlsafe_base64_encode(force_bytes(user.pk))


def _send(body: str, *, subject: str, to: str, context: dict) -> int:
    """Templates of frontend/templates/frontend/accounts/ (the reset's are those account_urls gives Django's view)."""
    title = render_to_string(f"frontend/accounts/{subject}.txt", context)
    send_mail(subject=" ".join(title.split()), message=render_to_string(f"frontend/accounts/{body}.txt", context),
              from_email=None, recipient_list=[to])
    return 1


def _context(user) -> dict:
    return {"user": user, "site": urlsplit(settings.SITE_URL).netloc, "days": settings.SIGNUP_CONFIRM_DAYS}


def _signup(user) -> int:
    """The confirmation link, or, when the address already has an active account, a notice to its owner."""
    if not accounts.is_unconfirmed(user):
        return 0
    owner = get_user_model().objects.filter(email__iexact=user.email, is_active=True).order_by("pk").first()
    if owner is None:
        return _confirmation(user)
    return _send("signup_exists_email", subject="signup_exists_email_subject", to=owner.email, context={
        **_context(owner), "login": _link("login"), "reset": _link("password_reset")})


def _confirmation(user) -> int:
    if not accounts.is_unconfirmed(user):
        return 0
    link = _link("signup-confirm", uidb64=_uid(user), token=accounts.confirmation_tokens.make_token(user))
    return _send("signup_email", subject="signup_email_subject", to=user.email, context={**_context(user), "link": link})


def _reset(user) -> int:
    """Django's reset mail (its token generator, our templates): to an active account or an unconfirmed one, with a
    password (forms.PasswordResetRequestForm chose them)."""
    if not user.email or not user.has_usable_password() or not (user.is_active or accounts.is_unconfirmed(user)):
        return 0
    site = urlsplit(settings.SITE_URL)
    return _send("password_reset_email", subject="password_reset_subject", to=user.email, context={
        "email": user.email, "domain": site.netloc, "site_name": site.netloc, "protocol": site.scheme,
        "uid": _uid(user), "user": user, "token": default_token_generator.make_token(user)})
