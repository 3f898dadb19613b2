"""The one rule for a number of shots (few-shot exemplars from the dev split before each question): a whole
number from MIN_SHOTS to MAX_SHOTS. The API's query serializers, the pages' query strings and run creation all
check it here."""
from rest_framework import serializers

MIN_SHOTS = 0
MAX_SHOTS = 25
SHOTS_OUT_OF_RANGE = "SHOTS_OUT_OF_RANGE"  # the code of a refusal
ALLOWED = f"a whole number from {MIN_SHOTS} to {MAX_SHOTS}"


def shots_problem(value) -> str:
    """Why `value` is not an allowed number of shots ("" when it is); `value` may be text from a query string."""
    number = int(value) if isinstance(value, str) and value.isascii() and value.isdigit() else value
    if isinstance(number, bool) or not isinstance(number, int) or not MIN_SHOTS <= number <= MAX_SHOTS:
        return f"shots must be {ALLOWED}, not {value!r}"
    return ""


def shots_field(**kwargs) -> serializers.IntegerField:
    """The `shots` query parameter of an API: 0 unless given; out of range is a 400 naming the bounds."""
    return serializers.IntegerField(min_value=MIN_SHOTS, max_value=MAX_SHOTS, default=0,
                                    help_text=f"few-shot exemplars per question: {ALLOWED}", **kwargs)
