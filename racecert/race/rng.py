"""The race's one random generator: SplitMix64, written out so every machine agrees.

A race draws every random number (the Amateur's choices, and any a plugged-in
driver makes through its view) from one generator seeded with the race's seed, in
turn order. The generator is defined here rather than borrowed from Python's or
numpy's, whose algorithms may change between versions: SplitMix64 (Steele, Lea
and Flood, 2014) is 64-bit integer arithmetic only, so the same seed gives the
same stream, hence the same race, byte for byte, on any machine and Python.

>>> r = RaceRandom(1234567)
>>> r.next_u64(), r.next_u64()
(6457827717110365317, 3203168211198807973)
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


class RaceRandom:
    """SplitMix64 with two derived draws: `random()` in [0, 1) and `below(n)` in [0, n).

    `draws` counts the 64-bit words taken (tests use it to check that a driver
    draws only what its algorithm says).
    """

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be an integer in [0, 2^64), got {seed}")
        self._state = seed
        self.draws = 0

    def next_u64(self) -> int:
        """The next 64-bit output (the reference splitmix64.c step)."""
        self._state = (self._state + GOLDEN_GAMMA) & MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        self.draws += 1
        return z ^ (z >> 31)

    def random(self) -> float:
        """A float in [0, 1): the top 53 bits of one output, exactly k / 2^53."""
        return (self.next_u64() >> 11) / float(1 << 53)

    def below(self, n: int) -> int:
        """An integer uniform in [0, n) (any n >= 1, big ints too), by rejection.

        Draws ceil(bits / 64) words per try, keeps the low `bits` bits of their
        concatenation (bits = n - 1's bit length) and retries when the value is >= n,
        so every value has probability exactly 1 / n.

        >>> r = RaceRandom(0)
        >>> sorted({r.below(3) for _ in range(50)})
        [0, 1, 2]
        """
        if n < 1:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        words = -(-bits // 64)
        while True:
            value = 0
            for _ in range(words):
                value = (value << 64) | self.next_u64()
            value &= (1 << bits) - 1
            if value < n:
                return value
