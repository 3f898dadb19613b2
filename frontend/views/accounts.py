"""Sign-up and its e-mail confirmation, password reset, the page that says why a page needs an account, and the
answers of the account throttles (frontend/throttles.py) and of django-axes' sign-in lockout. Sign-in, sign-out and
the rest of password reset are Django's views with our templates (frontend/account_urls.py)."""
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.db import IntegrityError
from django.shortcuts import redirect, render
from django.utils import timezone

from .. import accounts, throttles
from ..forms import PasswordResetRequestForm, ResendConfirmationForm, SignupForm

_THROTTLED = {  # page -> (what was refused, what it counts)
    "signup": ("Too many sign-ups", "for this e-mail address or from your network"),
    "reset": ("Too many password reset requests", "for this e-mail address or from your network"),
    "confirm": ("Too many confirmation attempts", "for this account or from your network"),
    "resend": ("Too many requests for a new confirmation link", "for this e-mail address or from your network"),
    "login": ("Too many failed sign-ins", "for this user name from your network"),
    "login-slow": ("Too many failed sign-ins", "for this user name, or from your network, from many places at once"),
    "device-report": ("Too many device reports", "from your account"),
}


def throttled(request, page, seconds):
    """HTTP 429 in the site's look: what was refused and when to try again (Retry-After too). Nothing was sent."""
    what, scope = _THROTTLED[page]
    response = render(request, "frontend/accounts/throttled.html", {
        "what": what, "scope": scope, "page": page, "minutes": max(1, -(-seconds // 60)), "seconds": seconds,
        "retry_at": timezone.now() + timedelta(seconds=seconds)}, status=429)
    response["Retry-After"] = str(seconds)
    return response


def locked_out(request, response=None, credentials=None):
    """django-axes' lockout answer (AXES_LOCKOUT_CALLABLE), for the site's sign-in and the admin's: this user name is
    locked from this client for the cool-off, or, under a guess from many clients, an unknown client is asked to retry
    in seconds (frontend/sign_in_throttle.py)."""
    wait = getattr(request, "sign_in_wait", None)
    if wait:
        return throttled(request, "login-slow", wait)
    return throttled(request, "login", int(settings.AXES_COOLOFF_TIME.total_seconds()))


def account_needed(request, *, title, why):
    """A page for signed-out visitors instead of a silent redirect: what needs an account, why, and the way in."""
    return render(request, "frontend/accounts/account_needed.html", {"title": title, "why": why,
                                                                      "next": request.get_full_path()})


def signup(request):
    if request.user.is_authenticated:
        return redirect("submit")
    if request.method == "POST":
        wait = throttles.wait_seconds(request, "signup", address=request.POST.get("email", ""))
        if wait is not None:
            return throttled(request, "signup", wait)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            accounts.signup_create(form=form)
        except IntegrityError:  # a sign-up for the same name in between: the unique index of its canonical form
            form.add_error("username", form.instance.unique_error_message(type(form.instance), ["username"]))
        else:
            # The same page whether the address was new or had an account (only the e-mail differs).
            return render(request, "frontend/accounts/signup_sent.html", {"email": form.cleaned_data["email"],
                                                                            "confirm_days": settings.SIGNUP_CONFIRM_DAYS})
    return render(request, "frontend/accounts/signup.html", {"form": form})


def signup_resend(request):
    """A new confirmation link for an unconfirmed account: the same answer whether or not the address has one."""
    form = ResendConfirmationForm(request.POST or None)
    if request.method == "POST":
        wait = throttles.wait_seconds(request, "resend", address=request.POST.get("email", ""))
        if wait is not None:
            return throttled(request, "resend", wait)
        if form.is_valid():
            accounts.signup_resend(email=form.cleaned_data["email"])
            return render(request, "frontend/accounts/signup_sent.html", {
                "email": form.cleaned_data["email"], "confirm_days": settings.SIGNUP_CONFIRM_DAYS, "resent": True})
    return render(request, "frontend/accounts/signup_resend.html", {"form": form})


def signup_confirm(request, uidb64, token):
    wait = throttles.wait_seconds(request, "confirm", address=uidb64)
    if wait is not None:
        return throttled(request, "confirm", wait)
    user = accounts.signup_confirm(uidb64=uidb64, token=token)
    return render(request, "frontend/accounts/signup_confirmed.html", {"confirmed": user is not None},
                  status=200 if user else 400)


class PasswordReset(auth_views.PasswordResetView):
    """Django's reset view: the same answer whether or not the address has an account; throttled per address and
    client; it reaches an address whose only account is unconfirmed too (PasswordResetRequestForm)."""

    form_class = PasswordResetRequestForm

    def post(self, request, *args, **kwargs):
        wait = throttles.wait_seconds(request, "reset", address=request.POST.get("email", ""))
        if wait is not None:
            return throttled(request, "reset", wait)
        return super().post(request, *args, **kwargs)
