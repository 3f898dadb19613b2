"""Hub model ids and revisions, checked before any network call (ARCHITECTURE §9).

Pure functions: nothing here touches the network or the database. The validators return the value
unchanged when it is acceptable (no silent stripping or case folding) and otherwise raise ``HubIdError``
whose message says what is wrong and how to fix it, ready to show to the person who typed it.

They run once per submission, where the id is typed in; what passed travels on as a ``ModelRef``.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from leaderboard.core.errors import DomainError

MAX_NAMESPACE = 96
MAX_NAME = 96
MAX_REVISION = 255
DEFAULT_REVISION = "main"

_PART_CHARS = re.compile(r"[A-Za-z0-9._-]+")
_REVISION_CHARS = re.compile(r"[A-Za-z0-9._/+-]+")
_URL_PREFIX = re.compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/", re.I)
EXAMPLE = "meta-llama/Llama-3.1-8B"


class HubIdError(DomainError, ValueError):
    """An unacceptable hub id or revision (INVALID_ID, 400); ``str(error)`` is the whole message, fix included, and
    ``field`` the field it belongs to."""

    code = "INVALID_ID"

    def __init__(self, message: str, *, field: str = "hub_id"):
        super().__init__(None, message)
        self.field = field


def _describe(char: str) -> str:
    name = unicodedata.name(char, None)
    code = f"U+{ord(char):04X}"
    return f"{code} {name}" if name else code


def _bad_characters(value: str) -> list[str]:
    """Whitespace, control and non-ASCII characters, named, with their 1-based positions."""
    found = []
    for position, char in enumerate(value, 1):
        if char.isspace():
            kind = "a newline" if char in "\r\n" else "a tab" if char == "\t" else "a space" if char == " " \
                else f"a whitespace character ({_describe(char)})"
        elif unicodedata.category(char) == "Cc":
            kind = f"a control character ({_describe(char)})"
        elif unicodedata.category(char).startswith("C"):
            kind = f"an invisible character ({_describe(char)})"
        elif not char.isascii():
            kind = f"the non-ASCII character {char!r} ({_describe(char)})"
        else:
            continue
        found.append(f"{kind} at position {position}")
    return found


@dataclass(frozen=True)
class _Shape:
    """What a hub id part or a revision may look like, and the words of each rule it breaks."""

    chars: re.Pattern
    chars_rule: str
    pairs: tuple[str, ...]
    pair_rule: str
    bad_first: str
    bad_last: str
    edge_rule: str  # after "starts with 'x'" / "ends with 'x'"; "{}" is "start" or "end"


_PART_SHAPE = _Shape(_PART_CHARS, "only letters A-Z a-z, digits, '-', '_' and '.' are allowed", ("--", ".."),
                     ", which the hub does not allow", "-.", "-.", "; it must {} with a letter, digit or '_'")
_REVISION_SHAPE = _Shape(_REVISION_CHARS, "only letters, digits and '-', '_', '.', '/', '+' are allowed",
                         ("..", "//"), "", "-./", "./", "")


def _shape_problems(value: str, shape: _Shape, limit: int, *, what: str, named: str) -> list[str]:
    """The rules of ``shape`` that a non-empty ``value`` breaks; ``what`` names it with its value, ``named`` alone."""
    problems = []
    wrong = sorted(set(shape.chars.sub("", value)))
    if wrong:
        problems.append(f"{what} contains {', '.join(repr(c) for c in wrong)}; {shape.chars_rule}")
    if len(value) > limit:
        problems.append(f"{named} is {len(value)} characters long; at most {limit} are allowed")
    problems += [f"{what} contains {pair!r}{shape.pair_rule}" for pair in shape.pairs if pair in value]
    if value[0] in shape.bad_first:
        problems.append(f"{what} starts with {value[0]!r}{shape.edge_rule.format('start')}")
    if value[-1] in shape.bad_last:
        problems.append(f"{what} ends with {value[-1]!r}{shape.edge_rule.format('end')}")
    return problems


def _part_problems(part: str, label: str, limit: int) -> list[str]:
    if not part:
        return [f"the {label} is empty"]
    return _shape_problems(part, _PART_SHAPE, limit, what=f"the {label} {part!r}", named=f"the {label}")


def validate_hub_id(value: str) -> str:
    """``value`` if it is a plain ``namespace/name`` model id of the hub, else ``HubIdError``.

    Rules: ASCII only (look-alike letters such as Cyrillic 'а' or full-width 'ｏ' are refused), no whitespace or
    control characters anywhere, exactly one '/', both parts made of ``[A-Za-z0-9._-]``, at most 96 characters
    each, no '--' or '..', no leading or trailing '-' or '.', and no '.git' suffix. URLs are refused with the id
    they contain as the suggested fix.
    """
    if not isinstance(value, str):
        raise HubIdError(f"the model id must be text, not {type(value).__name__}")
    if not value:
        raise HubIdError(f"the model id is empty; enter it as namespace/name, e.g. {EXAMPLE}")
    shown = repr(value if len(value) <= 120 else value[:120] + "…")
    bad = _bad_characters(value)
    if bad:
        listed = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise HubIdError(f"the model id {shown} contains {listed}. Type the id in plain ASCII with no spaces "
                         f"or line breaks, exactly as the model's hub page shows it, e.g. {EXAMPLE}")
    url = _URL_PREFIX.match(value)
    if url or "://" in value:
        rest = value[url.end():] if url else ""
        suggestion = "/".join(rest.split("/")[:2]) if rest.count("/") >= 1 else ""
        fix = f"enter {suggestion!r}" if suggestion and rest.split("/")[0] not in ("datasets", "spaces") \
            else "enter only the namespace/name part"
        raise HubIdError(f"the model id {shown} is a URL, not a hub id; {fix} (namespace/name, e.g. {EXAMPLE})")
    slashes = value.count("/")
    if slashes == 0:
        raise HubIdError(f"the model id {shown} has no namespace; enter it as namespace/name, e.g. {EXAMPLE} "
                         "(the namespace is the user or organisation that owns the model)")
    if slashes > 1:
        raise HubIdError(f"the model id {shown} has {slashes} '/'; a hub id has exactly one, as in namespace/name "
                         f"(e.g. {EXAMPLE}); leave out any branch, folder or file path")
    namespace, name = value.split("/")
    problems = _part_problems(namespace, "namespace", MAX_NAMESPACE) + _part_problems(name, "name", MAX_NAME)
    if name.lower().endswith(".git"):
        problems.append(f"the name {name!r} ends with '.git'; leave the suffix out (the id is not a git URL)")
    if problems:
        raise HubIdError(f"the model id {shown} is not a valid hub id: " + "; ".join(problems)
                         + f". Copy the id from the model's hub page, e.g. {EXAMPLE}")
    return value


def validate_namespace(value: str) -> str:
    """``value`` if it is a plain hub namespace (a hub id's part before '/'), else ``HubIdError``; same rules."""
    bad = _bad_characters(value)
    problems = [f"it contains {'; '.join(bad[:5])}"] if bad else _part_problems(value, "namespace", MAX_NAMESPACE)
    if problems:
        raise HubIdError(f"{value!r} is not a hub namespace: {'; '.join(problems)}. Give the part of a hub id "
                         f"before '/', e.g. {EXAMPLE.split('/')[0]!r}", field="namespace")
    return value


def validate_revision(value: str | None = None) -> str:
    """A branch, tag or 40-character commit sha; ``None`` or ``""`` means ``"main"``.

    Allowed: ``[A-Za-z0-9._/+-]``, at most 255 characters, no '..' or '//', no leading '-', '.' or '/',
    no trailing '/', '.' or '.lock' (git's ref rules); never whitespace or control characters. Whether the
    revision exists is the hub's answer, not this function's.
    """
    if value is None or value == "":
        return DEFAULT_REVISION
    if not isinstance(value, str):
        raise HubIdError(f"the revision must be text, not {type(value).__name__}", field="revision")
    shown = repr(value if len(value) <= 80 else value[:80] + "…")
    fix = "enter a branch (e.g. main), a tag (e.g. v1.0) or a full 40-character commit sha"
    bad = _bad_characters(value)
    if bad:
        listed = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise HubIdError(f"the revision {shown} contains {listed}; {fix}", field="revision")
    problems = _shape_problems(value, _REVISION_SHAPE, MAX_REVISION, what="it", named="it")
    if value.endswith(".lock"):
        problems.append("it ends with '.lock'")
    if problems:
        raise HubIdError(f"the revision {shown} is not a valid branch, tag or commit sha: " + "; ".join(problems)
                         + f". {fix[0].upper()}{fix[1:]}", field="revision")
    return value


@dataclass(frozen=True)
class ModelRef:
    """A model id and revision that passed ``validate_hub_id`` and ``validate_revision``: what the hub is asked
    about. Build it with ``model_ref`` from what was typed, or directly from values that already passed."""

    hub_id: str
    revision: str = DEFAULT_REVISION


def model_ref(hub_id: str, revision: str | None = None) -> ModelRef:
    """The validated ``ModelRef`` of a typed id and revision (None or "" is "main"), else ``HubIdError``."""
    return ModelRef(validate_hub_id(hub_id), validate_revision(revision))


MAX_GGUF_PATH = 200
_GGUF_PATH_CHARS = re.compile(r"[A-Za-z0-9._/+-]+")


def validate_gguf_path(value: str) -> str:
    """The path of a GGUF file in a repository (``model-Q4_K_M.gguf``, ``q4/model-00001-of-00002.gguf``), as the
    hub's file list shows it; else ``HubIdError`` for the field gguf_file."""
    def refuse(problem: str) -> HubIdError:
        return HubIdError(f"GGUF file {value!r} {problem}; give the file's path in the repository as 'Files and "
                          "versions' shows it, e.g. model-Q4_K_M.gguf", field="gguf_file")

    bad = _bad_characters(value)
    if bad:
        raise refuse("contains " + ", ".join(bad[:3]))
    if len(value) > MAX_GGUF_PATH:
        raise refuse(f"is {len(value)} characters long (at most {MAX_GGUF_PATH})")
    if not _GGUF_PATH_CHARS.fullmatch(value):
        raise refuse("may contain only letters, digits, '.', '_', '-', '+' and '/'")
    if value.startswith("/") or any(part in ("", ".", "..") for part in value.split("/")):
        raise refuse("is not a relative path inside the repository")
    if not value.endswith(".gguf"):
        raise refuse("does not end with .gguf")
    return value
