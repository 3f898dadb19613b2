"""The statistics of the contamination monitor (ARCHITECTURE §6), as plain functions on counts.

Proportions are fractions here; callers turn them into percentage points for display. Only the monitor's own
maths lives here (reweighting, Δ and its z, δ₀, the board's judgement, per-topic units); the general tests and
intervals (Wilson, Newcombe, the exact binomial, Holm, Benjamini–Hochberg, the Ladder's paired test) are
evaluator.statistics.

The flag, per model (callers apply it to the figures as published, never to exact sealed counts):

- validation accuracy reweighted to the test split's topic mix, p_v = Σ_k w_k·x_k/n_k with w_k the test
  split's share of stratum k (topic sizes are public); Var(p_v) = Σ_k w_k²·p̃_k(1−p̃_k)/n_k with the
  Agresti–Caffo-adjusted p̃_k = (x_k+1)/(n_k+2). Topics with fewer than MIN_STRATUM_N validation questions
  are merged into their subcategory, then category (`strata`);
- Δ = p_t − p_v; SE_Δ from Agresti–Caffo-adjusted proportions (always, not only when the Wald SE is 0);
  the 95% interval is Newcombe's hybrid score interval (Wilson limits of each proportion);
- z = (Δ − δ₀)/√(SE_Δ² + SE_δ₀²), δ₀ the mean Δ of reference models and SE_δ₀ its standard error;
- across the board, Benjamini–Hochberg q-values of the one-sided p = Φ(z); flagged when −z > 3 and q < 0.05.

Per-topic evidence (`topic_evidence`), for models flagged overall only: per unit (a topic, or small topics pooled
into their subcategory or category by question counts), the exact one-sided binomial test of its validation count
against the validation accuracy the published test figure and δ₀ predict, with the Holm correction. Per-topic
test counts are never read: validation counts are public and chosen at will by a crafted model, so any rule that
read them would let the names pin them (tests/contamination/test_adversary_topic_naming.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from evaluator.statistics import (agresti_caffo_var, benjamini_hochberg, binomial_upper, holm, newcombe,
                                  normal_cdf)

FLAG_Z = 3.0  # flag "possible contamination" when -z > 3 ...
BH_Q = 0.05  # ... and the Benjamini–Hochberg q-value across the board is below this (the about page says so)
HOLM_ALPHA = 0.05  # family-wise error rate of the per-topic evidence
# A unit is tested when a perfect validation score on it could be significant against a model of this test
# accuracy (`min_unit_n`): the units then depend on question counts only, never on how a model did.
REFERENCE_ACCURACY = 0.5
# Validation questions a reweighting stratum needs (smaller topics are pooled): from 12 on, the expected
# p̃(1−p̃)/n of a stratum is within 7% of the binomial variance it estimates, at any accuracy.
MIN_STRATUM_N = 12


# --- validation reweighted to the test split's topic mix ----------------------------------------------------

@dataclass(frozen=True)
class Reweighted:
    accuracy: float  # Σ w_k x_k / n_k
    variance: float  # Σ w_k² p̃_k (1 − p̃_k) / n_k, p̃_k = (x_k + 1)/(n_k + 2)
    n: int  # validation questions in the strata used
    n_effective: float  # p(1−p) / Σ w_k² p_k(1−p_k)/n_k, at most n: for the Wilson limits of the interval
    strata: int


def reweight(strata: Sequence[tuple[int, int, int]]) -> Reweighted | None:
    """Validation accuracy over strata (x_v, n_v, n_t), each weighted by its share of the test split.

    Strata without validation or test questions carry no weight (the shares are renormalised over the rest).
    """
    used = [(x, n, t) for x, n, t in strata if n > 0 and t > 0]
    if not used:
        return None
    total_t = sum(t for _, _, t in used)
    accuracy = variance = plain = 0.0
    for x, n, t in used:
        w = t / total_t
        accuracy += w * x / n
        adjusted = (x + 1) / (n + 2)
        variance += w * w * adjusted * (1 - adjusted) / n
        plain += w * w * (x / n) * (1 - x / n) / n
    n_v = sum(n for _, n, _ in used)
    # Korn–Graubard: the Wilson limits use n / design effect, never more than n (nor a made-up n at 0% or 100%).
    spread = accuracy * (1 - accuracy)
    n_eff = min(float(n_v), spread / plain) if plain > 0 and spread > 0 else float(n_v)
    return Reweighted(accuracy=accuracy, variance=variance, n=n_v, n_effective=max(1.0, n_eff), strata=len(used))


# --- Δ and its z --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Delta:
    delta: float  # test - validation (MMLU-CF's sign)
    se: float  # SE of Δ (Agresti–Caffo-adjusted proportions)
    ci95_low: float  # Newcombe hybrid score interval
    ci95_high: float
    z: float  # (Δ − δ₀) / se_z
    p_lower: float  # one-sided P(Z <= z): small when validation sits well above test
    flagged: bool  # -z > FLAG_Z (the board adds the Benjamini–Hochberg condition)
    se_z: float = 0.0  # √(se² + SE_δ₀²): the denominator of z
    validation: float = 0.0  # the validation accuracy Δ used (reweighted where topics are known)
    delta0: float = 0.0
    delta0_se: float = 0.0


def delta_stats(correct_v: float, n_v: int, correct_t: float, n_t: int, delta0: float = 0.0,
                **kwargs) -> Delta:
    """Δ = p_t − p_v, z = (Δ − δ₀)/SE with SE = √(p̃_v(1−p̃_v)/(n_v+2) + p̃_t(1−p̃_t)/(n_t+2)) (Agresti–Caffo),
    flag when −z > 3. Works at proportions of 0 and 1 (the adjusted SE is never 0)."""
    if not n_v or not n_t:
        raise ValueError("Δ needs both a validation and a test result")
    return delta_from(correct_v / n_v, n_v, correct_t / n_t, n_t, delta0, **kwargs)


def delta_from(p_v: float, n_v: int, p_t: float, n_t: int, delta0: float = 0.0, *, delta0_se: float = 0.0,
               var_v: float | None = None, n_v_effective: float | None = None, var_rounding: float = 0.0) -> Delta:
    """delta_stats on proportions (the published figures use the test accuracy as published).

    var_v and n_v_effective, when given, describe a reweighted validation accuracy (`reweight`); otherwise the
    validation side is a plain proportion of n_v questions. var_rounding is the variance of the published test
    accuracy's rounding error (a uniform error over one grid step: step²/12), added to SE².
    """
    if var_v is None:
        var_v, n_v_effective = agresti_caffo_var(p_v, n_v), n_v
    delta = p_t - p_v
    se = math.sqrt(var_v + agresti_caffo_var(p_t, n_t) + var_rounding)
    se_z = math.sqrt(se * se + delta0_se * delta0_se)
    z = (delta - delta0) / se_z
    lo, hi = newcombe(p_t, n_t, p_v, n_v_effective or n_v)
    return Delta(delta=delta, se=se, ci95_low=lo, ci95_high=hi, z=z, p_lower=normal_cdf(z), flagged=-z > FLAG_Z,
                 se_z=se_z, validation=p_v, delta0=delta0, delta0_se=delta0_se)


def delta0_from_reference(references: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """δ₀ and its SE from reference models' (Δ, SE_Δ): the mean, and the SE of the mean from their spread
    (s/√k), never below what their own sampling errors imply (√ΣSE²/k, the only estimate when k = 1).
    No references: (0, 0)."""
    k = len(references)
    if not k:
        return 0.0, 0.0
    mean = sum(d for d, _ in references) / k
    sampling = math.sqrt(sum(s * s for _, s in references)) / k
    if k < 2:
        return mean, sampling
    spread = math.sqrt(sum((d - mean) ** 2 for d, _ in references) / (k - 1)) / math.sqrt(k)
    return mean, max(spread, sampling)


# --- multiplicity -------------------------------------------------------------------------------------------

def board_judgement(deltas: Sequence[Delta]) -> list[tuple[float, bool]]:
    """(q-value, flagged) of each model on a board: flagged when −z > FLAG_Z and its Benjamini–Hochberg q-value
    across the board is below BH_Q."""
    q_values = benjamini_hochberg([d.p_lower for d in deltas])
    return [(q, d.flagged and q < BH_Q) for d, q in zip(deltas, q_values)]


def bh_q_of(p: float, others: Sequence[float]) -> float:
    """The q-value p would get on a board of `others` plus itself."""
    return benjamini_hochberg([*others, p])[-1]


# --- per-topic evidence ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    key: str  # topic slug, "category/subcategory" or category slug
    name: str
    level: str  # topic, subcategory or category
    members: tuple[str, ...]  # topic slugs


# topic slug -> (subcategory key, subcategory name, category key, category name)
Tree = Mapping[str, tuple[str, str, str, str]]


def pool_units(topics: Sequence[str], names: Mapping[str, str], tree: Tree,
               big_enough: Callable[[tuple[str, ...]], bool]) -> tuple[list[Unit], list[str]]:
    """Topics big enough stand alone; the rest are pooled per subcategory, and what is still too small per
    category. Returns the units and the topics left out (too small even pooled by category)."""
    units, small = [], []
    for t in topics:
        if big_enough((t,)):
            units.append(Unit(t, names.get(t, t), "topic", (t,)))
        else:
            small.append(t)

    def branch(t, level):
        sub_key, sub_name, cat_key, cat_name = tree.get(t, (f"?{t}", names.get(t, t), f"?{t}", names.get(t, t)))
        return (sub_key, sub_name) if level == "subcategory" else (cat_key, cat_name)

    for level in ("subcategory", "category"):
        groups: dict[tuple[str, str], list[str]] = {}
        for t in small:
            groups.setdefault(branch(t, level), []).append(t)
        small = []
        for (key, name), members in groups.items():
            if len(members) > 1 and big_enough(tuple(members)):
                units.append(Unit(key, f"{name} ({len(members)} topics pooled)", level, tuple(members)))
            else:
                small.extend(members)
    return units, small


@dataclass(frozen=True)
class TopicEvidence:
    topics: int  # topics with both validation and test questions
    tested: int  # units in the Holm family
    pooled: int  # topics tested inside a pooled unit
    untested: int  # topics too small to test even pooled by category
    expected: float | None  # the validation accuracy the published figures predict; None: not flagged, none named
    named: list[Unit]


def min_unit_n(topics: int, alpha: float = HOLM_ALPHA) -> int:
    """Validation questions a unit needs: the fewest n with REFERENCE_ACCURACY^n ≤ alpha/topics, i.e. a perfect
    validation score could pass Bonferroni across the topics against a model of REFERENCE_ACCURACY on test."""
    return math.ceil(math.log(alpha / max(1, topics)) / math.log(REFERENCE_ACCURACY) - 1e-9)


def expected_validation(test_top: float, delta0: float) -> float:
    """The validation accuracy a clean model's published figures predict: Δ = p_t − p_v is δ₀ when clean, so p_v
    = p_t − δ₀, with p_t the highest test accuracy the published figure allows (its rounding never counts against
    the model)."""
    return min(1.0, max(0.0, test_top - delta0))


def topic_evidence(validation: Mapping[str, tuple[int, int, int]], names: Mapping[str, str], tree: Tree, *,
                   expected: float | None, alpha: float = HOLM_ALPHA) -> TopicEvidence:
    """Units whose validation accuracy is significantly above what the model's published figures predict: the
    exact one-sided binomial test of x_v of n_v against `expected` (`expected_validation`), Holm across units.

    validation: topic slug -> (correct_v, n_v, n_t); no per-topic test count goes in, so the names are a function
    of public inputs only (validation counts, question counts, the published test figure and δ₀, and the flag).
    `expected` is None for a model not flagged overall: then nothing is named. The units depend on the question
    counts only: a topic with fewer than `min_unit_n` validation questions is pooled into its subcategory, then
    its category; what is still too small is not tested.
    """
    topics = sorted(t for t, (_, nv, nt) in validation.items() if nv and nt)
    if not topics:
        return TopicEvidence(topics=0, tested=0, pooled=0, untested=0, expected=expected, named=[])

    def sums(members):
        return (sum(validation[t][0] for t in members), sum(validation[t][1] for t in members))

    least = min_unit_n(len(topics), alpha)
    units, left_out = pool_units(topics, names, tree, lambda members: sums(members)[1] >= least)
    named = []
    if expected is not None and units:
        _, rejected = holm([binomial_upper(*sums(u.members), expected) for u in units], alpha)
        named = [u for u, r in zip(units, rejected) if r]
    return TopicEvidence(topics=len(topics), tested=len(units),
                         pooled=sum(len(u.members) for u in units if u.level != "topic"), untested=len(left_out),
                         expected=expected, named=sorted(named, key=lambda u: u.key))


def strata(sizes: Mapping[str, tuple[int, int]], names: Mapping[str, str], tree: Tree,
           min_n: int = MIN_STRATUM_N) -> list[tuple[str, ...]]:
    """Reweighting strata from topic sizes (n_v, n_t): topics with at least `min_n` validation questions, the
    smaller ones pooled per subcategory, then category, and whatever is left in one last stratum."""
    topics = sorted(t for t, (nv, nt) in sizes.items() if nv and nt)
    units, rest = pool_units(topics, names, tree, lambda members: sum(sizes[t][0] for t in members) >= min_n)
    groups = [u.members for u in units]
    return groups + [tuple(rest)] if rest else groups
