"""A file's speed on a device counts people, not reports, and weighs each by what its account costs to make. Pure: no
Django (judging.py reads the accounts and stores the verdict; selectors.py reads it back).

- One vote per account: the median of its reports of one file on one device (outliers included), so ten reports from
  one account weigh what one does.
- A vote's weight (``weight``): FRESH for any account, and a STEP more for each of: an e-mail address confirmed (one
  account per mailbox), an account SETTLED_DAYS old, and a vote of its that has stood SETTLED_DAYS on another file or
  device with another account agreeing. A fresh account weighs 0.25, a settled, confirmed one that others agreed
  with 1.0: four fresh accounts weigh what one such person does.
- Every vote is judged at once, whenever one arrives or an admin hides or accepts a report (``judge``): the group of
  votes within OUTLIER_FACTOR of one another with the most weight (then the most people, then the slower: a speed
  inflated is what an attacker wants) makes the figure, the weighted median of its votes, once it holds CONFIRMING
  people. A later, heavier group wins, and the earlier one becomes the outliers.
- Votes outside that band (the dissent) are outliers. Where they come from CONFIRMING people or more and weigh more
  than 1/DISPUTE_MARGIN of the group, the figure is disputed: shown with its spread over every vote, never ranked.
  So a figure is confirmed only when its group weighs at least DISPUTE_MARGIN times what disagrees with it.
- An admin's accepted report puts its account's vote in the figure whatever the others say.
- Without a group of CONFIRMING people the figure is unconfirmed: the plain median of every vote, labelled, never
  ranked.
"""
import math
import statistics
from dataclasses import dataclass

OUTLIER_FACTOR = 3.0
CONFIRMING = 2  # people who must agree before a device's figure is published
DISPUTE_MARGIN = 2.0  # a group must weigh this many times what disagrees with it to be confirmed
FRESH, STEP = 0.25, 0.25  # a vote's weight: FRESH, plus STEP for each thing that made the account cost more
SETTLED_DAYS = 30


@dataclass(frozen=True)
class Ballot:
    value: float
    weight: float = 1.0
    accepted: bool = False  # an admin accepted one of its reports: in the figure whatever the others say


@dataclass(frozen=True)
class Consensus:
    confirmed: bool
    people: tuple  # the accounts whose votes make the figure: the group (and the accepted), or every voter
    median: float | None
    low: float | None  # the spread of the figure's votes
    high: float | None
    disputed: bool = False
    dissent: tuple = ()  # the accounts whose votes lie outside the figure's band: their reports are outliers
    weight: float = 0.0  # of `people`
    dissent_weight: float = 0.0
    every_low: float | None = None  # the spread of every vote, dissent included
    every_high: float | None = None

    @property
    def confirmed_by(self) -> int:
        return len(self.people) if self.confirmed else 0


def weight(*, email_confirmed: bool, settled: bool, agreed_before: bool) -> float:
    """A vote's weight from what its account cost to make (see the module's docstring)."""
    return FRESH + STEP * (bool(email_confirmed) + bool(settled) + bool(agreed_before))


def votes(values) -> dict:
    """`values`: (account, figure) pairs, figures None or 0 skipped; each account's median."""
    by_account: dict = {}
    for account, value in values:
        if value:
            by_account.setdefault(account, []).append(value)
    return {account: statistics.median(v) for account, v in by_account.items()}


def agree(low: float, high: float) -> bool:
    return high <= low * OUTLIER_FACTOR


def weighted_median(pairs) -> float | None:
    """The median of (value, weight) pairs: the value where half the weight lies on either side (the midpoint of two
    values when the half falls between them); with equal weights, the plain median."""
    pairs = sorted(pairs)
    total = sum(w for _, w in pairs)
    if not pairs or total <= 0:
        return statistics.median(v for v, _ in pairs) if pairs else None
    seen = 0.0
    for i, (value, w) in enumerate(pairs):
        seen += w
        if math.isclose(seen, total / 2, rel_tol=1e-9) and i + 1 < len(pairs):
            return (value + pairs[i + 1][0]) / 2
        if seen > total / 2:
            return value
    return pairs[-1][0]


