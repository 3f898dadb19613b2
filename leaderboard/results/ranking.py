"""Significance-based ranks: rank = 1 + number of entries whose accuracy is significantly higher
(two-sided two-proportion z-test, pooled, at 95%). Equal ranks are ties."""
import bisect
import math

from evaluator.metrics import Z95


def significantly_higher(c1: int, n1: int, c2: int, n2: int, z: float = Z95) -> bool:
    """Is proportion 1 significantly above proportion 2?"""
    if not n1 or not n2:
        return False
    p1, p2 = c1 / n1, c2 / n2
    pooled = (c1 + c2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return False  # both 0% or both 100%
    return (p1 - p2) / se > z


def significance_ranks(cells: list[tuple[int, int]]) -> list[int]:
    """cells: (correct, n) per entry -> rank per entry, same order.

    Entries are grouped by n (on one board nearly all share it). Against entries of the same n the
    z statistic grows with their count correct, so the ones significantly above entry i are a suffix
    of the group sorted by correct, found by bisection: O(n log n) instead of O(n²) pairs. Entries
    of another n are compared pairwise.
    """
    by_n: dict[int, list[int]] = {}
    for c, n in cells:
        by_n.setdefault(n, []).append(c)
    for counts in by_n.values():
        counts.sort()
    ranks = []
    for ci, ni in cells:
        above = 0
        for n, counts in by_n.items():
            if n == ni:
                lo, hi = bisect.bisect_right(counts, ci), len(counts)  # only higher counts can be above
                while lo < hi:
                    mid = (lo + hi) // 2
                    if significantly_higher(counts[mid], n, ci, ni):
                        hi = mid
                    else:
                        lo = mid + 1
                above += len(counts) - lo
            else:
                above += sum(significantly_higher(c, n, ci, ni) for c in counts)
        ranks.append(1 + above)
    return ranks
