"""The design score of docs/score.md, computed exactly (docs/score.md).

Components in [0, 1]:

- coverage  = min(1, red / (1/2))
- expert    = clamp((yellow_moves / m* - 1) / (1/4), 0, 1)
- diversity = 2/5 euclid_sep + 3/5 spatial_sep, with
  euclid_sep = min(1, (L_blue - L_green) / (L_green / 10)) and
  spatial_sep = Jaccard distance of the cells touched by green and blue
- continuity = continuable (race rule) / optimal, circuits only

Weights 25/25/20/30 (stages: 25/25/20 renormalised by their sum 70).
Corrector c = 9/10 + spatial_sep / 10. score = round(100 c Σ (w_i / W) s_i, 2),
capped at 19 on a circuit whose continuable percentage rounds to 0.00 %.

Everything is a `Fraction` except euclid_sep when it is irrational. It is
decided exactly whether it saturates (10 (L_b - L_g) >= L_g, an exact
radical comparison) and whether it is rational (L_b - L_g proportional to L_g
term by term, then the ratio is exact). Otherwise it is enclosed in a
rational interval from integer square-root bounds; the score is increasing in
euclid_sep, so both ends are scored and rounded, and the enclosure is refined
until they round alike. An irrational score is never exactly halfway between
two cents, so this ends. Rounding of exact values is half-to-even (Python's
`round` on a `Fraction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from racecert.model.radicals import RadicalSum, enclose_scaled

WEIGHTS = {"coverage": 25, "expert_advantage": 25, "diversity": 20, "continuity": 30}
MAX_BITS = 1 << 16  # enclosure precision beyond which rounding is called undecided
CAP = 19
BANDS = ((20, "rejected"), (40, "weak"), (60, "fair"), (80, "good"))


def band(total: Fraction | float) -> str:
    """The band of a score: <20 rejected, <40 weak, <60 fair, <80 good, else excellent.

    >>> band(39.99), band(40), band(80)
    ('weak', 'fair', 'excellent')
    """
    for limit, name in BANDS:
        if total < limit:
            return name
    return "excellent"


def enclose(x: RadicalSum, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= x <= hi with hi - lo <= (number of terms) / 2^bits.

    The integer enclosure of 2^bits x is `racecert.model.radicals.enclose_scaled`'s.

    >>> lo, hi = enclose(RadicalSum.sqrt_of(2), 20)
    >>> lo <= Fraction(14142135623, 10**10) <= hi, float(hi - lo) <= 2**-20
    (True, True)
    """
    lo, hi = enclose_scaled(x.terms, bits)
    den = 1 << bits
    return Fraction(lo, den), Fraction(hi, den)


@dataclass(frozen=True)
class EuclidSep:
    """euclid_sep as an exact value or a certified enclosure [lo, hi]."""

    lo: Fraction
    hi: Fraction
    exact: bool

    @property
    def value(self) -> float:
        return float((self.lo + self.hi) / 2)


def euclid_sep(green: RadicalSum, blue: RadicalSum, bits: int = 64) -> EuclidSep:
    """min(1, (blue - green) / (green / 10)), exact when rational, else enclosed."""
    diff = blue - green
    if diff.is_zero():
        return EuclidSep(Fraction(0), Fraction(0), True)
    if 10 * diff >= green:
        return EuclidSep(Fraction(1), Fraction(1), True)
    g, dd = dict(green.terms), dict(diff.terms)
    if g.keys() == dd.keys():
        ratios = {Fraction(dd[k], g[k]) for k in g}
        if len(ratios) == 1:
            r = 10 * ratios.pop()
            return EuclidSep(r, r, True)
    n_lo, n_hi = enclose(diff, bits)
    g_lo, g_hi = enclose(green, bits)
    lo = max(Fraction(0), 10 * n_lo / g_hi)
    hi = min(Fraction(1), 10 * n_hi / g_lo)
    return EuclidSep(lo, hi, False)


