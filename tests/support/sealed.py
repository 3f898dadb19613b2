"""Look for sealed test-split content in anything the service emits."""
from leaderboard.benchmarks.models import Question


def sealed_strings():
    """Every sealed question text and option (long enough to be unambiguous)."""
    strings = set()
    for text, options in Question.objects.filter(split="test").values_list("text", "options"):
        strings.add(text)
        strings.update(o for o in options if len(o) >= 25)
    return strings


def assert_no_sealed_content(body: str, strings=None):
    strings = sealed_strings() if strings is None else strings
    assert strings, "no sealed questions loaded: this check would prove nothing"
    leaked = [s for s in strings if s in body]
    assert not leaked, f"sealed content leaked: {leaked[:3]}"
