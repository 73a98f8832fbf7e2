"""Exact Euclidean lengths as integer coefficient vectors over square roots, judged by sympy.

A trajectory's length is Σ sqrt(dx² + dy²) over its moves. Each radicand n is
split by sympy (`sympy.factorint`) into n = k² · d with d squarefree, so a move
adds k to the coefficient of sqrt(d). A length is then an integer vector over
the squarefree radicands met so far (`Radicands`: column 0 is d = 1, the
integer part), and a whole layer of lengths is an integer matrix: sums and
equality are exact integer operations on rows, vectorised with numpy.

Why equal rows mean equal lengths, and only then: the square roots of distinct
squarefree integers are linearly independent over the rationals, so
Σ c_d sqrt(d) = 0 only when every c_d = 0. Ordering two different rows is a
sign decision on their difference δ ≠ 0:

1. a float value of δ with a rigorous error bound (`float_bound`) decides when
   |value| exceeds the bound;
2. otherwise sympy decides the sign of the exact expression Σ δ_d sqrt(d)
   (`sympy_sign`): its own canonical form (an exactly zero expression collapses
   to 0), then `is_positive` / `is_negative`, then evaluation with guaranteed
   accuracy (`evalf(strict=True)`) at growing precision.

The same sums travel one at a time as dicts {d: c} (`Sum`: `length`, `add`,
`compare`, `approx`, `text`), as the independent searches of the lattice and
cell-path profiles carry them; their comparisons go through the same `sign_of`.
`enclose` brackets a sum between two rationals by integer square roots (the
score's separation when it is irrational). This is the independent side's one
radical library: it shares no code with `racecert.model.radicals` (the
analysis's arithmetic), it is the independent side's judge.

>>> r = Radicands()
>>> r.split(8), r.split(9), r.split(2)
((1, 2), (0, 3), (1, 1))
>>> str(RadicalLength.from_row(np.array([3, 2]), r))
'3 + 2*sqrt(2)'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property

import numpy as np
import sympy

UNIT_ROUNDOFF = 2.0**-53
# Working precisions (decimal digits) tried by `sympy_sign` before giving up.
SYMPY_PRECISIONS = (100, 400, 1600, 6400)
# Coefficients stay exact in float64 below this (the float filter needs it).
MAX_COEFFICIENT = 2**52


class UndecidedSign(ArithmeticError):
    """sympy could not decide the sign of a nonzero radical sum within `SYMPY_PRECISIONS`."""


def squarefree_split(n: int) -> tuple[int, int]:
    """(k, d) with n = k² · d and d squarefree, from sympy's factorisation of n >= 1.

    >>> squarefree_split(72), squarefree_split(5), squarefree_split(1)
    ((6, 2), (1, 5), (1, 1))
    """
    if n < 1:
        raise ValueError(f"a move's squared length must be >= 1, not {n}")
    k = d = 1
    for p, e in sympy.factorint(n).items():
        k *= p ** (e // 2)
        d *= p ** (e % 2)
    return k, d


class Radicands:
    """The columns of the coefficient vectors: squarefree d, column 0 being d = 1.

    `split(n)` gives (column, k) for a squared move length n = k² d; columns are
    added as new radicands appear, so vectors of different ages differ only by
    trailing zero columns (`widen`).
    """

    def __init__(self) -> None:
        self.d: list[int] = [1]
        self._col: dict[int, int] = {1: 0}
        self._split: dict[int, tuple[int, int]] = {}
        self._sqrt = np.ones(1)

    @property
    def width(self) -> int:
        return len(self.d)

    @property
    def sqrt(self) -> np.ndarray:
        """Correctly rounded float sqrt(d) per column (d < 2^53 is exact in float64)."""
        if len(self._sqrt) != len(self.d):
            self._sqrt = np.sqrt(np.array(self.d, dtype=np.float64))
        return self._sqrt

    def split(self, n: int) -> tuple[int, int]:
        """(column of d, k) for n = k² d, d squarefree."""
        hit = self._split.get(n)
        if hit is None:
            k, d = squarefree_split(n)
            if d >= 2**53:
                raise ValueError(f"radicand {d} too large for the float filter")
            col = self._col.get(d)
            if col is None:
                col = self._col[d] = len(self.d)
                self.d.append(d)
            hit = self._split[n] = (col, k)
        return hit

    def split_many(self, dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per move (dx, dy): the column and multiplier k of its length sqrt(dx² + dy²)."""
        n = dx.astype(np.int64) ** 2 + dy.astype(np.int64) ** 2
        uniq, inverse = np.unique(n, return_inverse=True)
        pairs = np.array([self.split(int(v)) for v in uniq.tolist()], dtype=np.int64)
        pairs = pairs.reshape(len(uniq), 2)
        return pairs[inverse, 0], pairs[inverse, 1]

    def widen(self, rows: np.ndarray) -> np.ndarray:
        """`rows` padded with zero columns up to the current width."""
        extra = self.width - rows.shape[1]
        if extra <= 0:
            return rows
        return np.concatenate((rows, np.zeros((rows.shape[0], extra), dtype=rows.dtype)), axis=1)


