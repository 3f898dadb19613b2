"""A file's speed on a device counts people, not reports. Pure: no Django.

- One vote per account: the median of its counted reports of one file on one device, so ten reports from one account
  weigh what one does.
- A device's figure is confirmed when at least CONFIRMING accounts agree: their votes lie within OUTLIER_FACTOR of
  one another. The figure is the median of the largest such group (a tie goes to the slower group: a speed inflated
  is what an attacker wants). Until then it is unconfirmed: shown labelled and apart, never ranked on the board and
  never in a median another page shows.
- A new report is judged against the confirmed figure of the other accounts (never against a median its own account
  moves): more than OUTLIER_FACTOR times away from it is an outlier. Without a confirmed figure only the physical
  limit (bandwidth.py) judges it.
"""
import statistics
from dataclasses import dataclass

OUTLIER_FACTOR = 3.0
CONFIRMING = 2  # accounts that must agree before a device's figure is published


@dataclass(frozen=True)
class Consensus:
    confirmed: bool
    people: tuple  # the accounts whose votes make the figure: the agreeing group when confirmed, else every voter
    median: float | None
    low: float | None
    high: float | None

    @property
    def confirmed_by(self) -> int:
        return len(self.people) if self.confirmed else 0


def votes(values) -> dict:
    """`values`: (account, figure) pairs, figures None or 0 skipped; each account's median."""
    by_account: dict = {}
    for account, value in values:
        if value:
            by_account.setdefault(account, []).append(value)
    return {account: statistics.median(v) for account, v in by_account.items()}


def agree(low: float, high: float) -> bool:
    return high <= low * OUTLIER_FACTOR


def _largest_group(ballots: dict) -> list:
    """The accounts of the largest group whose votes are within OUTLIER_FACTOR of one another; the slower on a tie."""
    ranked = sorted(ballots.items(), key=lambda item: (item[1], str(item[0])))
    best: list = []
    end = 0
    for start in range(len(ranked)):
        end = max(end, start)
        while end + 1 < len(ranked) and agree(ranked[start][1], ranked[end + 1][1]):
            end += 1
        if end - start + 1 > len(best):
            best = [account for account, _ in ranked[start:end + 1]]
    return best


def consensus(ballots: dict) -> Consensus:
    """The figure of one file on one device from its votes (account -> figure)."""
    if not ballots:
        return Consensus(False, (), None, None, None)
    group = _largest_group(ballots)
    confirmed = len(group) >= CONFIRMING
    people = tuple(group) if confirmed else tuple(ballots)
    values = [ballots[p] for p in people]
    return Consensus(confirmed, people, statistics.median(values), min(values), max(values))


def outside(value: float | None, figure: float | None) -> bool:
    """Is a report's figure more than OUTLIER_FACTOR times away from a confirmed figure?"""
    return bool(value and figure) and (value > figure * OUTLIER_FACTOR or value * OUTLIER_FACTOR < figure)
