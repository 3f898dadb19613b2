"""Typed environment readers that refuse bad values with a message naming the variable."""
import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name, default=None, *, required=False):
    value = os.environ.get(name)
    if value is None or value == "":
        if required:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        return default
    return value


def env_choice(name, default, choices):
    """A string that must be one of ``choices`` (exactly, case included); unset or empty is ``default``."""
    value = env_str(name, default)
    if value not in choices:
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} is not supported; use one of {', '.join(choices)}."
        )
    return value


def env_bool(name, default=False):
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"Environment variable {name}={raw!r} is not a boolean; use one of 1/0, true/false, yes/no, on/off."
    )


def _env_number(name, default, parse, kind, *, minimum=None, maximum=None):
    """``parse`` of the variable (unset or blank: ``default``), refused when it is not ``kind`` or out of bounds."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = parse(raw)
    except ValueError:
        raise ImproperlyConfigured(f"Environment variable {name}={raw!r} is not {kind}.") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        bounds = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise ImproperlyConfigured(f"Environment variable {name}={value} must be {bounds}.")
    return value


def env_int(name, default, *, minimum=None):
    return _env_number(name, default, int, "an integer", minimum=minimum)


def env_float(name, default, *, minimum=None, maximum=None):
    return _env_number(name, default, float, "a number", minimum=minimum, maximum=maximum)


def env_list(name, default=()):
    raw = os.environ.get(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_rate(name, default):
    """A throttle rate, "N/second|minute|hour|day" (DRF's form; N > 0); unset or empty is ``default``."""
    value = env_str(name, default)
    number, _, period = value.partition("/")
    if not (number.isdigit() and int(number) > 0 and period in ("s", "second", "m", "minute", "h", "hour", "d", "day")):
        raise ImproperlyConfigured(f"Environment variable {name}={value!r}: use N/second, N/minute, N/hour or N/day.")
    return value
