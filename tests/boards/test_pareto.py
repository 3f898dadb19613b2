"""The Pareto frontier of the On-device board's charts (leaderboard/boards/pareto.py): the files no other file beats
on both axes, in the order the step line is drawn."""
from leaderboard.boards.pareto import frontier


def test_smaller_is_better_the_frontier_climbs_from_the_smallest_file():
    points = [("q8", 8.0, 70.0), ("q4", 4.0, 65.0), ("q4-bad", 4.5, 60.0), ("f16", 16.0, 71.0), ("q2", 2.0, 50.0),
              ("q6-worse", 6.0, 64.0)]
    assert frontier(points) == ["q2", "q4", "q8", "f16"]


def test_faster_is_better_the_frontier_climbs_from_the_fastest_file():
    points = [("q4", 30.0, 65.0), ("q8", 20.0, 70.0), ("q4-slow", 25.0, 60.0), ("f16", 10.0, 71.0)]
    assert frontier(points, lower_is_better=False) == ["q4", "q8", "f16"]


def test_one_point_is_the_frontier():
    assert frontier([("only", 3.0, 40.0)]) == ["only"]
    assert frontier([]) == []


def test_ties():
    # The same size and accuracy: neither dominates the other, both stay, in the order given.
    assert frontier([("b", 4.0, 60.0), ("a", 4.0, 60.0)]) == ["b", "a"]
    # The same size, less accurate: dominated. The same accuracy, larger: dominated.
    assert frontier([("small", 4.0, 60.0), ("same-size-worse", 4.0, 59.0), ("larger-same", 5.0, 60.0)]) == ["small"]
    # The same accuracy and speed, with ids that do not sort against each other: no comparison of the keys.
    assert frontier([(1, 10.0, 50.0), ("x", 10.0, 50.0)], lower_is_better=False) == [1, "x"]


def test_a_file_missing_a_figure_is_not_placed():
    points = [("no-speed", None, 90.0), ("no-accuracy", 50.0, None), ("q4", 30.0, 65.0), ("q8", 20.0, 70.0)]
    assert frontier(points, lower_is_better=False) == ["q4", "q8"]
    assert frontier([("no-speed", None, 90.0)], lower_is_better=False) == []
