"""Exact path counts on a layered DAG, by residues modulo primes and the CRT.

A count of trajectories is below `count_bound` (a float estimate of the counts with a
margin, rounded up to a power of two), so residues modulo enough 31-bit primes determine
it exactly. Per layer, the residues are summed along the edges by a compiled loop, so the
hot loop never touches Python ints; only the final counts are recombined into Python
ints.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from functools import cache

import numpy as np
from numba import njit

SUM_CHUNK = 1 << 20
"""Rows summed, and counts read, at a time (`sum_residues`, `ExactCounts`): a large DAG
has tens of millions."""


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 2^32 (bases 2, 7 and 61 decide every such n).

    >>> [p for p in range(30) if _is_prime(p)]
    [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    >>> _is_prime(4294967291), _is_prime(2147483649)
    (True, False)
    """
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 61):
        if n % p == 0:
            return n == p
    if n >= 1 << 32:
        raise ValueError("_is_prime is exact below 2^32 only")
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in (2, 7, 61):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@cache
def primes_below_2_31(k: int) -> tuple[int, ...]:
    """The k largest primes below 2^31.

    >>> primes_below_2_31(2)
    (2147483647, 2147483629)
    """
    out: list[int] = []
    n = 2**31 - 1
    while len(out) < k:
        if _is_prime(n):
            out.append(n)
        n -= 2
    return tuple(out)


def primes_for_bound(bound: int) -> tuple[int, ...]:
    """Enough primes that their product exceeds `bound`."""
    k = max(1, math.ceil((bound.bit_length() + 1) / 30))
    return primes_below_2_31(k)


def crt(residues: Sequence[int], primes: Sequence[int]) -> int:
    """The unique integer in [0, prod(primes)) with the given residues.

    >>> crt([2, 3], [5, 7])
    17
    """
    x, m = 0, 1
    for r, p in zip(residues, primes, strict=True):
        # x + m * k == r (mod p)
        k = ((int(r) - x) * pow(m, -1, p)) % p
        x += m * k
        m *= p
    return x


def crt_rows(rows: np.ndarray, primes: Sequence[int]) -> list[int]:
    """`crt` of every row of an (n, len(primes)) residue array, as Python ints.

    Garner's mixed-radix digits are computed by a compiled loop in int64 (all products
    stay below 2^62), so Python ints are only built for the final
    d0 + d1 p0 + d2 p0 p1 + ..., and not at all where that fits an int64.

    >>> crt_rows(np.array([[2, 3], [0, 0], [4, 6]]), [5, 7])
    [17, 0, 34]
    """
    values = _crt_values(rows, primes)
    return values.tolist() if isinstance(values, np.ndarray) else values


def crt_counts(rows: np.ndarray, primes: Sequence[int]) -> ExactCounts:
    """`crt_rows` as `ExactCounts`: an int64 array where every value fits one (checked
    exactly from the Garner digits, however many primes they use), else Python ints.

    >>> c = crt_counts(np.array([[2, 3], [0, 0], [4, 6]]), [5, 7])
    >>> list(c), c[2], c.compact
    ([17, 0, 34], 34, True)
    """
    return ExactCounts(_crt_values(rows, primes))


def _crt_values(rows: np.ndarray, primes: Sequence[int]) -> np.ndarray | list[int]:
    """`crt` of every row: an int64 array where every value fits one, else Python ints."""
    k = len(primes)
    rows = np.ascontiguousarray(np.asarray(rows, dtype=np.int64).reshape(len(rows), k))
    p = np.array(primes, dtype=np.int64)
    # mods[j, i] = p0 ... p_{i-1} mod p_j; inv[j] = 1 / (p0 ... p_{j-1}) mod p_j
    mods = np.array([[math.prod(primes[:i]) % pj for i in range(k)] for pj in primes],
                    dtype=np.int64).reshape(k, k)
    inv = np.array([pow(math.prod(primes[:j]), -1, pj) if j else 1
                    for j, pj in enumerate(primes)], dtype=np.int64)
    digits = np.empty_like(rows)
    used = _garner(rows, p, mods, inv, digits) + 1
    # p0 ... p_{j-1} for each digit j, or -1 past 2^63 - 1
    radix = np.array([r if (r := math.prod(primes[:j])) < 2**63 else -1 for j in range(used)],
                     dtype=np.int64)
    acc = np.empty(len(rows), dtype=np.int64)
    if _assemble_int64(digits, radix, acc):
        return acc
    out = [0] * len(rows)
    factor = 1
    for j in range(k):
        out = [o + int(x) * factor for o, x in zip(out, digits[:, j].tolist(), strict=True)]
        factor *= primes[j]
    return out


