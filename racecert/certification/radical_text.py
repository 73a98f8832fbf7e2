"""Exact lengths written by another engine, compared without factoring (docs/crosscheck.md).

`RadicalSum.parse` puts a sum into canonical form, which needs the squarefree
part of every radicand: trial division, hopeless for `sqrt` of a 31-digit
prime. A file under test may hold anything, so `RadicalText` keeps the terms
as written (identical radicands merged) and decides equality with a racecert
length by grouping radicands into classes instead:

    sqrt(a) / sqrt(b) is rational  <=>  a*b is a perfect square,

one `math.isqrt` per test, polynomial in the digits. Within a class with
representative r, c*sqrt(n) = (c * isqrt(n*r) / r) * sqrt(r), so the class sums
to (sum of c * isqrt(n*r)) / r * sqrt(r). Distinct classes have distinct
squarefree kernels, whose square roots are linearly independent over the
rationals (Besicovitch), so a sum is zero exactly when every class's integer
numerator is zero. The work is at most (terms) x (classes) square roots, and
the text is bounded (`MAX_RADICAL_CHARS`), so every decision is bounded too.

>>> RadicalText.parse("2*sqrt(8) + 1").equals(RadicalSum.parse("1 + 4*sqrt(2)"))
True
>>> RadicalText.parse("sqrt(1000000000000000000000000000057)").equals(RadicalSum.parse("7"))
False
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from racecert.model.radicals import RadicalSum

MAX_RADICAL_CHARS = 4000
"""Longest accepted exact length text; every integer in it is then below Python's
4,300-digit conversion limit and the class grouping stays cheap."""

_TERM = re.compile(
    r"\s*(?P<sign>[+-]?)\s*"
    r"(?:(?P<coef>[0-9]+)\s*\*\s*sqrt\(\s*(?P<rad1>[0-9]+)\s*\)"
    r"|sqrt\(\s*(?P<rad2>[0-9]+)\s*\)"
    r"|(?P<int>[0-9]+))\s*",
    re.ASCII,
)


@dataclass(frozen=True)
class RadicalText:
    """A sum of c*sqrt(n) as written: `terms` are (n, c) with distinct n >= 1 and c != 0.

    `text` is the written form (for display); `negative` says whether some written
    term had a minus sign (a trajectory's length never needs one).
    """

    text: str
    terms: tuple[tuple[int, int], ...]
    negative: bool

    @classmethod
    def parse(cls, text: str) -> RadicalText:
        """Read "7 + 3*sqrt(2)": terms N, sqrt(N), N*sqrt(N) joined by + or -.

        ASCII digits only; at most `MAX_RADICAL_CHARS` characters; ValueError
        (naming the position) otherwise. Nothing is factored.
        """
        if len(text) > MAX_RADICAL_CHARS:
            raise ValueError(f"longer than {MAX_RADICAL_CHARS} characters ({len(text)})")
        if not text.strip():
            raise ValueError("empty")
        acc: dict[int, int] = {}
        negative = False
        pos = 0
        while pos < len(text):
            m = _TERM.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot read a term at character {pos}")
            if pos and not m.group("sign"):
                raise ValueError(f"missing '+' or '-' before the term at character {pos}")
            sign = -1 if m.group("sign") == "-" else 1
            negative = negative or sign < 0
            if m.group("int") is not None:
                n, c = 1, int(m.group("int"))
            elif m.group("rad2") is not None:
                n, c = int(m.group("rad2")), 1
            else:
                n, c = int(m.group("rad1")), int(m.group("coef"))
            if n and c:
                acc[n] = acc.get(n, 0) + sign * c
            pos = m.end()
        terms = tuple(sorted((n, c) for n, c in acc.items() if c))
        return cls(" ".join(text.split()), terms, negative)

    def equals(self, other: RadicalSum) -> bool:
        """Exactly whether this sum equals `other` (see the module docstring)."""
        return same_value(self.terms, other.terms)[0]

    def __str__(self) -> str:
        return self.text


def same_value(left: tuple[tuple[int, int], ...] | list[tuple[int, int]],
               right: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> tuple[bool, int]:
    """Whether sum(c*sqrt(n) for n, c in left) == the same over `right`, and the work done.

    Terms are (n, c) pairs with integers n >= 0 (not necessarily squarefree or
    distinct). The work is the number of perfect-square tests, at most
    (distinct radicands) x (classes). Nothing is factored.

    >>> same_value([(8, 1)], [(2, 2)])
    (True, 1)
    >>> same_value([(2, 1), (3, 1)], [(5, 1)])
    (False, 3)
    """
    acc: dict[int, int] = {}
    for n, c in left:
        if n and c:
            acc[n] = acc.get(n, 0) + c
    for n, c in right:
        if n and c:
            acc[n] = acc.get(n, 0) - c
    classes: list[list[int]] = []  # [representative r, numerator over r]
    work = 0
    for n, c in sorted(acc.items()):
        if not c:
            continue
        for cls in classes:
            work += 1
            product = n * cls[0]
            root = math.isqrt(product)
            if root * root == product:
                cls[1] += c * root
                break
        else:
            classes.append([n, c * n])  # c*sqrt(n) = (c*n / n) * sqrt(n)
    return all(numerator == 0 for _, numerator in classes), work
