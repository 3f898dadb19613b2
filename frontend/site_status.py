"""A line of news for every page, put there by an operator or by `./dev.sh serve` (while the demo's llama.cpp
environment builds, the board says its on-device variants are on their way): the text of SITE_STATUS_FILE while that
file exists. Read per request (a stat, and a small read when present); nothing is cached, so removing the file
clears the line at once."""
from pathlib import Path

from django.conf import settings

MAX_CHARS = 500


def site_status(request) -> dict:
    """Template context processor: {"site_status": the file's first MAX_CHARS characters, stripped, or ""}."""
    try:
        text = Path(settings.SITE_STATUS_FILE).read_text(encoding="utf-8", errors="replace")[:MAX_CHARS]
    except OSError:  # no file: nothing to say
        return {"site_status": ""}
    return {"site_status": text.strip()}