def _leading_group(ballots: dict, excluded) -> list:
    """The accounts of the heaviest group of CONFIRMING people or more whose votes are within OUTLIER_FACTOR of one
    another (then the one with the most people, then the slower), none of them `excluded`; [] when there is none."""
    ranked = sorted(((a, b) for a, b in ballots.items() if a not in excluded), key=lambda i: (i[1].value, str(i[0])))
    best, best_key, end = [], None, 0
    for start in range(len(ranked)):
        end = max(end, start)
        while end + 1 < len(ranked) and agree(ranked[start][1].value, ranked[end + 1][1].value):
            end += 1
        group = ranked[start:end + 1]
        if len(group) < CONFIRMING:
            continue
        key = (round(sum(b.weight for _, b in group), 9), len(group))
        if best_key is None or key > best_key:  # strictly heavier: on a tie the slower, earlier group stays
            best, best_key = [a for a, _ in group], key
    return best


def _spread(values) -> tuple:
    values = list(values)
    return (min(values), max(values)) if values else (None, None)


def judge(ballots: dict, excluded=frozenset()) -> Consensus:
    """The figure of one file on one device from its ballots (account -> Ballot). `excluded`: accounts that may not
    make the figure (a reader's: those whose reports were judged outliers), counted in the dissent."""
    if not ballots:
        return Consensus(False, (), None, None, None)
    every_low, every_high = _spread(b.value for b in ballots.values())
    group = _leading_group(ballots, excluded)
    if not group:  # nobody agrees: the plain median of every vote the readers may count
        people = tuple(a for a in ballots if a not in excluded)
        values = [ballots[a].value for a in people]
        dissent = tuple(a for a in ballots if a in excluded)
        return Consensus(False, people, statistics.median(values) if values else None, *_spread(values),
                         dissent=dissent, weight=sum(ballots[a].weight for a in people),
                         dissent_weight=sum(ballots[a].weight for a in dissent),
                         every_low=every_low, every_high=every_high)
    in_group = set(group)
    people = tuple(group) + tuple(a for a, b in ballots.items() if b.accepted and a not in in_group)
    dissent = tuple(a for a in ballots if a not in set(people))
    group_weight = sum(ballots[a].weight for a in group)
    dissent_weight = sum(ballots[a].weight for a in dissent)
    disputed = len(dissent) >= CONFIRMING and dissent_weight * DISPUTE_MARGIN > group_weight + 1e-9
    pairs = [(ballots[a].value, ballots[a].weight) for a in people]
    return Consensus(not disputed, people, weighted_median(pairs), *_spread(v for v, _ in pairs), disputed=disputed,
                     dissent=dissent, weight=sum(w for _, w in pairs), dissent_weight=dissent_weight,
                     every_low=every_low, every_high=every_high)


# A report's status (models.ReportStatus's values): what the latest judgement made of it, or an admin's accept.
COUNTED, OUTLIER, ACCEPTED = "counted", "outlier", "accepted"


def ballots(reports, weights: dict | None = None) -> dict:
    """One ballot per account of a group's reports (objects with owner_id, tg_tokens_per_s, pp_tokens_per_s, weight,
    status): its vote the median of its reports' generation figures (prompt figures where none has one; a figure that
    is not finite is no vote), its weight `weights[account]` or else as stored on its reports, accepted when an admin
    accepted one of them."""
    reports = list(reports)
    field = "tg_tokens_per_s" if any(_finite(r.tg_tokens_per_s) for r in reports) else "pp_tokens_per_s"
    by_account: dict = {}
    for report in reports:
        by_account.setdefault(report.owner_id, []).append(report)
    out = {}
    for account, value in votes((r.owner_id, getattr(r, field)) for r in reports if _finite(getattr(r, field))).items():
        mine = by_account[account]
        weight_ = (weights or {}).get(account, max(r.weight for r in mine))
        out[account] = Ballot(value, weight_, any(r.status == ACCEPTED for r in mine))
    return out


def _finite(value) -> bool:
    return value is not None and math.isfinite(value)


def status_after(report, verdict: Consensus) -> str:
    """A report's status after a judgement: an admin's accept stays; an account outside the figure's band is an
    outlier, with all its reports of the group; every other report counts."""
    if report.status == ACCEPTED:
        return ACCEPTED
    return OUTLIER if report.owner_id in set(verdict.dissent) else COUNTED


def restatus_stored(reports) -> list:
    """Judge a stored group again with the weights its reports were last judged with (the data migrations, which
    cannot read what accounts cost now): each report's status set, the reports whose status changed returned."""
    reports = list(reports)
    verdict = judge(ballots(reports))
    changed = []
    for report in reports:
        status = status_after(report, verdict)
        if status != report.status:
            report.status = status
            changed.append(report)
    return changed