@dataclass(frozen=True)
class Score:
    """The score and every ingredient (floats for display, exact strings where exact)."""

    total: float
    raw: float
    band: str
    capped: bool
    circuit: bool
    corrector: Fraction
    components: dict[str, Fraction]
    spatial_sep: Fraction
    euclid: EuclidSep

    def to_json(self) -> dict[str, Any]:
        weights = {k: w for k, w in WEIGHTS.items() if self.circuit or k != "continuity"}
        total_w = sum(weights.values())
        comps: dict[str, Any] = {}
        for name, w in weights.items():
            v = self.components[name]
            entry: dict[str, Any] = {"weight": w, "effective_weight": w / total_w}
            entry["value"] = float(v)
            exact = name != "diversity" or self.euclid.exact
            entry["exact"] = str(v) if exact else None  # irrational: value is a midpoint
            comps[name] = entry
        div = comps["diversity"]
        div["euclid_sep"] = self.euclid.value
        div["euclid_sep_exact"] = str(self.euclid.lo) if self.euclid.exact else None
        div["euclid_sep_interval"] = [str(self.euclid.lo), str(self.euclid.hi)]
        div["spatial_sep"] = float(self.spatial_sep)
        div["spatial_sep_exact"] = str(self.spatial_sep)
        if not self.circuit:
            comps["continuity"] = None
        return {
            "total": self.total,
            "band": self.band,
            "raw": self.raw,
            "capped": self.capped,
            "corrector": float(self.corrector),
            "corrector_exact": str(self.corrector),
            "components": comps,
        }


def _weighted(parts: dict[str, Fraction], circuit: bool, corrector: Fraction) -> Fraction:
    weights = {k: w for k, w in WEIGHTS.items() if circuit or k != "continuity"}
    total_w = sum(weights.values())
    return 100 * corrector * sum(Fraction(w, total_w) * parts[k] for k, w in weights.items())


def compute_score(*, red: Fraction, yellow_moves: int, m_star: int, green: RadicalSum,
                  blue: RadicalSum, spatial_sep: Fraction, circuit: bool,
                  continuable: Fraction | None) -> Score:
    """The docs/score.md score. `continuable` is the race-rule fraction (needed on circuits)."""
    if circuit and continuable is None:
        raise ValueError("a circuit's score needs its continuable fraction")
    coverage = min(Fraction(1), red / Fraction(1, 2))
    expert = min(Fraction(1), max(Fraction(0), (Fraction(yellow_moves, m_star) - 1) * 4))
    corrector = Fraction(9, 10) + spatial_sep / 10
    e = euclid_sep(green, blue)
    base = {"coverage": coverage, "expert_advantage": expert,
            "continuity": continuable if circuit else Fraction(0)}

    def scored(eu: Fraction) -> tuple[Fraction, Fraction]:
        div = Fraction(2, 5) * eu + Fraction(3, 5) * spatial_sep
        raw = _weighted({**base, "diversity": div}, circuit, corrector)
        return raw, div

    bits = 64
    while True:
        raw_lo, div_lo = scored(e.lo)
        raw_hi, _ = scored(e.hi)
        if round(raw_lo, 2) == round(raw_hi, 2):
            break
        bits *= 2
        if bits > MAX_BITS:  # cannot happen: an irrational score is never a half-cent
            raise RuntimeError(f"score rounding undecided after {MAX_BITS}-bit enclosures")
        e = euclid_sep(green, blue, bits)
    rounded = round(raw_lo, 2)
    capped = False
    if circuit and continuable is not None and round(100 * continuable, 2) == 0 and rounded > CAP:
        rounded, capped = Fraction(CAP), True
    div = div_lo if e.exact else Fraction(2, 5) * ((e.lo + e.hi) / 2) + Fraction(3, 5) * spatial_sep
    comps: dict[str, Fraction] = {**base, "diversity": div}
    return Score(float(rounded), float((raw_lo + raw_hi) / 2), band(rounded), capped, circuit,
                 corrector, comps, spatial_sep, e)
