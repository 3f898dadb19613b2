"""Small display filters for the page templates."""
from django import template

register = template.Library()


@register.filter
def params(value):
    """2_000_000_000 -> "2.0B", 350_000_000 -> "350M"."""
    if value in (None, ""):
        return "–"
    value = int(value)
    if value >= 1_000_000_000:
        return f"{value / 1e9:.{0 if value >= 1e10 else 1}f}B"
    return f"{round(value / 1e6)}M"
