"""Exact sums of square roots for the independent side (written apart from model.radicals).

A sum is a dict {squarefree d: nonzero integer coefficient}. Square roots of distinct
squarefree integers are linearly independent over the rationals, so two sums are
equal exactly when their dicts are; the sign of a nonzero difference is found by
enclosing each term c sqrt(d) 2^k between integers (`math.isqrt`) and doubling k
until the enclosure of the sum excludes zero, which it must eventually do.

>>> a = add(length(3, 4), length(1, 1))   # 5 + sqrt(2)
>>> text(a), compare(a, add(length(2, 2), length(2, 2)))  # vs 4 sqrt(2) = 5.66
('5 + sqrt(2)', 1)
"""

from __future__ import annotations

import math
from functools import cache

Sum = dict[int, int]


@cache
def length(dx: int, dy: int) -> tuple[tuple[int, int], ...]:
    """sqrt(dx^2 + dy^2) as ((d, c),) with d squarefree (empty for a zero move)."""
    n = dx * dx + dy * dy
    if n == 0:
        return ()
    c, d, f = 1, n, 2
    while f * f <= d:
        while d % (f * f) == 0:
            d //= f * f
            c *= f
        f += 1
    return ((d, c),)


def add(a: Sum | tuple[tuple[int, int], ...], b: Sum | tuple[tuple[int, int], ...]) -> Sum:
    """a + b (either may be a dict or a tuple of (d, c) pairs)."""
    out = dict(a.items() if isinstance(a, dict) else a)
    for d, c in (b.items() if isinstance(b, dict) else b):
        v = out.get(d, 0) + c
        if v:
            out[d] = v
        else:
            out.pop(d, None)
    return out


def _sign(terms: Sum) -> int:
    if not terms:
        return 0
    k = 64
    while True:
        lo = hi = 0
        for d, c in terms.items():
            r = math.isqrt(c * c * d << (2 * k))  # floor(|c| sqrt(d) 2^k)
            if c > 0:
                lo, hi = lo + r, hi + r + 1
            else:
                lo, hi = lo - r - 1, hi - r
        if lo > 0:
            return 1
        if hi < 0:
            return -1
        k *= 2


def compare(a: Sum, b: Sum) -> int:
    """The sign of a - b."""
    return _sign(add(a, {d: -c for d, c in b.items()}))


def approx(a: Sum) -> float:
    """A float near a (for ordering candidates before the exact comparison)."""
    return sum(c * math.sqrt(d) for d, c in a.items())


def text(a: Sum) -> str:
    """'5 + 3*sqrt(2)'-style text (integers first, then roots by d)."""
    parts = []
    for d in sorted(a):
        c = a[d]
        parts.append(str(c) if d == 1 else ("" if c == 1 else f"{c}*") + f"sqrt({d})")
    return " + ".join(parts) if parts else "0"
