"""Tests for racecert.model.radicals: exact radical sums and their certified ordering.

Reference answers come from sources independent of the code under test: hand-worked algebra,
integer identities (``sign(p - q*sqrt(d)) == sign(p*p - q*q*d)`` for ``p, q >= 0``), and sympy's
own normalization of square roots plus 100-digit evaluation.
"""

from __future__ import annotations

import doctest
import itertools
import math

import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from racecert.model import radicals
from racecert.model.radicals import (
    RadicalForms,
    RadicalSum,
    compare,
    length_of_moves,
    squarefree_decomposition,
)

S = RadicalSum.sqrt_of

# Near-integer relations among 1, sqrt(2), sqrt(3), sqrt(5), sqrt(7), sqrt(11), found offline
# with PSLQ; coefficient tuples are for radicands (1, 2, 3, 5, 7, 11). Each is nonzero; the sign
# and approximate magnitude were computed with sympy at 60 digits and are re-checked below.
PSLQ_RADICANDS = (1, 2, 3, 5, 7, 11)
PSLQ_RELATIONS = [
    ((11431, -4926, -41, -919, 3832, -3762), 1, 4.0e-20),
    ((-179635, 205451, 92253, -43082, 365423, -344081), -1, 1.7e-30),
    ((-17385385, 33942660, 101510116, -19151387, -79239841, 13880151), -1, 1.3e-40),
]


def sympy_sign(expr: sympy.Expr) -> int:
    """Exact sign of a sympy sum of square roots: structural zero, else 100-digit evaluation."""
    expr = sympy.expand(expr)
    if expr == 0:
        return 0
    value = expr.evalf(100)
    assert abs(value) > sympy.Float("1e-80", 100), f"reference too close to zero: {expr}"
    return 1 if value > 0 else -1


def raw_to_sympy(pairs: list[tuple[int, int]]) -> sympy.Expr:
    """sympy value of ``sum(c*sqrt(n))`` built from raw (non-canonical) pairs."""
    return sympy.Add(*(sympy.Integer(c) * sympy.sqrt(sympy.Integer(n)) for n, c in pairs))


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


raw_pairs = st.lists(
    st.tuples(st.integers(0, 300), st.integers(-30, 30)),
    max_size=6,
)
small_sums = raw_pairs.map(RadicalSum.from_terms)


# --------------------------------------------------------------------------------------------
# Squarefree decomposition
# --------------------------------------------------------------------------------------------


def test_squarefree_decomposition_matches_sympy_factorint_up_to_3000() -> None:
    for n in range(1, 3001):
        k, d = squarefree_decomposition(n)
        expected_k = 1
        expected_d = 1
        for p, e in sympy.factorint(n).items():
            expected_k *= p ** (e // 2)
            expected_d *= p ** (e % 2)
        assert (k, d) == (expected_k, expected_d), n


@given(st.integers(1, 10**12))
@settings(deadline=None)
def test_squarefree_decomposition_random_large(n: int) -> None:
    k, d = squarefree_decomposition(n)
    assert k * k * d == n
    assert all(e == 1 for e in sympy.factorint(d).values())


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, (1, 1)),
        (2, (1, 2)),
        (4, (2, 1)),
        (8, (2, 2)),
        (12, (2, 3)),
        (50, (5, 2)),
        (72, (6, 2)),
        (2**61, (2**30, 2)),
        (3 * (10**9 + 7) ** 2, (10**9 + 7, 3)),  # remainder is a large prime squared
        ((10**6 + 3) * (10**6 + 33), (1, (10**6 + 3) * (10**6 + 33))),  # two large primes
        (7**3 * 11**4, (7 * 121, 7)),
    ],
)
def test_squarefree_decomposition_hand_cases(n: int, expected: tuple[int, int]) -> None:
    assert squarefree_decomposition(n) == expected


def test_squarefree_decomposition_rejects_nonpositive() -> None:
    with pytest.raises(ValueError):
        squarefree_decomposition(0)
    with pytest.raises(ValueError):
        squarefree_decomposition(-4)


# --------------------------------------------------------------------------------------------
# Construction and canonical form
# --------------------------------------------------------------------------------------------


