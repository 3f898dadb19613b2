"""Significance-based ranks: rank = 1 + number of entries whose accuracy is significantly higher
(two-sided two-proportion z-test, pooled, at 95%). Equal ranks are ties."""
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
    """cells: (correct, n) per entry -> rank per entry, same order. O(n²); fine for ~1,000 entries."""
    return [1 + sum(significantly_higher(cj, nj, ci, ni) for j, (cj, nj) in enumerate(cells) if j != i)
            for i, (ci, ni) in enumerate(cells)]
