"""Parameter counts as the pages print them: a tiny model reads in thousands, not as "0M"."""
import pytest

from frontend.templatetags.frontend import params


@pytest.mark.parametrize("value, shown", [
    (None, "–"), (70_000_000_000, "70B"), (2_000_000_000, "2.0B"), (350_000_000, "350M"), (1_352_320, "1M"),
    (999_499, "999K"), (999_500, "1M"), (139_648, "140K"), (0, "0K"),
])
def test_a_parameter_count_keeps_its_size(value, shown):
    assert params(value) == shown
