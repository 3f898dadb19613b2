"""The Pareto frontier of a set of files: those no other file beats on both axes at once (pure; no database).

Accuracy is better higher; the other axis is better lower (file size) or higher (generation speed). A file is
dominated when another is at least as good on both axes and better on one; two files with the same figures on both
axes dominate neither each other, so both stay on the frontier. A file missing either figure is not placed.
"""
from itertools import groupby


def frontier(points, *, lower_is_better=True) -> list:
    """The keys of the non-dominated points among (key, x, accuracy) triples, from the best x (smallest, or fastest
    when lower_is_better=False) to the most accurate: the order a step line is drawn in."""
    sign = 1 if lower_is_better else -1
    placed = sorted(((sign * x, -y, key) for key, x, y in points if x is not None and y is not None),
                    key=lambda p: p[:2])  # ties keep the order given
    out, best = [], None
    for _, group in groupby(placed, key=lambda p: p[0]):  # each x, best x first; most accurate first within it
        group = list(group)
        top = -group[0][1]
        if best is None or top > best:  # more accurate than every better-x point: not dominated
            out += [key for _, minus_y, key in group if -minus_y == top]
            best = top
    return out
