"""The first row per key (leaderboard/core/rows.py), behind every "latest per model" read."""
from types import SimpleNamespace

from leaderboard.core.rows import field, first_per_key


def test_it_keeps_the_first_row_of_each_key_in_order():
    rows = [{"hub_id": "a", "revision": "2"}, {"hub_id": "b", "revision": "1"}, {"hub_id": "a", "revision": "1"},
            {"hub_id": "a", "revision": "2"}]
    assert first_per_key(rows, "hub_id") == [rows[0], rows[1]]
    assert first_per_key(rows, "hub_id", "revision") == rows[:3]


def test_it_reads_objects_and_dicts_alike():
    rows = [SimpleNamespace(hub_id="a", pk=2), SimpleNamespace(hub_id="a", pk=1), {"hub_id": "b", "pk": 3}]
    assert [field(r, "pk") for r in first_per_key(rows, "hub_id")] == [2, 3]
