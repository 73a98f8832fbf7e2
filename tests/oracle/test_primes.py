"""The primes behind the exact counts: Miller-Rabin against trial division."""

from __future__ import annotations

import math

from racecert.oracle.counts import _is_prime, primes_below_2_31


def _trial(n: int) -> bool:
    return n >= 2 and all(n % f for f in range(2, math.isqrt(n) + 1))


def test_small_and_near_2_31_agree_with_trial_division() -> None:
    for n in [*range(5000), *range(2**31 - 2000, 2**31 + 50)]:
        assert _is_prime(n) == _trial(n), n


def test_strong_pseudoprimes_are_rejected() -> None:
    # strong pseudoprimes to base 2 (and 2, 3): composite, as trial division says
    for n in (2047, 3277, 4033, 4681, 8321, 1373653, 25326001, 3215031751):
        assert not _is_prime(n) and not _trial(n)


def test_the_count_primes_are_distinct_primes_below_2_31() -> None:
    ps = primes_below_2_31(40)
    assert len(set(ps)) == 40 and all(p < 2**31 and _trial(p) for p in ps[:3] + ps[-3:])