class ExactCounts(Sequence[int]):
    """Exact counts, one per item of a DAG (its arriving moves, its final states), read as
    Python ints.

    Kept as an int64 array where the counts fit one (`compact`: 8 bytes a count; a
    large open area has millions of arriving moves and final states, and a Python int
    costs about 36 bytes with its pointer), else as a tuple of Python ints. With `index`,
    item i is value `index[i]`: many arriving moves share the count of their source, so
    they keep its index (4 bytes) instead of a copy. Equal to any sequence of the same
    ints.

    >>> c = ExactCounts(np.array([3, 0, 5]))
    >>> c == (3, 0, 5), sum(c), c.total(np.array([True, False, True])), type(c[0])
    (True, 8, 8, <class 'int'>)
    >>> d = ExactCounts((3, 2**70), index=np.array([1, 0, 1]))
    >>> list(d), d[2] == 2**70, d.total([False, True, True]) == 3 + 2**70, d.compact
    ([1180591620717411303424, 3, 1180591620717411303424], True, True, False)
    """

    __slots__ = ("_index", "_values")

    def __init__(self, values: np.ndarray | Sequence[int] = (),
                 index: np.ndarray | None = None) -> None:
        self._values: np.ndarray | tuple[int, ...] = (
            values if isinstance(values, np.ndarray) else tuple(values))
        self._index = index

    @property
    def compact(self) -> bool:
        """Whether the counts are held as an int64 array."""
        return isinstance(self._values, np.ndarray)

    def __len__(self) -> int:
        return len(self._values) if self._index is None else len(self._index)

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            if self._index is None:
                return ExactCounts(self._values[i])
            return ExactCounts(self._values, self._index[i])
        return int(self._values[i if self._index is None else int(self._index[i])])

    def _chunks(self, mask: np.ndarray | None = None) -> Iterator[list[int]]:
        """The counts (where `mask`) as lists of Python ints, `SUM_CHUNK` items at a time."""
        v, index = self._values, self._index
        for lo in range(0, len(self), SUM_CHUNK):
            rows = np.arange(lo, min(lo + SUM_CHUNK, len(self)))
            if mask is not None:
                rows = rows[mask[lo: lo + SUM_CHUNK]]
            at = rows if index is None else index[rows]
            yield v[at].tolist() if isinstance(v, np.ndarray) else [v[j] for j in at.tolist()]

    def __iter__(self) -> Iterator[int]:
        for part in self._chunks():
            yield from part

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                      strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        head = list(itertools.islice(self, 8))
        return f"ExactCounts({head}{', ...' if len(self) > 8 else ''})"

    def take(self, idx: np.ndarray) -> ExactCounts:
        """The counts at the indices `idx`, in their order (an index into the same values:
        nothing is copied but the indices).

        >>> list(ExactCounts(np.array([3, 0, 5])).take(np.array([2, 2, 0])))
        [5, 5, 3]
        """
        idx = np.asarray(idx)
        if idx.dtype.kind not in "iu":
            raise TypeError(f"ExactCounts.take needs integer indices, not {idx.dtype}")
        return ExactCounts(self._values, idx if self._index is None else self._index[idx])

    def total(self, mask: np.ndarray | Sequence[bool] | None = None) -> int:
        """The exact sum of the counts (where `mask`, aligned with them, is true): Python
        ints, since the sum may pass 2^63."""
        m = None if mask is None else np.asarray(mask, dtype=bool)
        if m is not None and len(m) != len(self):
            raise ValueError(f"a mask of {len(m)} for {len(self)} counts")
        return sum(sum(part) for part in self._chunks(m))


@njit(cache=True, nogil=True)
def _garner(rows, p, mods, inv, digits):
    """Garner's digits of each row (`crt_rows`); returns the highest digit index that is
    non-zero in some row (0 if none). Residues already in [0, p) (the usual case) are not
    divided again."""
    top = 0
    for r in range(rows.shape[0]):
        for j in range(len(p)):
            x = rows[r, j]
            if x < 0 or x >= p[j]:
                x %= p[j]
            if j == 0:
                digits[r, 0] = x
                continue
            acc = 0
            for i in range(j):
                acc = (acc + digits[r, i] * mods[j, i]) % p[j]
            d = x - acc
            if d < 0:
                d += p[j]
            d = d * inv[j] % p[j]
            digits[r, j] = d
            if d != 0 and j > top:
                top = j
    return top


def last_layer_counts(
    sizes: Sequence[int],
    edges: Sequence[tuple[np.ndarray, np.ndarray]],
    primes: Sequence[int],
) -> np.ndarray:
    """Residues of the number of paths from layer 0 to every node of the last layer.

    `sizes[t]` nodes in layer t; `edges[t] = (src, dst)` from layer t to t+1. Layer 0
    nodes start with one path each. Returns an array of shape (sizes[-1], len(primes))
    of int64 residues (a compiled pass over each layer's edges); each layer's residues are
    dropped once the next one's are summed (a large DAG has tens of millions of states).

    >>> last_layer_counts([1, 2, 1], [(np.array([0, 0]), np.array([0, 1])),
    ...                               (np.array([0, 1]), np.array([0, 0]))], [7]).tolist()
    [[2]]
    """
    p = np.array(primes, dtype=np.int64)
    cur = np.ones((sizes[0], len(primes)), dtype=np.int64)
    for t, (src, dst) in enumerate(edges):
        nxt = np.zeros((sizes[t + 1], len(primes)), dtype=np.int64)
        _add_edges(src, dst, cur, nxt, p)
        cur = nxt
    return cur


