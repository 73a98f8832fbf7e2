"""The design score recomputed from certified inputs, with separate code (docs/score.md).

Components in [0, 1], exact `Fraction`s:

- coverage = min(1, red / (1/2));
- expert_advantage = clamp((yellow_moves / m* - 1) / (1/4), 0, 1);
- diversity = 2/5 euclid_sep + 3/5 spatial_sep, euclid_sep = min(1, (L_blue -
  L_green) / (L_green / 10)) and spatial_sep the Jaccard distance of the cells
  of green and blue;
- continuity = continuable (race rule) / optimal, on circuits only.

Weights 25/25/20/30, renormalised over the components present (a stage drops
continuity). Corrector c = 9/10 + spatial_sep / 10. score = round(100 c Σ
(w_i / W) s_i, 2), half to even; capped at 19 on a circuit whose continuable
percentage rounds to 0.00.

euclid_sep is the one possibly irrational input; it is decided with exact
sign decisions (`radical_forms.sign_of`: float filter, then sympy): 0 when
the lengths are equal, 1 when 10 (L_blue - L_green) >= L_green, an exact
Fraction when L_blue - L_green is a rational multiple of L_green, and
otherwise a rational enclosure from integer square roots, narrowed until
both ends of the score round to the same cents (the score increases with
euclid_sep, and an irrational score is never exactly on a half cent).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from racecert.independent.radical_forms import RadicalLength, enclose, sign_of

WEIGHTS = (("coverage", 25), ("expert_advantage", 25), ("diversity", 20), ("continuity", 30))
CAP = Fraction(19)
START_BITS = 64
MAX_BITS = 1 << 16


@dataclass(frozen=True)
class EuclidSeparation:
    """euclid_sep: exact (lo == hi, `exact`) or enclosed in [lo, hi]."""

    lo: Fraction
    hi: Fraction
    exact: bool


@dataclass(frozen=True)
class DesignScore:
    """The rounded score, its band and cap, and every exact ingredient."""

    total: Fraction
    band: str
    capped: bool
    raw_lo: Fraction
    raw_hi: Fraction
    corrector: Fraction
    coverage: Fraction
    expert_advantage: Fraction
    spatial_sep: Fraction
    euclid_sep: EuclidSeparation
    continuity: Fraction | None


def band_of(total: Fraction) -> str:
    """< 20 rejected, [20, 40) weak, [40, 60) fair, [60, 80) good, >= 80 excellent.

    >>> band_of(Fraction(3999, 100)), band_of(Fraction(80))
    ('weak', 'excellent')
    """
    for limit, name in ((20, "rejected"), (40, "weak"), (60, "fair"), (80, "good")):
        if total < limit:
            return name
    return "excellent"


def euclid_separation(green: RadicalLength, blue: RadicalLength,
                      bits: int = START_BITS) -> EuclidSeparation:
    """min(1, (blue - green) / (green / 10)), exactly when rational, else enclosed."""
    g = dict(green.terms)
    diff = dict(blue.terms)
    for d, c in g.items():
        diff[d] = diff.get(d, 0) - c
    diff = {d: c for d, c in diff.items() if c}
    if not diff:
        return EuclidSeparation(Fraction(0), Fraction(0), True)
    if sign_of(diff) < 0:
        raise ValueError(f"blue ({blue}) is shorter than green ({green})")
    excess = {d: 10 * diff.get(d, 0) - g.get(d, 0) for d in set(diff) | set(g)}
    if sign_of(excess) >= 0:
        return EuclidSeparation(Fraction(1), Fraction(1), True)
    if diff.keys() == g.keys():
        ratios = {Fraction(diff[d], g[d]) for d in g}
        if len(ratios) == 1:
            q = 10 * ratios.pop()
            return EuclidSeparation(q, q, True)
    n_lo, n_hi = enclose(diff, bits)
    g_lo, g_hi = enclose(g, bits)
    lo = max(Fraction(0), 10 * n_lo / g_hi)
    hi = min(Fraction(1), 10 * n_hi / g_lo)
    return EuclidSeparation(lo, hi, False)


def _raw(parts: dict[str, Fraction | None], corrector: Fraction) -> Fraction:
    present = [(name, w) for name, w in WEIGHTS if parts[name] is not None]
    total_w = sum(w for _, w in present)
    weighted = sum((Fraction(w, total_w) * parts[name] for name, w in present), Fraction(0))
    return 100 * corrector * weighted


def design_score(*, red: Fraction, yellow_moves: int, m_star: int, green: RadicalLength,
                 blue: RadicalLength, spatial_sep: Fraction, circuit: bool,
                 continuable: Fraction | None) -> DesignScore:
    """The score of docs/score.md from its (certified) inputs.

    `continuable` is the race-rule continuable fraction; required on circuits,
    ignored on stages.
    """
    if circuit and continuable is None:
        raise ValueError("a circuit's score needs the continuable fraction")
    coverage = min(Fraction(1), 2 * red)
    expert = min(Fraction(1), max(Fraction(0), 4 * (Fraction(yellow_moves, m_star) - 1)))
    corrector = Fraction(9, 10) + spatial_sep / 10
    cont = continuable if circuit else None
    bits = START_BITS
    while True:
        eu = euclid_separation(green, blue, bits)
        ends = []
        for e in (eu.lo, eu.hi):
            parts = {"coverage": coverage, "expert_advantage": expert,
                     "diversity": Fraction(2, 5) * e + Fraction(3, 5) * spatial_sep,
                     "continuity": cont}
            ends.append(_raw(parts, corrector))
        if round(ends[0], 2) == round(ends[1], 2):
            break
        bits *= 2
        if bits > MAX_BITS:
            raise ArithmeticError("score rounding undecided: euclid_sep enclosure too wide")
    total = Fraction(round(ends[0], 2))
    capped = False
    if circuit and round(100 * continuable, 2) == 0 and total > CAP:
        total, capped = CAP, True
    return DesignScore(total, band_of(total), capped, ends[0], ends[1], corrector, coverage,
                       expert, spatial_sep, eu, cont)