def float_bound(rows: np.ndarray, radicands: Radicands) -> tuple[np.ndarray, np.ndarray]:
    """Float values of the rows Σ c_d sqrt(d) and a bound on |float - exact| for each.

    Each sqrt(d) is correctly rounded (relative error <= u), each product c·s_d
    adds <= u, and a sum of R terms in any order (BLAS, FMA or not) adds <=
    (R - 1) u (1 + small) of Σ |c_d| s_d. So the error is below (R + 2) u A (1 +
    O(Ru)) with A = Σ |c_d| sqrt(d); the bound returned, 2 (R + 3) u A_float,
    also covers A_float being itself a rounded value.
    """
    if rows.size and int(np.abs(rows).max()) >= MAX_COEFFICIENT:
        raise ValueError("coefficient too large for the float filter")
    s = radicands.sqrt[: rows.shape[1]]
    f = rows.astype(np.float64)
    value = f @ s
    mass = np.abs(f) @ s
    return value, 2.0 * (rows.shape[1] + 3) * UNIT_ROUNDOFF * mass


def to_sympy(coeffs: dict[int, int]) -> sympy.Expr:
    """The exact sympy expression Σ c sqrt(d) of a coefficient map {d: c}."""
    return sympy.Add(*(sympy.Integer(c) * sympy.sqrt(sympy.Integer(d))
                       for d, c in coeffs.items() if c))


def sympy_sign(coeffs: dict[int, int]) -> int:
    """The sign of Σ c sqrt(d), decided by sympy alone (-1, 0 or 1).

    sympy's canonical form makes an exactly zero sum the literal 0; otherwise
    `is_positive` / `is_negative` (evaluation with tracked accuracy, minimal
    polynomial for zero); if those abstain, strict evaluation (every digit
    guaranteed) at growing precision until the value has a sign.
    """
    expr = to_sympy(coeffs)
    if expr == 0:
        return 0
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    if expr.is_zero:
        return 0
    for digits in SYMPY_PRECISIONS:
        try:
            value = expr.evalf(15, maxn=digits, strict=True)
        except sympy.core.evalf.PrecisionExhausted:
            continue
        if value.is_zero is False:
            return 1 if value > 0 else -1
    raise UndecidedSign(f"sympy could not decide the sign of {expr}")


@dataclass
class SignStats:
    """How sign decisions were made: by the float filter or by sympy."""

    by_float: int = 0
    by_sympy: int = 0


def sign_of(coeffs: dict[int, int], stats: SignStats | None = None) -> int:
    """The exact sign of Σ c sqrt(d) over distinct squarefree d: float filter, then sympy.

    >>> sign_of({1: 665857, 2: -470832}), sign_of({1: 0})
    (1, 0)
    """
    live = {d: c for d, c in coeffs.items() if c}
    if not live:
        return 0
    terms = sorted(live.items())
    s = np.sqrt(np.array([d for d, _ in terms], dtype=np.float64))
    c = np.array([float(c) for _, c in terms])
    if np.abs(c).max() < MAX_COEFFICIENT and terms[-1][0] < 2**53:
        value = float(c @ s)
        bound = 2.0 * (len(terms) + 3) * UNIT_ROUNDOFF * float(np.abs(c) @ s)
        if abs(value) > bound:
            if stats is not None:
                stats.by_float += 1
            return 1 if value > 0 else -1
    if stats is not None:
        stats.by_sympy += 1
    return sympy_sign(live)


def sign_of_difference(a: np.ndarray, b: np.ndarray, radicands: Radicands,
                       stats: SignStats | None = None) -> int:
    """Sign of (row a) - (row b) exactly: 0 iff the rows are equal, else `sign_of`."""
    width = max(len(a), len(b))
    delta = np.zeros(width, dtype=np.int64)
    delta[: len(a)] += a
    delta[: len(b)] -= b
    nz = np.nonzero(delta)[0]
    return sign_of({radicands.d[int(j)]: int(delta[j]) for j in nz}, stats)


