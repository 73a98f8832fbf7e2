"""The independent side's exact lengths: squarefree splitting, sign decisions, text forms."""

from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from racecert.independent import radical_forms as rf
from racecert.independent.radical_forms import (
    RadicalLength,
    Radicands,
    SignStats,
    float_bound,
    sign_of,
    squarefree_split,
)


def _pell(a: int, b: int, steps: int) -> tuple[int, int]:
    """Iterate (x, y) -> (3x + 4y, 2x + 3y): preserves x² - 2y²."""
    for _ in range(steps):
        a, b = 3 * a + 4 * b, 2 * a + 3 * b
    return a, b


def test_squarefree_split_matches_trial_division():
    for n in range(1, 3000):
        k, d = squarefree_split(n)
        assert k * k * d == n
        assert all(d % (p * p) for p in range(2, int(d**0.5) + 1)), (n, d)


@pytest.mark.parametrize("start, sign", [((3, 2), 1), ((1, 1), -1)])
def test_sympy_decides_a_near_tie_that_floats_cannot(start, sign):
    """x - y sqrt(2) with x² - 2y² = ±1 is within 1/(2x) of 0: at x ~ 8e8 the float
    filter's error bound exceeds |value|, so sympy must decide, and rightly."""
    x, y = _pell(*start, 10)
    assert x * x - 2 * y * y == sign  # the exact truth, by integers
    row = np.array([[x, -y]], dtype=np.int64)
    r = Radicands()
    r.split(2)
    value, bound = float_bound(row, r)
    assert abs(value[0]) <= bound[0]  # floats cannot separate it from 0
    stats = SignStats()
    assert sign_of({1: x, 2: -y}, stats) == sign
    assert stats.by_sympy == 1 and stats.by_float == 0


def test_float_filter_decides_clear_cases():
    stats = SignStats()
    assert sign_of({1: 3, 2: -2}, stats) == 1  # 3 - 2.83
    assert sign_of({2: 1, 3: 1, 1: -4}, stats) == -1  # 1.41 + 1.73 - 4
    assert stats.by_float == 2 and stats.by_sympy == 0


@given(st.dictionaries(st.sampled_from((1, 2, 3, 5, 6, 7, 10, 13)),
                       st.integers(-60, 60), max_size=5))
def test_sign_agrees_with_high_precision_decimal(coeffs):
    getcontext().prec = 80
    value = sum(Decimal(c) * Decimal(d).sqrt() for d, c in coeffs.items())
    truth = 0 if all(c == 0 for c in coeffs.values()) else (1 if value > 0 else -1)
    assert sign_of(coeffs) == truth


def test_sign_with_a_crippled_float_filter_goes_to_sympy(monkeypatch):
    monkeypatch.setattr(rf, "UNIT_ROUNDOFF", 0.25)
    stats = SignStats()
    assert sign_of({1: 3, 2: -2}, stats) == 1
    assert sign_of({1: 1393, 2: -985}, stats) == -1
    assert stats.by_sympy == 2


def test_text_form_and_sympy_equality():
    r = Radicands()
    cols = [r.split(n) for n in (8, 5, 9)]
    row = np.zeros(r.width, dtype=np.int64)
    for col, k in cols:
        row[col] += k
    length = RadicalLength.from_row(row, r)
    assert str(length) == "3 + 2*sqrt(2) + sqrt(5)"
    assert RadicalLength.from_text(str(length)) == length
    assert length.same_as("sqrt(5) + sqrt(8) + 3")
    assert not length.same_as("3 + 2*sqrt(2) + sqrt(6)")
    assert str(RadicalLength(())) == "0"
    with pytest.raises(ValueError):
        RadicalLength.from_text("sqrt(2)/2")
