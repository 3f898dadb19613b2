"""Text that PostgreSQL can store. It refuses NUL in text columns and `\\u0000` in jsonb, and UTF-8 cannot
encode a lone surrogate; a model's output, an engine's error or a log tail may contain any of them."""
import re

_REFUSED = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def pg_text(text: str) -> str:
    return _REFUSED.sub(REPLACEMENT, text) if text else text


def pg_json(value):
    """A JSON value with every string (keys included) made storable; other values as they are."""
    if isinstance(value, str):
        return pg_text(value)
    if isinstance(value, list):
        return [pg_json(v) for v in value]
    if isinstance(value, dict):
        return {pg_text(k) if isinstance(k, str) else k: pg_json(v) for k, v in value.items()}
    return value
