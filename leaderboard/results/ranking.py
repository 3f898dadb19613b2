"""Significance-based ranks: rank = 1 + number of entries whose accuracy is significantly higher
(two-sided two-proportion z-test, pooled, at 95%). Equal ranks are ties."""

from evaluator.statistics import Z95, two_proportion_z


def significantly_higher(c1: int, n1: int, c2: int, n2: int, z: float = Z95) -> bool:
    """Is proportion 1 significantly above proportion 2?"""
    z_value = two_proportion_z(c1, n1, c2, n2)  # 0 when both are 0% or both 100%
    return z_value is not None and z_value > z


def significance_ranks(cells: list[tuple[float, int]]) -> list[int]:
    """cells: (correct, n) per entry -> rank per entry, same order.

    Entries are grouped by n. The z statistic grows with the count correct of the entry above and falls with
    the count of the entry below, so for each group of n the entries significantly above a target are a suffix
    of that group sorted by count, and the suffix only shrinks as the target's count grows: one sweep per
    (target n, group n) pair over the distinct counts, O(N log N) in all instead of O(N²) pairs. (Sealed boards
    pass the count their published accuracy implies, which need not be a whole number.)
    """
    groups: dict[int, tuple[list[float], list[int]]] = {}  # n -> (distinct counts ascending, entries at or above)
    by_n: dict[int, dict[float, int]] = {}
    for c, n in cells:
        by_n.setdefault(n, {})
        by_n[n][c] = by_n[n].get(c, 0) + 1
    for n, tally in by_n.items():
        counts = sorted(tally)
        at_or_above, running = [0] * len(counts), 0
        for k in range(len(counts) - 1, -1, -1):
            running += tally[counts[k]]
            at_or_above[k] = running
        groups[n] = (counts, at_or_above)
    above: dict[tuple[float, int], int] = {}
    for ni, tally in by_n.items():
        targets = sorted(tally)
        for n, (counts, at_or_above) in groups.items():
            j = 0
            for ci in targets:
                while j < len(counts) and not significantly_higher(counts[j], n, ci, ni):
                    j += 1
                above[ci, ni] = above.get((ci, ni), 0) + (at_or_above[j] if j < len(counts) else 0)
    return [1 + above[c, n] for c, n in cells]
