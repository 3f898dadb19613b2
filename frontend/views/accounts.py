"""Sign-up and its e-mail confirmation; the page that says why a page needs an account. Sign-in, sign-out and
password reset are Django's views with our templates (frontend/account_urls.py)."""
from django.shortcuts import redirect, render

from .. import accounts
from ..forms import SignupForm


def account_needed(request, *, title, why):
    """A page for signed-out visitors instead of a silent redirect: what needs an account, why, and the way in."""
    return render(request, "frontend/accounts/account_needed.html", {"title": title, "why": why,
                                                                      "next": request.get_full_path()})


def signup(request):
    if request.user.is_authenticated:
        return redirect("submit")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = accounts.signup_create(form=form, request=request)
        return render(request, "frontend/accounts/signup_sent.html", {"email": user.email})
    return render(request, "frontend/accounts/signup.html", {"form": form})


def signup_confirm(request, uidb64, token):
    user = accounts.signup_confirm(uidb64=uidb64, token=token)
    return render(request, "frontend/accounts/signup_confirmed.html", {"confirmed": user is not None},
                  status=200 if user else 400)
