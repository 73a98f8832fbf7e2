"""The design score: hand-worked examples (docs/score.md), cap, bands, certified rounding."""

from __future__ import annotations

from decimal import Decimal, getcontext
from fractions import Fraction

import pytest

from racecert.analysis.score import band, compute_score, enclose, euclid_sep
from racecert.model.radicals import RadicalSum

R = RadicalSum.from_int


def worked(circuit: bool, continuable=Fraction(1, 2)):
    return compute_score(red=Fraction(3, 10), yellow_moves=12, m_star=10, green=R(20),
                         blue=R(21), spatial_sep=Fraction(1, 4), circuit=circuit,
                         continuable=continuable)


def test_worked_example_circuit() -> None:
    """coverage 3/5, expert 4/5, diversity 2/5*1/2 + 3/5*1/4 = 7/20, continuity 1/2.

    (25*3/5 + 25*4/5 + 20*7/20 + 30*1/2) / 100 = 57/100; c = 9/10 + 1/40 = 37/40;
    100 * 37/40 * 57/100 = 52.725 exactly, rounded half-to-even: 52.72.
    """
    s = worked(True)
    assert s.components == {"coverage": Fraction(3, 5), "expert_advantage": Fraction(4, 5),
                            "diversity": Fraction(7, 20), "continuity": Fraction(1, 2)}
    assert s.corrector == Fraction(37, 40)
    assert s.euclid.exact and s.euclid.lo == Fraction(1, 2)
    assert s.total == 52.72 and s.band == "fair" and not s.capped


def test_worked_example_stage_renormalises() -> None:
    """(15 + 20 + 7) / 70 = 3/5; 100 * 37/40 * 3/5 = 55.5."""
    s = worked(False, None)
    assert s.total == 55.5
    assert s.to_json()["components"]["continuity"] is None
    assert s.to_json()["components"]["coverage"]["effective_weight"] == pytest.approx(25 / 70)


def test_cap_when_continuable_rounds_to_zero() -> None:
    s = worked(True, Fraction(1, 10**6))  # 0.0001 % rounds to 0.00 %
    assert s.capped and s.total == 19 and s.band == "rejected"
    assert s.raw > 19
    assert not worked(True, Fraction(1, 10**4)).capped  # 0.01 % is shown as 0.01 %


def test_saturation_and_clamps() -> None:
    s = compute_score(red=Fraction(9, 10), yellow_moves=9, m_star=10, green=R(10),
                      blue=R(12), spatial_sep=Fraction(1), circuit=False, continuable=None)
    assert s.components["coverage"] == 1
    assert s.components["expert_advantage"] == 0  # yellow shorter in moves: clamped at 0
    assert s.euclid.lo == s.euclid.hi == 1  # 10 * 2 >= 10
    assert s.components["diversity"] == 1


def test_irrational_euclid_sep_is_enclosed_and_rounding_certified() -> None:
    green, blue = R(10), 9 + RadicalSum.sqrt_of(2)
    e = euclid_sep(green, blue)
    assert not e.exact and e.lo < e.hi and e.hi - e.lo < Fraction(1, 10**15)
    getcontext().prec = 50
    true = (Decimal(2).sqrt() - 1)  # 10 * (sqrt 2 - 1) / 10
    assert Decimal(e.lo.numerator) / Decimal(e.lo.denominator) <= true
    assert true <= Decimal(e.hi.numerator) / Decimal(e.hi.denominator)
    s = compute_score(red=Fraction(1, 5), yellow_moves=10, m_star=10, green=green, blue=blue,
                      spatial_sep=Fraction(0), circuit=False, continuable=None)
    # 100 * 9/10 * (25 * 2/5 + 20 * 2/5 * (sqrt2 - 1)) / 70
    value = Decimal(100) * Decimal("0.9") * (10 + 8 * true) / 70
    assert s.total == float(round(value, 2))


def test_rational_ratio_is_exact() -> None:
    """blue - green proportional to green: 10 sqrt 2 vs 21/2 ... here 20 sqrt 2 vs 21 sqrt 2."""
    e = euclid_sep(20 * RadicalSum.sqrt_of(2), 21 * RadicalSum.sqrt_of(2))
    assert e.exact and e.lo == e.hi == Fraction(1, 2)


def test_enclose_brackets() -> None:
    x = 3 - 2 * RadicalSum.sqrt_of(2)  # 0.1715...
    lo, hi = enclose(x, 40)
    assert lo <= Fraction(1715728752538, 10**13) <= hi and hi - lo <= Fraction(2, 2**40)


def test_bands() -> None:
    assert [band(v) for v in (0, 19.99, 20, 39.99, 40, 59.99, 60, 79.99, 80, 100)] == [
        "rejected", "rejected", "weak", "weak", "fair", "fair", "good", "good",
        "excellent", "excellent"]


def test_circuit_needs_continuity() -> None:
    with pytest.raises(ValueError, match="continuable"):
        worked(True, None)
