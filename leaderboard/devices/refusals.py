"""How a device report is refused: one DomainError with a code per rule, listing every problem of that kind (each
naming the field and where), so one corrected upload is enough; and the check of a free-text field.

Codes (each a 400): REPORT_MALFORMED (not llama-bench's JSON, a field missing or of the wrong type, control or
formula characters in a text), REPORT_FIELD_TOO_LONG, REPORT_OUT_OF_BOUNDS (sizes, threads, RAM), REPORT_ABSURD_SPEED
(negative, zero or faster than any device), REPORT_MIXED_FILES (tests of two files or builds). Matching the file
(services.py) adds NO_MATCHING_FILE, AMBIGUOUS_FILE and FILE_MISMATCH; an account past its daily new device names
gets REPORT_NEW_DEVICE_QUOTA (429). Pure: no Django.
"""
import unicodedata

from leaderboard.core.csv import formula_lead
from leaderboard.core.errors import DomainError

MALFORMED, TOO_LONG, OUT_OF_BOUNDS, ABSURD_SPEED, MIXED_FILES = (
    "REPORT_MALFORMED", "REPORT_FIELD_TOO_LONG", "REPORT_OUT_OF_BOUNDS", "REPORT_ABSURD_SPEED", "REPORT_MIXED_FILES")
NEW_DEVICE_QUOTA = "REPORT_NEW_DEVICE_QUOTA"
ORDER = (MALFORMED, TOO_LONG, OUT_OF_BOUNDS, ABSURD_SPEED, MIXED_FILES)  # the first kind found is the refusal's code
SHOWN = 10  # problems listed, then "... and N more"
HINT = ("upload the JSON array `llama-bench -m FILE.gguf -o json` prints, unedited, for one file, with the device's "
        "fields filled in; nothing was stored")


class ReportRefused(DomainError):
    """A refused report: ``code`` says which rule, ``problems`` lists every problem of that kind."""

    def __init__(self, code: str, problems: list[str], hint: str = HINT, **extra):
        self.problems = list(problems)
        more = len(self.problems) - SHOWN
        shown = self.problems[:SHOWN] + ([f"... and {more} more"] if more > 0 else [])
        super().__init__(code, "the device report was refused: " + "; ".join(shown), hint,
                         429 if code == NEW_DEVICE_QUOTA else None, problems=shown, **extra)


def raise_first(problems: dict) -> None:
    """Refuse with the first kind of problem found (ORDER), if any."""
    for code in ORDER:
        if problems.get(code):
            raise ReportRefused(code, problems[code])


BIDI_CONTROLS = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}  # reorder what a page shows


def has_controls(text: str) -> bool:
    """Control characters (NUL included: PostgreSQL refuses it), lone surrogates, or bidirectional overrides and
    isolates, which make a name read differently from what it is."""
    return any(unicodedata.category(c) in ("Cc", "Cs") or unicodedata.bidirectional(c) in BIDI_CONTROLS for c in text)


def clean_text(value, name: str, limit: int, problems: dict, *, required: bool = True) -> str:
    """A free-text field: a string, spaces collapsed, no control characters, no leading formula character (uploads
    refuse what a spreadsheet would run, ARCHITECTURE §9), at most `limit` characters (longer is refused, not cut).
    Problems go to `problems` (code -> list); the cleaned text is returned either way."""
    if value is None or value == "":
        if required:
            problems.setdefault(MALFORMED, []).append(f"{name} is missing")
        return ""
    if not isinstance(value, str):
        problems.setdefault(MALFORMED, []).append(f"{name} must be text, not {type(value).__name__}")
        return ""
    text = " ".join(value.split())
    if has_controls(text):
        problems.setdefault(MALFORMED, []).append(f"{name} contains control characters")
    elif formula_lead(text):
        problems.setdefault(MALFORMED, []).append(f"{name} starts with {text[0]!r}, which a spreadsheet would run as "
                                                  "a formula")
    if len(text) > limit:
        problems.setdefault(TOO_LONG, []).append(f"{name} is {len(text):,} characters, over the limit of {limit}")
    elif required and not text:
        problems.setdefault(MALFORMED, []).append(f"{name} is empty")
    return text
