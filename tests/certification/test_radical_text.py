"""RadicalText: exact lengths of a file under test, compared without factoring.

Truth for small radicands is `RadicalSum` (which factors); huge radicands are
decided with a bounded number of perfect-square tests and never factored.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from racecert.certification import radical_text
from racecert.certification.radical_text import MAX_RADICAL_CHARS, RadicalText, same_value
from racecert.model import radicals
from racecert.model.radicals import RadicalSum

PRIME_31 = 1000000000000000000000000000057  # a 31-digit prime (issue: trial division hangs)
PRIME_40 = 10**39 + 3  # prime

_terms = st.lists(st.tuples(st.integers(0, 200), st.integers(-6, 6)), max_size=8)


def test_doctests() -> None:
    assert doctest.testmod(radical_text).failed == 0


@given(_terms, _terms)
def test_same_value_agrees_with_canonical_forms(left, right) -> None:
    expected = RadicalSum.from_terms(left) == RadicalSum.from_terms(right)
    assert same_value(left, right)[0] == expected


@given(_terms)
def test_a_sum_equals_its_canonical_form(terms) -> None:
    canonical = RadicalSum.from_terms(terms)
    assert same_value(terms, canonical.terms)[0]
    if canonical.terms:  # and differs from anything one unit off in any class
        d, c = canonical.terms[-1]
        assert not same_value(terms, [*canonical.terms, (d, 1)])[0]


def _no_factoring(monkeypatch) -> None:
    """Make any factoring of a number above 10^12 fail the test."""
    original = radicals.squarefree_decomposition

    def refuse(n: int) -> tuple[int, int]:
        if n > 10**12:
            raise AssertionError(f"factoring {n} was attempted")
        return original(n)

    monkeypatch.setattr(radicals, "squarefree_decomposition", refuse)
    radicals._sqrt_of.cache_clear()


def test_the_guard_catches_factoring(monkeypatch) -> None:
    _no_factoring(monkeypatch)
    with pytest.raises(AssertionError, match="factoring"):
        RadicalSum.parse(f"sqrt({PRIME_31})")


@pytest.mark.parametrize("text, ours, equal, max_work", [
    (f"sqrt({PRIME_31})", "7", False, 1),
    (f"sqrt({PRIME_31}) + 3", "3 + sqrt(2)", False, 3),
    (f"2*sqrt({4 * PRIME_31}) - 4*sqrt({PRIME_31}) + 5", "5", True, 2),
    (f"sqrt({PRIME_31 * PRIME_40 ** 2}) - {PRIME_40}*sqrt({PRIME_31}) + sqrt(8)",
     "2*sqrt(2)", True, 4),
    (" + ".join(f"sqrt({PRIME_40 + 2 * k})" for k in range(40)), "1", False, 40 * 41 // 2),
])
def test_huge_radicands_are_decided_with_bounded_work(monkeypatch, text, ours, equal,
                                                      max_work) -> None:
    _no_factoring(monkeypatch)
    theirs = RadicalText.parse(text)
    assert theirs.equals(RadicalSum.parse(ours)) is equal
    ok, work = same_value(theirs.terms, RadicalSum.parse(ours).terms)
    assert ok is equal
    assert work <= max_work  # perfect-square tests: at most terms x classes


def test_work_is_at_most_terms_times_classes() -> None:
    terms = [(PRIME_40 + 2 * k, 1) for k in range(60)]
    _, work = same_value(terms, [])
    assert work == 60 * 59 // 2  # every radicand is its own class: the worst case


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("5 sqrt(2)", "missing"),
    ("sqrt(x)", "cannot read"),
    ("sqrt(\u00b2)", "cannot read"),  # a superscript digit is not an ASCII digit
    ("\u0663", "cannot read"),  # an Arabic-Indic digit neither
    ("1 + " * 1001 + "1", "longer than"),
])
def test_malformed_text_is_a_value_error(text, words) -> None:
    with pytest.raises(ValueError, match=words):
        RadicalText.parse(text)


def test_the_longest_allowed_text_parses() -> None:
    k = (MAX_RADICAL_CHARS - 1) // 4
    text = "1" + " + 1" * k
    assert len(text) <= MAX_RADICAL_CHARS
    assert RadicalText.parse(text).terms == ((1, k + 1),)


def test_negative_terms_are_flagged() -> None:
    assert RadicalText.parse("5 - sqrt(2)").negative
    assert not RadicalText.parse("5 + sqrt(2)").negative