def test_hand_worked_identities() -> None:
    assert S(8).terms == ((2, 2),)
    assert S(8) == 2 * S(2)
    assert S(2) + S(8) == 3 * S(2)
    assert (S(2) + S(8)).terms == ((2, 3),)
    assert S(50) - 5 * S(2) == RadicalSum.zero()
    assert (S(50) - 5 * S(2)).terms == ()
    assert S(0) == 0
    assert S(1).terms == ((1, 1),)
    assert S(49) == 7
    assert S(12) + S(27) == 5 * S(3)
    assert S(18) - S(8) == S(2)
    assert RadicalSum.of_vector(3, 4) == 5
    assert RadicalSum.of_vector(-1, 1) == S(2)
    assert RadicalSum.of_vector(2, 6) == 2 * S(10)
    assert RadicalSum.of_vector(0, 0) == RadicalSum.zero()


def test_sqrt_of_is_memoized_and_shared() -> None:
    assert S(98) is S(98)
    assert S(98).terms == ((2, 7),)


def test_sqrt_of_rejects_negative_and_non_integers() -> None:
    with pytest.raises(ValueError):
        S(-1)
    with pytest.raises(TypeError):
        S(2.0)  # type: ignore[arg-type]


def test_constructor_rejects_non_canonical_forms() -> None:
    with pytest.raises(ValueError):
        RadicalSum(((4, 1),))  # not squarefree
    with pytest.raises(ValueError):
        RadicalSum(((2, 0),))  # zero coefficient
    with pytest.raises(ValueError):
        RadicalSum(((3, 1), (2, 1)))  # not sorted
    with pytest.raises(ValueError):
        RadicalSum(((2, 1), (2, 1)))  # repeated radicand
    with pytest.raises(ValueError):
        RadicalSum(((0, 1),))
    with pytest.raises(TypeError):
        RadicalSum(((2, 1.5),))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        RadicalSum([(2, 1)])  # type: ignore[arg-type]
    assert RadicalSum(((1, 3), (2, -1), (6, 5))).terms == ((1, 3), (2, -1), (6, 5))


def test_frozen_and_hashable() -> None:
    a = S(2) + 1
    with pytest.raises(AttributeError):
        a.terms = ()  # type: ignore[misc]
    table = {a: "x", S(8): "y"}
    assert table[RadicalSum.parse("1 + sqrt(2)")] == "x"
    assert table[2 * S(2)] == "y"
    # an integer-valued sum equals and hashes like the int
    assert RadicalSum.from_int(5) == 5
    assert hash(RadicalSum.from_int(5)) == hash(5)
    assert hash(RadicalSum.zero()) == hash(0)
    assert {5: "five"}[S(25)] == "five"
    assert S(2) != 2
    assert (S(2) == 1.4142135623730951) is False


def test_arithmetic_with_ints() -> None:
    a = S(2)
    assert (a + 3).terms == ((1, 3), (2, 1))
    assert (3 + a) == a + 3
    assert (3 - a).terms == ((1, 3), (2, -1))
    assert (a - 3).terms == ((1, -3), (2, 1))
    assert (-a).terms == ((2, -1),)
    assert 0 * a == 0
    assert (a * -4).terms == ((2, -4),)
    assert sum([S(2), S(8), S(9)], RadicalSum.zero()) == 3 + 3 * S(2)
    assert sum([S(2), S(3)]) == S(3) + S(2)  # sum() starts from int 0
    assert abs(S(2) - 2) == 2 - S(2)
    assert abs(S(2)) == S(2)


@given(raw_pairs, raw_pairs)
@settings(deadline=None)
def test_arithmetic_matches_sympy(p: list[tuple[int, int]], q: list[tuple[int, int]]) -> None:
    a = RadicalSum.from_terms(p)
    b = RadicalSum.from_terms(q)
    assert sympy.expand((a + b).to_sympy() - raw_to_sympy(p) - raw_to_sympy(q)) == 0
    assert sympy.expand((a - b).to_sympy() - raw_to_sympy(p) + raw_to_sympy(q)) == 0
    assert sympy.expand((3 * a).to_sympy() - 3 * raw_to_sympy(p)) == 0
    # canonical-form invariants
    for s in (a, b, a + b, a - b):
        ds = [d for d, _ in s.terms]
        assert ds == sorted(set(ds))
        assert all(c != 0 for _, c in s.terms)
        assert all(squarefree_decomposition(d)[0] == 1 for d in ds)