@dataclass(frozen=True)
class RadicalLength:
    """An exact length Σ c sqrt(d): `terms` ((d, c), ...) with d squarefree, increasing, c != 0.

    `str` gives the project's text form: the integer part first, then increasing
    radicand, coefficient 1 omitted, " - " for negative terms, "0" for zero.

    >>> str(RadicalLength(((1, 7), (2, 3), (5, -1))))
    '7 + 3*sqrt(2) - sqrt(5)'
    """

    terms: tuple[tuple[int, int], ...]

    @staticmethod
    def from_row(row: np.ndarray, radicands: Radicands) -> RadicalLength:
        pairs = sorted((radicands.d[j], int(row[j])) for j in np.nonzero(row)[0].tolist())
        return RadicalLength(tuple(pairs))

    @staticmethod
    def from_text(text: str) -> RadicalLength:
        """Read a length written as a sum of integers and square roots, through sympy.

        >>> str(RadicalLength.from_text("sqrt(8) + 3 + sqrt(2)"))
        '3 + 3*sqrt(2)'
        """
        expr = sympy.sympify(text, rational=True)
        coeffs: dict[int, int] = {}
        for term in sympy.Add.make_args(sympy.expand(expr)):
            c, rest = term.as_coeff_Mul()
            if rest == 1:
                d = 1
            else:
                base, exp = rest.as_base_exp()
                if exp != sympy.Rational(1, 2) or not base.is_Integer or not c.is_Integer:
                    raise ValueError(f"not a sum of integer multiples of square roots: {text!r}")
                d = int(base)
            if not c.is_Integer:
                raise ValueError(f"not a sum of integer multiples of square roots: {text!r}")
            coeffs[d] = coeffs.get(d, 0) + int(c)
        return RadicalLength(tuple(sorted((d, c) for d, c in coeffs.items() if c)))

    @cached_property
    def sympy(self) -> sympy.Expr:
        return to_sympy(dict(self.terms))

    def __float__(self) -> float:
        return float(self.sympy.evalf(30))

    def same_as(self, other: RadicalLength | str) -> bool:
        """Exact equality as sympy judges it (`other` may be text in the project's form).

        sympy writes every sqrt(n) as k sqrt(d), d squarefree, and collects equal
        radicals, so the difference of two equal sums is the literal 0.

        >>> RadicalLength(((1, 2), (2, 2))).same_as("2 + sqrt(8)")
        True
        """
        theirs = other.sympy if isinstance(other, RadicalLength) else sympy.sympify(other)
        return sympy.expand(self.sympy - theirs) == 0

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts: list[str] = []
        for i, (d, c) in enumerate(self.terms):
            mag = abs(c)
            body = str(mag) if d == 1 else (f"sqrt({d})" if mag == 1 else f"{mag}*sqrt({d})")
            if i == 0:
                parts.append(f"-{body}" if c < 0 else body)
            else:
                parts.append(f" - {body}" if c < 0 else f" + {body}")
        return "".join(parts)


# -- one sum at a time ------------------------------------------------------------------

Sum = dict[int, int]
"""Σ c sqrt(d) as {squarefree d: nonzero c} (d = 1 is the integer part)."""
Terms = tuple[tuple[int, int], ...]


@cache
def length(dx: int, dy: int) -> Terms:
    """sqrt(dx² + dy²) as ((d, c),) with d squarefree (empty for a zero move).

    >>> length(3, 4), length(2, 2), length(0, 0)
    (((1, 5),), ((2, 2),), ())
    """
    n = dx * dx + dy * dy
    if n == 0:
        return ()
    k, d = squarefree_split(n)
    return ((d, k),)


def add(a: Sum | Terms, b: Sum | Terms) -> Sum:
    """a + b (either a dict or (d, c) pairs), zero coefficients dropped.

    >>> a = add(length(3, 4), length(1, 1))   # 5 + sqrt(2)
    >>> text(a), compare(a, add(length(2, 2), length(2, 2)))  # vs 4 sqrt(2) = 5.66
    ('5 + sqrt(2)', 1)
    """
    out = dict(a.items() if isinstance(a, dict) else a)
    for d, c in (b.items() if isinstance(b, dict) else b):
        v = out.get(d, 0) + c
        if v:
            out[d] = v
        else:
            out.pop(d, None)
    return out


def compare(a: Sum, b: Sum) -> int:
    """The sign of a - b, exactly (`sign_of`: 0 only for equal sums)."""
    return sign_of(add(a, {d: -c for d, c in b.items()}))


def approx(a: Sum) -> float:
    """A float near a (for ordering candidates before the exact comparison)."""
    return sum(c * math.sqrt(d) for d, c in a.items())


def text(a: Sum) -> str:
    """The project's text form ('5 + 3*sqrt(2)'; `RadicalLength`'s)."""
    return str(RadicalLength(tuple(sorted(a.items()))))


def enclose(terms: Sum, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo <= Σ c sqrt(d) <= hi, each term within 2^-bits (integer square roots).

    >>> lo, hi = enclose({2: 1}, 10)
    >>> float(lo) <= 2 ** 0.5 <= float(hi), hi - lo <= Fraction(1, 1024)
    (True, True)
    """
    lo = hi = 0
    for d, c in terms.items():
        r = math.isqrt(c * c * d << (2 * bits))  # floor(|c| sqrt(d) 2^bits)
        exact = r * r == c * c * d << (2 * bits)
        if c >= 0:
            lo, hi = lo + r, hi + r + (0 if exact else 1)
        else:
            lo, hi = lo - r - (0 if exact else 1), hi - r
    return Fraction(lo, 1 << bits), Fraction(hi, 1 << bits)
