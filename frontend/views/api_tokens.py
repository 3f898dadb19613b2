"""The API tokens page: a signed-in account makes a token for its scripts (shown once, on the response to the POST
that made it), sees when its tokens were made and expire, and can revoke them all."""
from django.conf import settings
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from leaderboard.core import api_tokens
from leaderboard.core.errors import DomainError

from .accounts import account_needed


@never_cache
def api_tokens_page(request):
    if not request.user.is_authenticated:
        return account_needed(request, title="API tokens", why=(
            "API tokens let your scripts submit models and upload predictions as you, so they belong to an account."))
    context, status = {"days": settings.API_TOKEN_DAYS, "limit": settings.API_TOKENS_PER_USER}, 200
    if request.method == "POST":
        try:
            if request.POST.get("action") == "revoke-all":
                context["revoked"] = api_tokens.token_revoke_all(user=request.user)
            else:
                context["new_token"] = api_tokens.token_create(user=request.user)
        except DomainError as exc:
            context["error"], status = exc, exc.status
    context["tokens"] = api_tokens.token_list(user=request.user)
    return render(request, "frontend/api_tokens.html", context, status=status)
