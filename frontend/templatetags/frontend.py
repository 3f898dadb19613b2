"""Small display filters for the page templates."""
from datetime import date, datetime, timedelta

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince

from leaderboard.core.cache_generation import stale_since

from .. import hub_signin
from ..glossary import TERMS
from ..payloads.board_table import params_text

register = template.Library()


@register.filter
def params(value):
    """A parameter count as the board prints it (board_table.params_text)."""
    return params_text(value)


@register.filter
def p_value(value):
    """A p or q value as readers take it in: 3 significant digits, "< 0.001" below that (not 0.000000000000267)."""
    if value in (None, ""):
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3g}"


@register.simple_tag
def hub_signin_on() -> bool:
    """Whether sign-in with Hugging Face is set up here (HF_OAUTH_CLIENT_ID)."""
    return hub_signin.enabled()


@register.simple_tag
def term(key, label=None):
    """A statistic or variant name explained in place: a link to its section of the methodology page whose
    title is the one-line explanation (frontend/glossary.py)."""
    t = TERMS[key]
    return format_html('<a class="term" href="{}#{}" title="{}">{}</a>', reverse("about"), t.anchor,
                       f"{t.label}: {t.short}", label or t.label)


@register.filter
def when(value):
    """A timestamp for people: "5 minutes ago" within a day, else "24 Nov 2026, 14:05 UTC" (a date alone:
    "24 Nov 2026"), in a <time> element that keeps the exact moment for machines and in its tooltip."""
    if value in (None, ""):
        return "–"
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return value
    if not isinstance(value, datetime):  # a date
        return format_html('<time datetime="{}">{}</time>', value.isoformat(), _day(value))
    value = timezone.localtime(value, timezone.get_fixed_timezone(0)) if timezone.is_aware(value) else value
    exact = f"{_day(value)}, {value:%H:%M} UTC"
    age = timezone.now() - value if timezone.is_aware(value) else None
    text = f"{timesince(value, depth=1)} ago" if age is not None and timedelta(0) <= age < timedelta(days=1) else exact
    if age is not None and age < timedelta(minutes=1):
        text = "just now"
    return format_html('<time datetime="{}" title="{}">{}</time>', value.isoformat(timespec="seconds"), exact, text)


def _day(value: date) -> str:
    return f"{value.day} {value:%b %Y}"


@register.simple_tag
def board_updating():
    """The note on a page given a board's previous data while it is recomputed (a result was just published:
    frontend/board_cache.py); empty otherwise."""
    at = stale_since()
    if at is None:
        return ""
    moment = datetime.fromtimestamp(at, tz=timezone.get_fixed_timezone(0))
    return format_html('<p class="site-status" role="status">Updating: showing the board as of '
                       '<time datetime="{}">{} UTC</time>; a new result is being added. Reload in a moment '
                       'for the newest figures.</p>', moment.isoformat(timespec="seconds"), f"{moment:%H:%M:%S}")