@given(st.lists(st.tuples(st.integers(-40, 40), st.integers(-40, 40)), max_size=30))
@settings(deadline=None)
def test_length_of_moves_matches_sympy(moves: list[tuple[int, int]]) -> None:
    expected = sympy.Add(*(sympy.sqrt(vx * vx + vy * vy) for vx, vy in moves))
    got = length_of_moves(moves)
    assert sympy.expand(got.to_sympy() - expected) == 0
    assert got == sum((RadicalSum.of_vector(vx, vy) for vx, vy in moves), RadicalSum.zero())


def test_length_of_moves_hand_case() -> None:
    assert length_of_moves([(3, 4), (1, 1), (0, 0), (2, 2), (-1, -1)]) == 5 + 4 * S(2)
    assert length_of_moves([]) == 0
    assert length_of_moves(iter([(1, 2), (2, 1)])) == 2 * S(5)


# --------------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------------


def test_compare_simple() -> None:
    assert compare(S(2), S(3)) == -1
    assert compare(S(3), S(2)) == 1
    assert compare(2, S(3)) == 1
    assert compare(S(4), 2) == 0
    assert S(2) < S(3) <= S(3) < 2 < S(5) > S(2) >= S(2)


def test_compare_hand_worked_values() -> None:
    # sqrt(2) + sqrt(3) = 3.1462... < sqrt(10) = 3.1622...
    assert compare(S(2) + S(3), S(10)) == -1
    # sqrt(5) + sqrt(6) = 4.6855... < sqrt(22) = 4.6904...
    assert compare(S(5) + S(6), S(22)) == -1
    # 3 - 2*sqrt(2) = 0.1715... > 0 and 17 - 12*sqrt(2) = 0.0294... > 0 (Pell)
    assert compare(3, 2 * S(2)) == 1
    assert compare(17, 12 * S(2)) == 1
    assert compare(16, 12 * S(2)) == -1


def test_exactly_equal_sums_written_differently() -> None:
    a = S(8) + S(18) + S(12) + 1
    b = RadicalSum.parse("5*sqrt(2) + 2*sqrt(3) + sqrt(1)")
    c = RadicalSum.from_terms([(2, 5), (3, 1), (3, 1), (1, 1), (27, 0)])
    # moves: 2*sqrt(2) + 3*sqrt(2) + 1 + 2, then + 2*sqrt(3) - 2
    d = length_of_moves([(2, 2), (3, 3), (0, 1), (2, 0)]) + S(12) - S(4)
    assert a == b == c == d
    assert compare(a, b) == 0 and compare(b, c) == 0 and compare(d, a) == 0
    assert a.terms == ((1, 1), (2, 5), (3, 2))


def test_famously_close_five_term_sums() -> None:
    # Closest pair of 5-term sums of square roots of distinct squarefree numbers in 2..59
    # (found by exhaustive float search offline, sign re-checked by sympy here): ~1.43e-12.
    left = [2, 34, 42, 55, 57]
    right = [5, 30, 37, 53, 58]
    a = sum((S(n) for n in left), RadicalSum.zero())
    b = sum((S(n) for n in right), RadicalSum.zero())
    expected = sympy_sign(sum(sympy.sqrt(n) for n in left) - sum(sympy.sqrt(n) for n in right))
    gap = (b - a).to_sympy().evalf(50)
    assert 1.4e-12 < gap < 1.5e-12
    assert compare(a, b) == expected == -1
    assert compare(b, a) == 1
    assert a != b
    assert a < b and b > a
    # sqrt(2)+sqrt(3)+sqrt(5)+sqrt(7)+sqrt(11) = 11.3453... against sums of similar size
    primes = S(2) + S(3) + S(5) + S(7) + S(11)
    for other in (S(6) + S(10) + S(13) + S(14), 12 + S(2) - S(3), 13 - S(3), S(170)):
        exp = sympy_sign(primes.to_sympy() - other.to_sympy())
        assert compare(primes, other) == exp


@pytest.mark.parametrize(("coeffs", "expected_sign", "magnitude"), PSLQ_RELATIONS)
def test_pslq_near_zero_combinations_need_exact_stage(
    coeffs: tuple[int, ...], expected_sign: int, magnitude: float
) -> None:
    pairs = list(zip(PSLQ_RADICANDS, coeffs, strict=True))
    pos = RadicalSum.from_terms([(d, c) for d, c in pairs if c > 0])
    neg = RadicalSum.from_terms([(d, -c) for d, c in pairs if c < 0])
    diff = pos - neg
    ref = diff.to_sympy().evalf(100)
    assert sympy_sign(diff.to_sympy()) == expected_sign
    assert float(abs(ref)) == pytest.approx(magnitude, rel=0.1)
    # the float filter must abstain: the values are ~1e5..1e9, the difference ~1e-20..1e-40
    assert radicals._float_sign(diff.terms) is None
    assert compare(pos, neg) == expected_sign
    assert compare(neg, pos) == -expected_sign
    assert diff.sign() == expected_sign
    assert (pos < neg) == (expected_sign < 0)
    assert pos != neg


# Nonzero values of size ~1e-20 (about 2**-66, below the first enclosure width 2**-64 of the exact
# stage) whose positive part has several irrational terms with unrelated fractional parts. Found
# offline with PSLQ, chosen because an enclosure that forgets the "+1" of even one irrational
# term reports the wrong sign on them. All are positive; magnitudes were checked with sympy.
TIGHT_ENCLOSURE_CASES = [
    ((1, 3236), (2, 110), (3, -2666), (5, 2525), (10, -1726), (11, 313)),
    ((1, 936), (2, 1375), (10, 86), (13, -3226), (14, 51), (15, 2140)),
    ((1, 9866), (3, 23955), (7, 30207), (11, -64490), (15, 2732), (17, 17470)),
    ((1, -4172), (3, 6541), (10, -5858), (21, 6023), (22, -3961), (23, 489)),
    ((1, -256), (5, 372), (10, -2572), (13, 139), (19, 782), (21, 796)),
    ((1, -2012), (5, 64), (11, -3850), (15, 1720), (17, 1037), (19, 849)),
]


@pytest.mark.parametrize("terms", TIGHT_ENCLOSURE_CASES)
def test_values_below_first_enclosure_width(terms: tuple[tuple[int, int], ...]) -> None:
    value = RadicalSum(terms)
    ref = value.to_sympy().evalf(100)
    assert sympy.Float("1e-22", 100) < ref < sympy.Float("1e-19", 100)
    assert radicals._float_sign(terms) is None
    assert radicals._exact_sign(terms) == 1
    assert radicals._exact_sign((-value).terms) == -1
    assert value.sign() == 1 and (-value).sign() == -1
    pos = RadicalSum(tuple((d, c) for d, c in terms if c > 0))
    neg = RadicalSum(tuple((d, -c) for d, c in terms if c < 0))
    assert compare(pos, neg) == 1
    assert compare(neg, pos) == -1


def _pell_solutions(d: int, count: int) -> list[tuple[int, int]]:
    """First ``count`` positive solutions of x^2 - d*y^2 = 1 (by powering the fundamental one)."""
    y = 1
    while True:
        x = math.isqrt(d * y * y + 1)
        if x * x == d * y * y + 1:
            break
        y += 1
    x1, y1 = x, y
    out = [(x1, y1)]
    while len(out) < count:
        x, y = out[-1]
        out.append((x * x1 + d * y * y1, x * y1 + y * x1))
    return out


@pytest.mark.parametrize("d", [2, 3, 5, 6, 7, 13])
def test_pell_near_ties(d: int) -> None:
    # x - y*sqrt(d) = 1/(x + y*sqrt(d)) > 0, arbitrarily small; 2x - (2y)*sqrt(d) likewise.
    for x, y in _pell_solutions(d, 25):
        assert x * x - d * y * y == 1
        a = RadicalSum.from_int(x)
        b = y * S(d)
        assert compare(a, b) == 1
        assert compare(b, a) == -1
        assert compare(a + S(d), b + S(d)) == 1  # same tiny gap, more terms
        assert compare(a - 1, b) == -1
        assert a != b


def _unit_powers(d: int, x1: int, y1: int, count: int) -> list[tuple[int, int]]:
    """Powers ``(x + y*sqrt(d)) = (x1 + y1*sqrt(d))**k`` for ``k = 1..count``."""
    out = [(x1, y1)]
    while len(out) < count:
        x, y = out[-1]
        out.append((x * x1 + d * y * y1, x * y1 + y * x1))
    return out


@pytest.mark.parametrize(("d", "x1", "y1"), [(2, 1, 1), (5, 2, 1), (10, 3, 1), (13, 18, 5)])
def test_units_of_norm_minus_one_cover_every_refinement_scale(d: int, x1: int, y1: int) -> None:
    # x^2 - d*y^2 alternates between -1 and +1 over the powers of a unit of norm -1, so
    # |x - y*sqrt(d)| = 1/(x + y*sqrt(d)) sweeps geometrically from ~1 down to ~2^-300, with both
    # signs and both orientations. This lands values inside every enclosure width the exact
    # refinement uses (2^-64, 2^-128, 2^-256), where a mis-rounded interval end would show.
    assert x1 * x1 - d * y1 * y1 == -1
    extra = S(3) - S(7) + 5  # shared terms that cancel in the difference
    for x, y in _unit_powers(d, x1, y1, 200):
        if x.bit_length() > 320:
            break
        expected = sign(x * x - d * y * y)
        assert expected in (-1, 1)
        rat = RadicalSum.from_int(x)
        rad = y * S(d)
        assert compare(rat, rad) == expected
        assert compare(rad, rat) == -expected
        assert compare(rat + extra, rad + extra) == expected
        assert compare(-rat, -rad) == -expected
        assert radicals._exact_sign(((1, x), (d, -y))) == expected
        assert radicals._exact_sign(((1, -x), (d, y))) == -expected
        # (x - y*sqrt(d)) * (sqrt(3) + sqrt(5) + sqrt(7)): several irrational terms per sign,
        # so the enclosure widths of distinct terms add up and must all be accounted for.
        spread = [(m, x) for m in (3, 5, 7)] + [(m * d, -y) for m in (3, 5, 7)]
        pos = RadicalSum.from_terms([(n, c) for n, c in spread if c > 0])
        neg = RadicalSum.from_terms([(n, -c) for n, c in spread if c < 0])
        assert compare(pos, neg) == expected
        assert compare(neg, pos) == -expected
        assert radicals._exact_sign((pos - neg).terms) == expected
        assert radicals._exact_sign((neg - pos).terms) == -expected


def test_huge_coefficients_beyond_float_range() -> None:
    big = 10**400
    a = big * S(2) + 1
    b = big * S(2)
    assert compare(a, b) == 1
    assert compare(b, a) == -1


def test_huge_coefficients_sign_correct() -> None:
    big = 10**400
    assert compare(big * S(3), big * S(2) + big) == -1
    assert compare(big * S(3) + 1, big * S(3)) == 1
    assert radicals._float_sign(((2, big), (3, -big))) is None  # overflow: abstain
    assert RadicalSum.sqrt_of(10**800 * 2) == big * S(2)


@given(small_sums, small_sums)
@settings(deadline=None)
def test_compare_agrees_with_sympy(a: RadicalSum, b: RadicalSum) -> None:
    expected = sympy_sign(a.to_sympy() - b.to_sympy())
    assert compare(a, b) == expected
    assert compare(b, a) == -expected
    assert (a < b) == (expected < 0)
    assert (a <= b) == (expected <= 0)
    assert (a > b) == (expected > 0)
    assert (a >= b) == (expected >= 0)
    assert (a == b) == (expected == 0)


@given(raw_pairs, raw_pairs)
@settings(deadline=None)
def test_equality_agrees_with_sympy_on_raw_input(
    p: list[tuple[int, int]], q: list[tuple[int, int]]
) -> None:
    # sympy normalizes the raw radicands independently of squarefree_decomposition
    expected = sympy_sign(raw_to_sympy(p) - raw_to_sympy(q))
    a = RadicalSum.from_terms(p)
    b = RadicalSum.from_terms(q)
    assert compare(a, b) == expected
    assert (a == b) == (expected == 0)


@given(small_sums, small_sums)
def test_never_ties_distinct_canonical_forms(a: RadicalSum, b: RadicalSum) -> None:
    assert (compare(a, b) == 0) == (a.terms == b.terms)
    assert (a == b) == (a.terms == b.terms)


@given(
    st.integers(1, 10**30),
    st.sampled_from([2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19, 21, 1009, 999983]),
    st.integers(-2, 2),
    small_sums,
)
def test_tight_integer_vs_radical_against_integer_oracle(
    q: int, d: int, delta: int, shift: RadicalSum
) -> None:
    # p ~ q*sqrt(d): sign(p - q*sqrt(d)) == sign(p^2 - q^2*d) for p >= 0, and p^2 != q^2*d.
    p = math.isqrt(q * q * d) + delta
    assume(p >= 0)
    expected = sign(p * p - q * q * d)
    a = RadicalSum.from_int(p) + shift
    b = q * S(d) + shift
    assert compare(a, b) == expected
    assert expected != 0
    # whenever the float filter answers, it must be right
    f = radicals._float_sign((a - b).terms)
    assert f is None or f == expected


@given(
    st.integers(1, 10**25),
    st.integers(1, 10**25),
    st.sampled_from([2, 3, 5, 7, 11, 101]),
    st.sampled_from([6, 10, 13, 17, 103, 997]),
)
def test_two_radicals_against_integer_oracle(p: int, q: int, d: int, e: int) -> None:
    # sign(p*sqrt(d) - q*sqrt(e)) == sign(p^2*d - q^2*e); choose q to make them nearly equal.
    q = max(1, math.isqrt(p * p * d // e) + (q % 3) - 1)
    expected = sign(p * p * d - q * q * e)
    assert compare(p * S(d), q * S(e)) == expected
    assert expected != 0


@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 5, 6, 7]), st.integers(-(10**6), 10**6))))
def test_float_filter_never_contradicts_exact_refinement(pairs: list[tuple[int, int]]) -> None:
    terms = RadicalSum.from_terms(pairs).terms
    assume(len(terms) >= 2)
    f = radicals._float_sign(terms)
    assert f is None or f == radicals._exact_sign(terms)


def test_exact_sign_refuses_zero() -> None:
    with pytest.raises(ValueError):
        radicals._exact_sign(())


@given(st.lists(small_sums, min_size=2, max_size=8))
@settings(deadline=None)
def test_sorting_agrees_with_sympy(values: list[RadicalSum]) -> None:
    ours = sorted(values)
    for x, y in itertools.pairwise(ours):
        assert sympy_sign(x.to_sympy() - y.to_sympy()) <= 0


def test_compare_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        compare(S(2), 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _ = S(2) < 1.5  # type: ignore[operator]


# --------------------------------------------------------------------------------------------
# Text and conversions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (RadicalSum.zero(), "0"),
        (RadicalSum.from_int(7), "7"),
        (RadicalSum.from_int(-7), "-7"),
        (S(2), "sqrt(2)"),
        (-S(2), "-sqrt(2)"),
        (3 * S(2) + 7, "7 + 3*sqrt(2)"),
        (7 - 3 * S(2), "7 - 3*sqrt(2)"),
        (S(3) - S(2) - 1, "-1 - sqrt(2) + sqrt(3)"),
        (-2 * S(5) + S(6), "-2*sqrt(5) + sqrt(6)"),
    ],
)
def test_str_hand_cases(value: RadicalSum, text: str) -> None:
    assert str(value) == text
    assert RadicalSum.parse(text) == value


@given(small_sums)
def test_str_parse_round_trip(a: RadicalSum) -> None:
    text = str(a)
    assert RadicalSum.parse(text) == a
    assert RadicalSum.parse(text).terms == a.terms
    assert str(RadicalSum.parse(text)) == text


@given(small_sums)
@settings(deadline=None)
def test_str_is_sympy_readable(a: RadicalSum) -> None:
    assert sympy.expand(sympy.sympify(str(a)) - a.to_sympy()) == 0


def test_parse_lenient_forms() -> None:
    assert RadicalSum.parse("  sqrt( 8 )+ 2 * sqrt(2)-1 ") == 4 * S(2) - 1
    assert RadicalSum.parse("-0") == 0
    assert RadicalSum.parse("+3") == 3
    assert RadicalSum.parse("sqrt(12) - 2*sqrt(3)") == 0


@pytest.mark.parametrize(
    "text",
    ["", "   ", "2 3", "sqrt(-2)", "3*sqrt2", "+", "1 +", "sqrt(2)*3", "1.5", "x", "--1", "sqrt()"],
)
def test_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError):
        RadicalSum.parse(text)


@given(small_sums)
@settings(deadline=None)
def test_to_float_close_to_sympy(a: RadicalSum) -> None:
    expected = float(a.to_sympy().evalf(50))
    scale = sum(abs(c) * math.sqrt(d) for d, c in a.terms) + 1.0
    assert abs(a.to_float() - expected) <= 1e-14 * scale


def test_to_sympy_hand_case() -> None:
    assert RadicalSum.parse("7 + 3*sqrt(2)").to_sympy() == 7 + 3 * sympy.sqrt(2)
    assert RadicalSum.zero().to_sympy() == 0


def test_predicates() -> None:
    assert RadicalSum.zero().is_zero()
    assert not S(2).is_zero()
    assert S(9).is_integer() and RadicalSum.zero().is_integer()
    assert not (S(2) + 1).is_integer()
    assert (S(2) + 4).integer_part() == 4
    assert S(2).integer_part() == 0
    assert (1 - S(2)).sign() == -1
    assert RadicalSum.zero().sign() == 0


def test_docstring_examples() -> None:
    result = doctest.testmod(radicals, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 20
    assert result.failed == 0


def test_pickle_and_integer_like_inputs() -> None:
    import pickle

    import numpy as np

    a = RadicalSum.parse("7 + 3*sqrt(2)")
    assert pickle.loads(pickle.dumps(a)) == a
    b = RadicalSum.of_vector(np.int64(2), np.int64(2))
    assert b == 2 * S(2)
    assert all(type(d) is int and type(c) is int for d, c in b.terms)
    assert RadicalSum.from_terms([(np.int64(12), np.int64(2))]).terms == ((3, 4),)


# -- interned forms (vectorised, used by the Dijkstra search) --------------------------------


def test_forms_are_the_radical_sums_of_random_move_sequences() -> None:
    """Random move sequences, extended one move at a time in a batch: each (integer part,
    id) pair is exactly the sequence's `length_of_moves`; equal pairs iff equal sums, and
    the integer parts order the sums wherever the ids agree."""
    import random

    rnd = random.Random(7)
    seqs = [[(rnd.randint(-4, 4), rnd.randint(-4, 4)) for _ in range(5)] for _ in range(300)]
    seqs += [list(reversed(q)) for q in seqs[:100]]  # same lengths, other order
    f = RadicalForms()
    ip, ir = np.zeros(len(seqs), np.int64), np.zeros(len(seqs), np.int64)
    for step in range(5):
        vx = np.array([q[step][0] for q in seqs])
        vy = np.array([q[step][1] for q in seqs])
        ip, ir = f.extend(ip, ir, vx, vy)
    forms = list(zip(ip.tolist(), ir.tolist(), strict=True))
    exact = [length_of_moves(q) for q in seqs]
    assert [f.value(a, b) for a, b in forms] == exact
    assert all(f.part(b).integer_part() == 0 for _, b in forms)
    for i in range(len(seqs)):
        for j in range(0, len(seqs), 7):
            assert (forms[i] == forms[j]) == (exact[i] == exact[j])
            if forms[i][1] == forms[j][1]:
                assert (forms[i][0] < forms[j][0]) == (exact[i] < exact[j])