@njit(cache=True, nogil=True)
def _assemble_int64(digits, radix, out):
    """out[r] = d0 + d1 p0 + d2 p0 p1 + ... for each row of Garner digits, where every value
    fits an int64; False (out unfinished) as soon as one does not. Every term and partial
    sum is checked before it is formed (a digit is below its prime, so non-negative), so
    nothing overflows."""
    top = np.int64(9223372036854775807)
    for r in range(digits.shape[0]):
        acc = digits[r, 0]
        for j in range(1, len(radix)):
            d = digits[r, j]
            if d == 0:
                continue
            if radix[j] < 0 or radix[j] > (top - acc) // d:
                return False
            acc += d * radix[j]
        out[r] = acc
    return True


def _add_edges(src: np.ndarray, dst: np.ndarray, cur: np.ndarray, nxt: np.ndarray,
               p: np.ndarray) -> None:
    """`_add_along` over the edges `SUM_CHUNK` at a time, each chunk's indices as int64 (the
    one type the kernel is compiled for: a layer of a large DAG has millions of edges)."""
    for lo in range(0, len(src), SUM_CHUNK):
        _add_along(np.asarray(src[lo: lo + SUM_CHUNK], dtype=np.int64),
                   np.asarray(dst[lo: lo + SUM_CHUNK], dtype=np.int64), cur, nxt, p)


@njit(cache=True, nogil=True)
def _add_along(src, dst, cur, nxt, p):
    """nxt[dst] += cur[src] (mod p) for every edge; residues stay below p < 2^31."""
    for e in range(len(src)):
        s, d = src[e], dst[e]
        for j in range(len(p)):
            v = nxt[d, j] + cur[s, j]
            if v >= p[j]:
                v -= p[j]
            nxt[d, j] = v


def count_bound(sizes: Sequence[int], edges: Sequence[tuple[np.ndarray, np.ndarray]],
                branching: int = 9) -> int:
    """A power of two above every count that is rebuilt from residues: the paths into
    any node of the last layer, and `branching` times their sum (the arrivals leave the
    last layer, at most `branching` per node).

    The path counts are summed in float64, each layer scaled by a power of two so no
    value overflows; the sums of non-negative terms lose a relative 2^-52 per addition at
    most, so their relative error stays far below the factor 4 of margin added.

    >>> count_bound([1, 2, 1], [(np.array([0, 0]), np.array([0, 1])),
    ...                         (np.array([0, 1]), np.array([0, 0]))])
    128
    """
    cur = np.ones(sizes[0], dtype=np.float64)
    log2_scale = 0
    for t, (src, dst) in enumerate(edges):
        cur = np.bincount(dst, weights=cur[src], minlength=sizes[t + 1])
        top = float(cur.max()) if len(cur) else 0.0
        if top > 2.0**500:
            e = math.frexp(top)[1]
            cur = np.ldexp(cur, -e)
            log2_scale += e
    total = float(cur.sum()) * branching
    if total <= 0:
        return 1
    return 1 << (max(0, math.frexp(total)[1]) + log2_scale + 2)


def sum_residues(rows: np.ndarray, groups: np.ndarray, n_groups: int,
                 primes: Sequence[int], rows_of: np.ndarray | None = None) -> ExactCounts:
    """Exact per-group sums of residue rows (CRT): row i is in group groups[i], or, with
    `rows_of`, the i-th summand is row rows_of[i] (one compiled pass, no gathered copy of
    the rows).

    >>> list(sum_residues(np.array([[3], [4], [5]]), np.array([1, 0, 1]), 2, [7]))
    [4, 1]
    """
    sums = np.zeros((n_groups, len(primes)), dtype=np.int64)
    which = np.arange(len(groups)) if rows_of is None else rows_of
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(len(rows), len(primes))
    for lo in range(0, len(groups), SUM_CHUNK):  # the indices as int64 a chunk at a time
        _add_rows(np.asarray(groups[lo: lo + SUM_CHUNK], dtype=np.int64),
                  np.asarray(which[lo: lo + SUM_CHUNK], dtype=np.int64), rows,
                  np.array(primes, dtype=np.int64), sums)
    return crt_counts(sums, primes)


@njit(cache=True, nogil=True)
def _add_rows(groups, which, rows, p, sums):
    """sums[groups[i]] += rows[which[i]] (mod p) for every i; residues stay below p < 2^31
    (a residue given out of range is reduced first)."""
    for i in range(len(groups)):
        g, r = groups[i], which[i]
        for j in range(len(p)):
            x = rows[r, j]
            if x < 0 or x >= p[j]:
                x %= p[j]
            v = sums[g, j] + x
            if v >= p[j]:
                v -= p[j]
            sums[g, j] = v

