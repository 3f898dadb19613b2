"""API tokens (ARCHITECTURE §9): django-rest-knox's, so the database keeps only each token's SHA-512 digest and the
token itself is shown once, to the account that creates it. Scripts send `Authorization: Token <token>`."""
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from knox.models import AuthToken

from .errors import DomainError


class TooManyTokens(DomainError):
    def __init__(self, limit: int):
        super().__init__("TOO_MANY_TOKENS", f"This account already has {limit} API tokens, the most it may hold.",
                         "Revoke one you no longer use on the API tokens page, then create a new one.", status=400)


def token_list(*, user):
    """The account's live tokens, newest first: when each was made and when it expires (never the token)."""
    live = Q(expiry__isnull=True) | Q(expiry__gt=timezone.now())
    return list(AuthToken.objects.filter(live, user=user).order_by("-created").values("created", "expiry"))


@transaction.atomic
def token_create(*, user) -> str:
    """A new token for `user`, returned once; the database keeps its digest. Expired tokens are removed first."""
    AuthToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
    if AuthToken.objects.select_for_update().filter(user=user).count() >= settings.API_TOKENS_PER_USER:
        raise TooManyTokens(settings.API_TOKENS_PER_USER)
    _, token = AuthToken.objects.create(user=user)
    return token


def token_revoke_all(*, user) -> int:
    """Revokes every token of the account; the number revoked."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted
