"""Exact arithmetic on sums of square roots of integers.

A Racetrack trajectory is a sequence of moves; a move with velocity ``(vx, vy)`` has Euclidean
length ``sqrt(vx**2 + vy**2)``. The length of a trajectory is therefore a *radical sum*
``c_1*sqrt(d_1) + ... + c_m*sqrt(d_m)`` with integer coefficients. Certifying that one trajectory
is shorter than (or exactly as long as) another must not depend on floating-point luck, so this
module represents such sums exactly and orders them with a method that is always right.

Canonical form
    A :class:`RadicalSum` stores a tuple of ``(d, c)`` pairs sorted by strictly increasing ``d``,
    where every ``d >= 1`` is squarefree and every ``c`` is a nonzero ``int``. The pair
    ``(1, c)`` is the integer (rational) part. Zero is the empty tuple.

Why equality is structural
    Square roots of distinct squarefree positive integers are linearly independent over the
    rationals (Besicovitch, 1940). Hence ``sum(c_i*sqrt(d_i)) == 0`` with distinct squarefree
    ``d_i`` holds only if every ``c_i`` is zero, and two radical sums are equal as real numbers
    exactly when their canonical forms are identical. No numerical test is ever needed to decide
    equality, and a nonzero canonical form has a definite sign.

Why ordering is always right
    :func:`compare` decides the sign of ``a - b``. It first evaluates the difference in IEEE-754
    double precision together with a rigorous bound on the rounding error and answers only if
    the float lies outside that bound. Otherwise it falls back to exact integer arithmetic: it
    encloses ``|c|*sqrt(d)*2**k`` between ``isqrt(c*c*d*4**k)`` and that plus one, sums the
    enclosures and doubles ``k`` until the interval excludes zero. Because the difference is a
    nonzero real number (see above), the interval, whose width is bounded by the number of terms
    divided by ``2**k``, eventually excludes zero, so the loop terminates. A tie is reported only
    for identical canonical forms.

Interned forms for vectorised searches
    :class:`RadicalForms` keeps many lengths at once as numpy pairs (integer part, id of the
    irrational part), the irrational parts interned as :class:`RadicalSum` values. By the same
    linear independence, two lengths are equal exactly when both entries are, and lengths
    with the same irrational part are ordered by their integer parts; the Dijkstra search
    (``racecert.oracle.dijkstra``) settles most exact ties that way, without building sums.

The float stage assumes, as CPython does on every supported platform, IEEE-754 binary64
arithmetic with round-to-nearest and a correctly rounded ``math.sqrt``.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import sympy

__all__ = [
    "RadicalForms",
    "RadicalSum",
    "compare",
    "length_of_moves",
    "squarefree_decomposition",
]

Term = tuple[int, int]
"""One ``(d, c)`` pair of a canonical form: the value ``c*sqrt(d)``."""

_UNIT_ROUNDOFF = 2.0**-53
"""Unit roundoff ``u`` of binary64 with round-to-nearest."""

_EXACT_START_BITS = 64
"""Initial fractional precision (bits) of the exact refinement stage."""


# --------------------------------------------------------------------------------------------
# Integer helpers
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def squarefree_decomposition(n: int) -> tuple[int, int]:
    """Return ``(k, d)`` with ``n == k*k*d`` and ``d`` squarefree, for an integer ``n >= 1``.

    This is the integer kernel behind :meth:`RadicalSum.sqrt_of`: ``sqrt(n) == k*sqrt(d)``.
    Results are memoized because a solver asks for the same few move lengths over and over.

    The algorithm is trial division by 2 and odd numbers ``p`` while ``p**3`` does not exceed the
    unfactored remainder ``m``. When it stops, every prime factor of ``m`` is at least ``p`` and
    ``p**3 > m``, so ``m`` is 1, a prime, a prime squared, or a product of two distinct primes;
    only the square case contributes to ``k`` and one ``isqrt`` tells them apart. The cost of a
    first call is therefore ``O(n**(1/3))`` divisions, which is negligible for move lengths.

    >>> squarefree_decomposition(8)
    (2, 2)
    >>> squarefree_decomposition(50)
    (5, 2)
    >>> squarefree_decomposition(30)
    (1, 30)
    """
    if type(n) is not int:
        n = operator.index(n)
    if n < 1:
        raise ValueError(f"squarefree_decomposition expects n >= 1, got {n}")
    k = 1
    d = 1
    m = n
    exponent = (m & -m).bit_length() - 1  # multiplicity of the prime 2
    m >>= exponent
    k <<= exponent // 2
    if exponent & 1:
        d = 2
    p = 3
    while p * p * p <= m:
        if m % p == 0:
            exponent = 0
            while m % p == 0:
                m //= p
                exponent += 1
            k *= p ** (exponent // 2)
            if exponent & 1:
                d *= p
        p += 2
    if m > 1:
        r = math.isqrt(m)
        if r * r == m:
            k *= r
        else:
            d *= m
    return k, d


def _is_squarefree(d: int) -> bool:
    """Whether the integer ``d >= 1`` has no square factor other than 1."""
    return squarefree_decomposition(d)[0] == 1


def _canonical(acc: dict[int, int]) -> tuple[Term, ...]:
    """Turn a ``{squarefree d: coefficient}`` accumulator into a canonical term tuple."""
    return tuple(sorted((d, c) for d, c in acc.items() if c))


# --------------------------------------------------------------------------------------------
# Sign determination (the heart of the certified comparison)
# --------------------------------------------------------------------------------------------


def _float_sign(terms: tuple[Term, ...] | list[Term]) -> int | None:
    """Sign of ``sum(c*sqrt(d))`` from a binary64 evaluation, or ``None`` if inconclusive.

    Error analysis (``u = 2**-53``, ``n = len(terms)``, ``x_i = c_i*sqrt(d_i)``): converting
    ``c_i`` and ``d_i`` to float, the square root and the product each contribute a relative
    error of at most ``u``, so each computed term is within ``(4u + O(u**2))*|x_i|`` of ``x_i``.
    Recursive summation adds at most ``gamma_{n-1} * sum |x^_i|`` with ``gamma_k = k*u/(1-k*u)``.
    The total error is thus below ``(n + 4)*u*A*(1 + tiny)`` where ``A`` is the computed sum of
    absolute values; the threshold used is twice that, which also absorbs the rounding of the
    threshold computation itself. Every ``|x_i| >= 1``, so underflow cannot occur; overflow and
    huge integers are detected and reported as inconclusive.
    """
    total = 0.0
    magnitude = 0.0
    try:
        for d, c in terms:
            x = c * math.sqrt(d)
            total += x
            magnitude += abs(x)
    except OverflowError:
        return None
    if not math.isfinite(magnitude):
        return None
    bound = 2.0 * (len(terms) + 4) * _UNIT_ROUNDOFF * magnitude
    if total > bound:
        return 1
    if total < -bound:
        return -1
    return None


def enclose_scaled(terms: tuple[Term, ...] | list[Term], bits: int) -> tuple[int, int]:
    """Integers lo <= 2**bits * sum(c*sqrt(d)) <= hi, each term enclosed by one ``isqrt``.

    ``r = isqrt(c*c*d*4**bits)`` satisfies ``r <= |c|*sqrt(d)*2**bits < r + 1``, so each
    irrational term adds an interval of width one; the integer part (``d == 1``) is exact.

    >>> enclose_scaled([(1, 1), (2, 1)], 10)  # 1 + sqrt(2) = 2.41421...
    (2472, 2473)
    """
    lo = hi = 0
    scale = 1 << (2 * bits)
    for d, c in terms:
        if d == 1:
            v = c << bits
            lo += v
            hi += v
        else:
            r = math.isqrt(c * c * d * scale)
            if c > 0:
                lo += r
                hi += r + 1
            else:
                lo -= r + 1
                hi -= r
    return lo, hi


def _exact_sign(terms: tuple[Term, ...] | list[Term]) -> int:
    """Sign of a nonempty canonical ``sum(c*sqrt(d))`` by exact integer interval refinement.

    With ``k`` fractional bits, `enclose_scaled` gives an interval containing ``2**k`` times
    the true value; once it excludes zero the sign is proven.
    Otherwise ``k`` doubles. The canonical form is nonempty, so the value is nonzero by linear
    independence and the loop terminates.
    """
    if not terms:
        raise ValueError("the sign of an empty (zero) canonical form is 0; refuse to refine")
    bits = _EXACT_START_BITS
    while True:
        lo, hi = enclose_scaled(terms, bits)
        if lo > 0:
            return 1
        if hi < 0:
            return -1
        bits *= 2


def _sign_of_terms(terms: tuple[Term, ...] | list[Term]) -> int:
    """Certified sign of a canonical term sequence: float filter first, exact fallback."""
    if not terms:
        return 0
    if len(terms) == 1:
        return 1 if terms[0][1] > 0 else -1
    s = _float_sign(terms)
    if s is not None:
        return s
    return _exact_sign(terms)


# --------------------------------------------------------------------------------------------
# The value type
# --------------------------------------------------------------------------------------------


_TERM_RE = re.compile(
    r"\s*(?P<sign>[+-]?)\s*"
    r"(?:(?P<coef>\d+)\s*\*\s*sqrt\(\s*(?P<rad1>\d+)\s*\)"
    r"|sqrt\(\s*(?P<rad2>\d+)\s*\)"
    r"|(?P<int>\d+))\s*"
)


@dataclass(frozen=True, slots=True)
class RadicalSum:
    """An exact real number ``sum(c*sqrt(d) for d, c in terms)`` in canonical form.

    ``terms`` is a tuple of ``(d, c)`` pairs with strictly increasing squarefree ``d >= 1`` and
    nonzero ``int`` coefficients ``c``; ``(1, c)`` is the integer part and ``()`` is zero. The
    constructor validates this invariant; use :meth:`from_terms` to normalize arbitrary input.

    Because the canonical form is unique (linear independence of square roots of squarefree
    integers), ``==`` and ``hash`` are structural and exact. Ordering operators use the certified
    :func:`compare`. Instances also compare and combine with plain ``int`` values, and an integer
    valued instance hashes like the corresponding ``int``.

    >>> a = RadicalSum.sqrt_of(2) + RadicalSum.sqrt_of(8)
    >>> a
    RadicalSum(terms=((2, 3),))
    >>> str(a + 7)
    '7 + 3*sqrt(2)'
    >>> RadicalSum.sqrt_of(50) - 5 * RadicalSum.sqrt_of(2) == 0
    True
    """

    terms: tuple[Term, ...]

    def __post_init__(self) -> None:
        """Reject anything that is not a canonical form, so equality stays structural."""
        if type(self.terms) is not tuple:
            raise TypeError("terms must be a tuple of (d, c) pairs")
        previous = 0
        for term in self.terms:
            if type(term) is not tuple or len(term) != 2:
                raise TypeError(f"term {term!r} is not a (d, c) pair")
            d, c = term
            if type(d) is not int or type(c) is not int:
                raise TypeError(f"term {term!r} must hold two ints")
            if d <= previous:
                raise ValueError("radicands must be >= 1 and strictly increasing")
            if not _is_squarefree(d):
                raise ValueError(f"radicand {d} is not squarefree; use RadicalSum.from_terms")
            if c == 0:
                raise ValueError("coefficients must be nonzero")
            previous = d

    # ---- constructors ---------------------------------------------------------------------

    @classmethod
    def _make(cls, terms: tuple[Term, ...]) -> RadicalSum:
        """Build from terms already known to be canonical, skipping validation (hot path)."""
        obj = object.__new__(cls)
        object.__setattr__(obj, "terms", terms)
        return obj

    @classmethod
    def zero(cls) -> RadicalSum:
        """The number 0 (empty canonical form).

        >>> RadicalSum.zero().terms
        ()
        """
        return _ZERO

    @classmethod
    def from_int(cls, value: int) -> RadicalSum:
        """The integer ``value`` as a radical sum.

        >>> RadicalSum.from_int(-4).terms
        ((1, -4),)
        """
        value = operator.index(value)
        return cls._make(((1, value),)) if value else _ZERO

    @classmethod
    def sqrt_of(cls, n: int) -> RadicalSum:
        """``sqrt(n)`` for an integer ``n >= 0``, i.e. ``k*sqrt(d)`` with ``n == k*k*d``.

        Memoized: the result is immutable, so the same instance is shared across calls.

        >>> RadicalSum.sqrt_of(8).terms
        ((2, 2),)
        >>> str(RadicalSum.sqrt_of(49))
        '7'
        """
        return _sqrt_of(n)

    @classmethod
    def of_vector(cls, vx: int, vy: int) -> RadicalSum:
        """Euclidean length ``sqrt(vx**2 + vy**2)`` of an integer move.

        >>> str(RadicalSum.of_vector(3, 4)), str(RadicalSum.of_vector(1, -1))
        ('5', 'sqrt(2)')
        """
        return _sqrt_of(vx * vx + vy * vy)

    @classmethod
    def from_terms(cls, pairs: Iterable[tuple[int, int]]) -> RadicalSum:
        """Normalize ``sum(c*sqrt(n) for n, c in pairs)`` with any integers ``n >= 0``.

        Radicands need not be squarefree or distinct; zero coefficients are allowed.

        >>> RadicalSum.from_terms([(8, 1), (2, 1), (4, 3), (0, 5)]).terms
        ((1, 6), (2, 3))
        """
        acc: dict[int, int] = {}
        for n, c in pairs:
            coef = operator.index(c)
            root = _sqrt_of(n)  # validates n (an integer >= 0) even when coef == 0
            if coef:
                for d, kc in root.terms:
                    acc[d] = acc.get(d, 0) + coef * kc
        return cls._make(_canonical(acc))

    @classmethod
    def parse(cls, text: str) -> RadicalSum:
        """Read the :meth:`__str__` form back, e.g. ``"7 + 3*sqrt(2) - sqrt(5)"``.

        Accepted grammar: terms ``N``, ``sqrt(N)`` or ``N*sqrt(N)`` with nonnegative decimal
        integers, separated by ``+`` or ``-``; the first term may carry a sign; whitespace is
        free. Radicands need not be squarefree and may repeat (the result is normalized).

        >>> RadicalSum.parse("7 + 3*sqrt(2)") == 7 + 3 * RadicalSum.sqrt_of(2)
        True
        >>> RadicalSum.parse("sqrt(8) - 2*sqrt(2)")
        RadicalSum(terms=())
        """
        if not isinstance(text, str):
            raise TypeError("parse expects a str")
        pairs: list[tuple[int, int]] = []
        pos = 0
        end = len(text)
        if not text.strip():
            raise ValueError("empty radical sum")
        while pos < end:
            m = _TERM_RE.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot parse radical sum {text!r} at position {pos}")
            if pairs and not m.group("sign"):
                raise ValueError(f"missing '+' or '-' before term at position {pos} in {text!r}")
            sign = -1 if m.group("sign") == "-" else 1
            if m.group("int") is not None:
                pairs.append((1, sign * int(m.group("int"))))
            elif m.group("rad2") is not None:
                pairs.append((int(m.group("rad2")), sign))
            else:
                pairs.append((int(m.group("rad1")), sign * int(m.group("coef"))))
            pos = m.end()
        return cls.from_terms(pairs)

    # ---- queries --------------------------------------------------------------------------

    def is_zero(self) -> bool:
        """Whether this is exactly 0.

        >>> RadicalSum.zero().is_zero(), RadicalSum.sqrt_of(2).is_zero()
        (True, False)
        """
        return not self.terms

    def is_integer(self) -> bool:
        """Whether the value is an integer (no irrational part).

        >>> RadicalSum.sqrt_of(9).is_integer(), RadicalSum.sqrt_of(3).is_integer()
        (True, False)
        """
        return not self.terms or (len(self.terms) == 1 and self.terms[0][0] == 1)

    def integer_part(self) -> int:
        """The coefficient of ``sqrt(1)`` (not the floor of the value).

        >>> RadicalSum.parse("4 + sqrt(2)").integer_part()
        4
        """
        if self.terms and self.terms[0][0] == 1:
            return self.terms[0][1]
        return 0

    def sign(self) -> int:
        """Certified sign of the value: ``-1``, ``0`` or ``1``.

        >>> RadicalSum.parse("3 - sqrt(8)").sign()
        1
        """
        return _sign_of_terms(self.terms)

    def to_float(self) -> float:
        """A float approximation, for display and heuristics only (never for decisions).

        Uses ``math.fsum`` so cancellation between terms does not add error beyond the per-term
        rounding; the result can still be off by a few ulps of the largest term.

        >>> RadicalSum.parse("1 + sqrt(4)").to_float()
        3.0
        """
        return math.fsum(c * math.sqrt(d) for d, c in self.terms)

    def to_sympy(self) -> sympy.Expr:
        """The exact value as a sympy expression (sympy is imported lazily).

        >>> RadicalSum.parse("7 + 3*sqrt(2)").to_sympy()
        3*sqrt(2) + 7
        """
        import sympy

        return sympy.Add(*(sympy.Integer(c) * sympy.sqrt(sympy.Integer(d)) for d, c in self.terms))

    # ---- text -----------------------------------------------------------------------------

    def __str__(self) -> str:
        """Deterministic text in canonical order: integer part first, then increasing radicand.

        Coefficient 1 is omitted (``sqrt(2)``), negative terms use `` - ``, zero is ``"0"``.
        :meth:`parse` reads this back exactly.

        >>> str(RadicalSum.parse("-sqrt(3) + 2*sqrt(2) - 7"))
        '-7 + 2*sqrt(2) - sqrt(3)'
        """
        if not self.terms:
            return "0"
        parts: list[str] = []
        for i, (d, c) in enumerate(self.terms):
            mag = abs(c)
            if d == 1:
                body = str(mag)
            elif mag == 1:
                body = f"sqrt({d})"
            else:
                body = f"{mag}*sqrt({d})"
            if i == 0:
                parts.append(f"-{body}" if c < 0 else body)
            else:
                parts.append(f" - {body}" if c < 0 else f" + {body}")
        return "".join(parts)

    # ---- arithmetic -----------------------------------------------------------------------

    def _combine(self, other: RadicalSum, factor: int) -> RadicalSum:
        """``self + factor*other`` for ``factor`` in ``{1, -1}``."""
        if not other.terms:
            return self
        if not self.terms:
            return other if factor == 1 else -other
        acc = dict(self.terms)
        for d, c in other.terms:
            acc[d] = acc.get(d, 0) + factor * c
        return RadicalSum._make(_canonical(acc))

    def __add__(self, other: object) -> RadicalSum:
        """Exact sum; ``int`` operands are accepted."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return self._combine(o, 1)

    __radd__ = __add__

    def __sub__(self, other: object) -> RadicalSum:
        """Exact difference; ``int`` operands are accepted."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return self._combine(o, -1)

    def __rsub__(self, other: object) -> RadicalSum:
        """Exact ``other - self`` for an ``int`` ``other``."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return o._combine(self, -1)

    def __neg__(self) -> RadicalSum:
        """Exact negation."""
        return RadicalSum._make(tuple((d, -c) for d, c in self.terms))

    def __pos__(self) -> RadicalSum:
        """Identity."""
        return self

    def __abs__(self) -> RadicalSum:
        """Exact absolute value (uses the certified sign)."""
        return -self if self.sign() < 0 else self

    def __mul__(self, other: object) -> RadicalSum:
        """Multiplication by an ``int`` scalar (products of radical sums are not supported)."""
        if not isinstance(other, int):
            return NotImplemented
        k = int(other)
        if k == 0:
            return _ZERO
        if k == 1:
            return self
        return RadicalSum._make(tuple((d, k * c) for d, c in self.terms))

    __rmul__ = __mul__

    # ---- equality, hashing, ordering --------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        """Exact equality: identical canonical forms (see module docstring for why)."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return self.terms == o.terms

    def __hash__(self) -> int:
        """Structural hash; integer-valued sums hash like the ``int`` they equal."""
        if self.is_integer():
            return hash(self.integer_part())
        return hash(self.terms)

    def __lt__(self, other: object) -> bool:
        """Certified ``<``."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return compare(self, o) < 0

    def __le__(self, other: object) -> bool:
        """Certified ``<=``."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return compare(self, o) <= 0

    def __gt__(self, other: object) -> bool:
        """Certified ``>``."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return compare(self, o) > 0

    def __ge__(self, other: object) -> bool:
        """Certified ``>=``."""
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return compare(self, o) >= 0


_ZERO = RadicalSum._make(())


def _coerce(value: Any) -> RadicalSum | None:
    """``value`` as a RadicalSum if it is one or an ``int``; otherwise ``None``."""
    if isinstance(value, RadicalSum):
        return value
    if isinstance(value, int):
        return RadicalSum.from_int(value)
    return None


@lru_cache(maxsize=1 << 16)
def _sqrt_of(n: int) -> RadicalSum:
    """Memoized ``sqrt(n)`` as a canonical radical sum (shared immutable instances)."""
    if type(n) is not int:
        return _sqrt_of(operator.index(n))  # bool, numpy integers, other __index__ types
    if n < 0:
        raise ValueError(f"cannot take sqrt of negative {n}")
    if n == 0:
        return _ZERO
    k, d = squarefree_decomposition(n)
    return RadicalSum._make(((d, k),))


# --------------------------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------------------------


def compare(a: RadicalSum | int, b: RadicalSum | int) -> int:
    """Certified three-way comparison: ``-1`` if ``a < b``, ``0`` if ``a == b``, ``1`` if ``a > b``.

    Returns 0 exactly when the canonical forms coincide. Otherwise the sign of ``a - b`` is found
    by a float evaluation with a rigorous error bound and, when that is inconclusive, by exact
    integer interval refinement (see the module docstring).

    >>> s2, s3, s5 = (RadicalSum.sqrt_of(n) for n in (2, 3, 5))
    >>> compare(s2 + s3, s5 + 0), compare(s3, s3), compare(3, s2 + 1)
    (1, 0, 1)
    """
    x = _coerce(a)
    y = _coerce(b)
    if x is None or y is None:
        raise TypeError("compare expects RadicalSum or int operands")
    if x.terms == y.terms:
        return 0
    acc = dict(x.terms)
    for d, c in y.terms:
        acc[d] = acc.get(d, 0) - c
    return _sign_of_terms(_canonical(acc))


def length_of_moves(velocities: Iterable[tuple[int, int]]) -> RadicalSum:
    """Exact total Euclidean length of a sequence of integer moves ``(vx, vy)``.

    Accumulates coefficients per squarefree radicand and builds one canonical form at the end,
    so the cost is linear in the number of moves.

    >>> str(length_of_moves([(3, 4), (1, 1), (0, 0), (-2, 2)]))
    '5 + 3*sqrt(2)'
    """
    acc: dict[int, int] = {}
    for vx, vy in velocities:
        for d, c in _sqrt_of(vx * vx + vy * vy).terms:
            acc[d] = acc.get(d, 0) + c
    return RadicalSum._make(_canonical(acc))


# --------------------------------------------------------------------------------------------
# Interned forms (vectorised)
# --------------------------------------------------------------------------------------------


class RadicalForms:
    """Exact lengths as numpy pairs (integer part, id of the interned irrational part).

    A length ``sum |v'|`` is a :class:`RadicalSum`; its integer part (the coefficient of
    ``sqrt(1)``) is kept in an ``int64`` array and its irrational part (the terms with
    ``d > 1``) is interned: equal irrational parts get equal ids, id 0 is none. Two lengths
    are equal exactly when both their integer parts and their ids are (canonical forms are
    unique), and two lengths with the same id are ordered by their integer parts. Only
    lengths with different ids that floats cannot order need :func:`compare`.

    >>> f = RadicalForms()
    >>> ip, ir = f.extend(np.zeros(2, np.int64), np.zeros(2, np.int64), np.array([1, 3]),
    ...                   np.array([1, 4]))  # + sqrt(2), + 5
    >>> ip.tolist(), (ir > 0).tolist(), f.part(int(ir[0]))
    ([0, 5], [True, False], RadicalSum(terms=((2, 1),)))
    >>> str(f.value(int(ip[0]), int(ir[0]))), str(f.value(int(ip[1]), int(ir[1])))
    ('sqrt(2)', '5')
    """

    def __init__(self) -> None:
        self._ids: dict[tuple[Term, ...], int] = {(): 0}
        self._terms: list[tuple[Term, ...]] = [()]
        self._next: dict[tuple[int, int], int] = {}

    def part(self, i: int) -> RadicalSum:
        """The irrational part with id ``i``."""
        return RadicalSum._make(self._terms[i])

    def value(self, ipart: int, i: int) -> RadicalSum:
        """The length with integer part ``ipart`` and irrational part id ``i``."""
        return self.part(i) + ipart

    def _add(self, i: int, n: int) -> int:
        """The id of irrational part ``i`` plus ``sqrt(n)`` for a non-square ``n``."""
        key = (i, n)
        j = self._next.get(key)
        if j is None:
            k, d = squarefree_decomposition(n)
            acc = dict(self._terms[i])
            acc[d] = acc.get(d, 0) + k
            terms = tuple(sorted(acc.items()))  # canonical: every coefficient is positive
            j = self._ids.get(terms)
            if j is None:
                j = self._ids[terms] = len(self._terms)
                self._terms.append(terms)
            self._next[key] = j
        return j

    def extend(self, ipart: np.ndarray, irr: np.ndarray, vx: np.ndarray, vy: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """(integer part, irrational id) of lengths (ipart, irr) plus one move (vx, vy) each."""
        n = vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2
        root = np.rint(np.sqrt(n.astype(np.float64))).astype(np.int64)
        square = root * root == n
        new_ip = ipart + np.where(square, root, 0)
        new_ir = irr.copy()
        rad = np.nonzero(~square)[0]
        if len(rad):
            codes, code_of = np.unique(n[rad], return_inverse=True)
            keys, key_of = np.unique(irr[rad] * len(codes) + code_of, return_inverse=True)
            nxt = np.array([self._add(int(k) // len(codes), int(codes[int(k) % len(codes)]))
                            for k in keys.tolist()], dtype=np.int64)
            new_ir[rad] = nxt[key_of]
        return new_ip, new_ir
