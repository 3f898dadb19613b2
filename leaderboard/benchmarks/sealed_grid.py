"""The one published figure of a sealed-split result: its accuracy on a grid that fits the split's size.

A published value must say no more than "one of several counts": with n test questions and a 0.1-point grid, a
value is consistent with about n/1,000 counts, so at n = 480 every count would be recoverable. The grid is the
finest of GRID_STEPS whose every value, the two ends of the scale included, is consistent with at least
MIN_COUNTS_PER_VALUE counts: 0.1 point at n = 10,000, 0.5 at 2,000, 1 at 1,000, 2 at 480. Rounding is integer
arithmetic on basis points (1/100 of a point), half up, so no binary-float tie sends a count to a lonely bin.

Everything derived from a sealed result (intervals, Δ, SE, z, flags, δ₀, history differences, audit records,
staff views) starts from `publish(correct, n)` and nothing finer (ARCHITECTURE §6).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from evaluator.statistics import wilson_interval

BP_PER_UNIT = 10_000  # basis points in an accuracy of 1 (100 %)
GRID_STEPS = (10, 20, 50, 100, 200, 500, 1000, 2500)  # basis points: 0.1, 0.2, 0.5, 1, 2, 5, 10, 25 points
MIN_COUNTS_PER_VALUE = 5


def _value_index(correct: int, n: int, step: int) -> int:
    """round(correct / n / step) half up, in integers: the grid value's index."""
    return (2 * correct * BP_PER_UNIT + step * n) // (2 * step * n)


def counts_for(index: int, n: int, step: int) -> range:
    """The counts that publish as grid value `index`: an adversary's best knowledge from that value alone."""
    lo = -(-((2 * index - 1) * step * n) // (2 * BP_PER_UNIT))  # ceil of the bin's lower edge, in counts
    hi = -(-((2 * index + 1) * step * n) // (2 * BP_PER_UNIT))  # first count of the next bin
    return range(max(0, lo), min(n, hi - 1) + 1)


@lru_cache(maxsize=256)
def grid_step(n: int) -> int:
    """The grid for a split of n questions, in basis points (see the module docstring)."""
    if n <= 0:
        return GRID_STEPS[-1]
    for step in GRID_STEPS:
        top = _value_index(n, n, step)
        if all(len(counts_for(k, n, step)) >= MIN_COUNTS_PER_VALUE for k in range(top + 1)):
            return step
    return GRID_STEPS[-1]


@dataclass(frozen=True)
class Published:
    """A sealed accuracy as published: `bp` basis points on a grid of `step` basis points."""

    bp: int
    step: int
    n: int

    @property
    def fraction(self) -> float:
        return self.bp / BP_PER_UNIT

    @property
    def percent(self) -> float:
        return round(self.bp / 100, self.places)

    @property
    def places(self) -> int:
        """Decimals of a percent on this grid: 1 for 0.1/0.2/0.5-point grids, 0 from 1 point up."""
        return 1 if self.step < 100 else 0

    @property
    def grid_points(self) -> float:
        return self.step / 100

    @property
    def rounding_variance(self) -> float:
        """Variance of the rounding error (uniform over one step), as a fraction²: Δ's SE includes it."""
        return (self.step / BP_PER_UNIT) ** 2 / 12

    def ci95_percent(self) -> tuple[float, float]:
        """The 95% Wilson interval computed from the published value (never the exact count), in percent on this
        grid's decimals: its bounds then say nothing finer than the figure."""
        lo, hi = wilson_interval(self.fraction * self.n, self.n)
        return round(100 * lo, self.places), round(100 * hi, self.places)

    def counts(self) -> range:
        return counts_for(self.bp // self.step, self.n, self.step)


def publish(correct: int, n: int) -> Published:
    step = grid_step(n)
    return Published(bp=min(BP_PER_UNIT, _value_index(int(correct), n, step) * step), step=step, n=n)


def grid_note(n: int) -> str:
    """The rule beside a published figure, in words."""
    step = grid_step(n) / 100
    return (f"published on a {step:g}-point grid for {n:,} test questions: each value fits at least "
            f"{MIN_COUNTS_PER_VALUE} counts")
