"""One identity for user names and namespaces (ARCHITECTURE §9): a user name owns the hub namespace of the same
name, so both are compared in one canonical form, computed here in Python and nowhere else. The database keeps
it in a unique column (models.AccountName); no identity decision goes through iexact, UPPER or LIKE, whose folding
differs between PostgreSQL (UPPER('mıcrosoft') is 'MICROSOFT'), SQLite (ASCII only) and Python.

The form is Unicode's compatibility caseless match: NFKC, casefold, NFKC ('ＡＬＩＣＥ', 'Alice' -> 'alice';
'oﬃce' -> 'office'; 'straße' -> 'strasse'). It maps no letter to another letter: 'ı' stays 'ı', so an account named
'mıcrosoft' never owns 'microsoft'. New names also keep to the hub's own rules for user and organisation names (ASCII
letters, digits, '-', '_', '.'), so every name made from now on is its own look-alike-free canonical form. A
confusable skeleton (Unicode TS #39) is not an identity: it maps distinct hub names to one ('rn' and 'm', 'l' and
'1'), so it would refuse real hub users and, used for ownership, let 'rnicrosoft' act for 'microsoft'."""
import unicodedata

from leaderboard.core.errors import DomainError
from leaderboard.hub.ids import HubIdError, validate_namespace


class UsernameRefused(DomainError):
    code = "USERNAME_INVALID"
    status = 400


def canonical_name(value: str) -> str:
    """The one form a user name or namespace is compared in (idempotent: checked over every code point)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def validate_username(value: str) -> str:
    """``value`` if a new account may take it as its user name, else UsernameRefused saying why and how to fix it:
    a user name is the hub namespace it owns, so it follows the hub's rules for one."""
    try:
        return validate_namespace(value)
    except HubIdError as error:
        # The hub's words name each problem; its closing advice is about hub ids, not user names.
        problems = str(error).partition(" is not a hub namespace: ")[2].partition(". Give the part")[0]
        raise UsernameRefused(
            None, f"{value!r} cannot be a user name: {problems or error}. A user name is also the Hugging Face "
                  "namespace it owns, so it follows the hub's rules for user names.",
            "Use only ASCII letters, digits, '-', '_' and '.' (at most 96), starting and ending with a letter, digit "
            "or '_'.") from None
