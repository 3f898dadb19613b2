"""Signing in with Hugging Face (ARCHITECTURE §9): what the hub's OAuth userinfo says about an account, stored. The
hub user id (`sub`) finds the account; the namespaces it may act for are its hub user name and the organisations where
its role lets it write, replaced at each sign-in (frontend/hub_signin.py runs the OAuth flow)."""
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from leaderboard.core.errors import DomainError
from leaderboard.hub.ids import MAX_NAMESPACE, HubIdError, validate_namespace

from .identity import canonical_name
from .models import HubAccount, HubNamespace
from .selectors import name_holders, namespace_in_use

WRITING_ROLES = frozenset({"admin", "write"})  # roleInOrg values that may publish an organisation's models
SUFFIXES = 9  # -hf, -hf2 ... -hf9 after a taken hub user name


class HubSignInRefused(DomainError):
    status = 400


def hub_namespaces(userinfo: dict) -> dict[str, str]:
    """namespace (canonical) -> role: the user's own and its writing organisations', each a valid hub namespace."""
    found = {_namespace(userinfo.get("preferred_username")): "user"}
    for org in userinfo.get("orgs") or []:
        role = str(org.get("roleInOrg") or "")
        if role in WRITING_ROLES:
            found.setdefault(_namespace(org.get("preferred_username")), role)
    return found


def _namespace(value) -> str:
    try:
        return canonical_name(validate_namespace(str(value or "")))
    except HubIdError:
        raise HubSignInRefused("HUB_USERINFO_INVALID", f"the hub answered a user name we cannot use: {value!r}",
                               "Try again; if it persists, sign up with an e-mail address instead.") from None


@transaction.atomic
def hub_sign_in(*, userinfo: dict, current=None):
    """The account of this hub user (created active, with no password, on a first sign-in; `current`, a signed-in
    account, is linked instead), its hub namespaces refreshed. Refused when the hub user is linked to another account
    than `current`, or `current` to another hub user."""
    sub = str(userinfo.get("sub") or "")
    namespaces = hub_namespaces(userinfo)
    if not sub:
        raise HubSignInRefused("HUB_USERINFO_INVALID", "the hub's answer names no user id (sub).",
                               "Try again; if it persists, sign up with an e-mail address instead.")
    account = HubAccount.objects.select_for_update().filter(sub=sub).first()
    if current is not None and ((account and account.user_id != current.pk)
                                or HubAccount.objects.filter(user=current).exclude(sub=sub).exists()):
        raise HubSignInRefused("HUB_ACCOUNT_LINKED_ELSEWHERE",
                               "this Hugging Face account and the account you are signed in with are each linked "
                               "to another.", "Sign out, then sign in with Hugging Face alone.")
    user = account.user if account else current or _new_user(userinfo)
    username = str(userinfo["preferred_username"])
    account, _ = HubAccount.objects.update_or_create(sub=sub, defaults={"user": user, "username": username})
    account.namespaces.all().delete()
    HubNamespace.objects.bulk_create(HubNamespace(account=account, namespace=namespace, role=role)
                                     for namespace, role in namespaces.items())
    return user


def _new_user(userinfo):
    """An active account named after the hub user, or, when another account holds that name, after it with -hf (then
    -hf2 ... -hf9): a suffixed name is a namespace the hub never vouched for, so it must be free as a name and unused
    as a namespace (models on the board, a grant, another hub account's). Its e-mail address when the hub says it is
    verified. It signs in through the hub only (no password)."""
    base = str(userinfo["preferred_username"])
    email = userinfo.get("email") if userinfo.get("email_verified") else ""
    for name in _names(base):
        if name_holders(name).exists() or (name != base and namespace_in_use(name)):
            continue
        try:
            with transaction.atomic():  # the unique index on the name's canonical form decides a race
                user = get_user_model().objects.create_user(name, email or "")
        except IntegrityError:
            continue
        user.set_unusable_password()
        user.save(update_fields=["password"])
        return user
    raise HubSignInRefused(
        "HUB_USERNAME_UNAVAILABLE", f"the user name {base!r} is held by another account here, and so are the names "
                                    f"we would give instead ({base}-hf … {base}-hf{SUFFIXES}), or they are namespaces "
                                    "of others.",
        "Sign up with an e-mail address under a name of your own, then sign in with Hugging Face while signed in: "
        "that links the two, and your hub namespaces are yours.")


def _names(base: str):
    """The hub user name, then its suffixed forms, each a valid hub namespace (at most 96 characters)."""
    yield base
    for n in range(1, SUFFIXES + 1):
        suffix = f"-hf{n if n > 1 else ''}"
        yield f"{base[:MAX_NAMESPACE - len(suffix)].rstrip('-.')}{suffix}"
