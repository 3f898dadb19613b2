"""/accounts/hf/: send the visitor to the hub to approve, and take the hub's answer back (frontend/hub_signin.py)."""
import logging

import requests
from authlib.integrations.base_client.errors import OAuthError
from django.contrib.auth import login
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from leaderboard.submissions.hub_accounts import HubSignInRefused, hub_sign_in

from .. import hub_signin

log = logging.getLogger(__name__)


def start(request):
    if not hub_signin.enabled():
        raise Http404("Sign-in with Hugging Face is not set up on this site.")
    wanted = request.GET.get("next", "")
    safe = url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure())
    request.session["hub_signin_next"] = wanted if safe else ""
    callback = request.build_absolute_uri(reverse("hub-signin-callback"))
    return hub_signin.client().authorize_redirect(request, callback)


def callback(request):
    if not hub_signin.enabled():
        raise Http404("Sign-in with Hugging Face is not set up on this site.")
    client = hub_signin.client()
    try:
        token = client.authorize_access_token(request)  # checks the state the start stored in the session
        userinfo = client.userinfo(token=token)
        user = hub_sign_in(userinfo=dict(userinfo),
                           current=request.user if request.user.is_authenticated else None)
    except HubSignInRefused as exc:
        return _failed(request, exc.message, exc.hint)
    except OAuthError as exc:
        return _failed(request, f"the hub did not sign you in ({exc.error}).", "Start again from the sign-in page.")
    except requests.RequestException as exc:
        log.warning("hub sign-in: the hub could not be reached: %s", type(exc).__name__)
        return _failed(request, "the hub could not be reached.", "Try again in a minute.", status=502)
    login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect(request.session.pop("hub_signin_next", "") or "my-submissions")


def _failed(request, message, hint, status=400):
    return render(request, "frontend/accounts/hub_signin_failed.html", {"message": message, "hint": hint},
                  status=status)
