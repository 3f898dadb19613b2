"""Sign-up with e-mail confirmation (Django's auth models; mail through EMAIL_BACKEND: console in dev, locmem in
tests). A new account stays inactive until its owner opens the link mailed to them; password reset is Django's own
view (frontend/account_urls.py)."""
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.encoding import force_bytes, force_str
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode


class ConfirmationTokens(PasswordResetTokenGenerator):
    """Its own salt, so a confirmation link is never a password-reset link; is_active in the hash, so it works once."""

    key_salt = "frontend.accounts.ConfirmationTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{super()._make_hash_value(user, timestamp)}{user.is_active}"


confirmation_tokens = ConfirmationTokens()


def signup_create(*, form, request):
    """Stores the new, inactive account and mails its confirmation link."""
    user = form.save(commit=False)
    user.is_active = False
    user.save()
    link = request.build_absolute_uri(reverse("signup-confirm", kwargs={
        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": confirmation_tokens.make_token(user)}))
    context = {"user": user, "link": link, "site": request.get_host()}
    send_mail(subject=render_to_string("frontend/accounts/signup_email_subject.txt", context).strip(),
              message=render_to_string("frontend/accounts/signup_email.txt", context),
              from_email=None, recipient_list=[user.email])
    return user


def signup_confirm(*, uidb64, token):
    """Activates the account the link names; None when the link is wrong, expired or already used."""
    try:
        user = get_user_model().objects.get(pk=int(force_str(urlsafe_base64_decode(uidb64))))
    except (ValueError, TypeError, OverflowError, get_user_model().DoesNotExist):
        return None
    if user.is_active or not confirmation_tokens.check_token(user, token):
        return None
    user.is_active = True
    user.save(update_fields=["is_active"])
    return user
