"""Compiled set operations of the independent layered search (numba, written for this side).

`racecert.independent.search` keeps every stored state as one int64 key in a sorted
array (`visited`). Expanding a layer gives successor keys with their source rows; the
search packs each as ``key << bits | source`` (``bits`` wide enough for the layer's
rows) and sorts the packed values with `np.sort` (one 1-D int64 sort: no argsort, no
``return_inverse``). The passes here then read that sorted array once:

- `first_reached`: the successor keys not in `visited` (the states first reached
  now, in key order, written in place) and the moves into them as (source row,
  new state's index) pairs, grouped by new state;
- `merge_sorted`: `visited` with the new keys merged in (both sorted, disjoint).

Plain integer loops, cached machine code (`cache=True`); scratch is what the caller
allocates (bounded by the layer's successors).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def first_reached(packed, bits, visited, edge_src, edge_dst):
    """Scan the sorted `packed` (key << bits | source row) against the sorted distinct
    `visited`; write the fresh keys (ascending) over the front of `packed` itself (the
    k-th fresh key goes to a slot already read: each key has at least one packed value),
    and one (source row, fresh index) per packed value whose key is fresh to `edge_src`
    / `edge_dst`. Returns (fresh keys, moves).

    A repeated packed value (the same move twice) is written once per occurrence; the
    search's moves are distinct (one per source row and acceleration, accelerations
    giving distinct velocities), so none repeats.
    """
    mask = (np.int64(1) << bits) - 1
    n, nv = len(packed), len(visited)
    p = 0
    n_new = 0
    n_edges = 0
    i = 0
    while i < n:
        key = packed[i] >> bits
        lo, hi = p, nv  # keys ascend: the lower bound never moves back
        while lo < hi:
            mid = (lo + hi) >> 1
            if visited[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        p = lo
        fresh = p == nv or visited[p] != key
        while i < n and (packed[i] >> bits) == key:
            if fresh:
                edge_src[n_edges] = packed[i] & mask
                edge_dst[n_edges] = n_new
                n_edges += 1
            i += 1
        if fresh:  # n_new < i: that slot is read already
            packed[n_new] = key
            n_new += 1
    return n_new, n_edges


@njit(cache=True, nogil=True)
def merge_sorted(a, b):
    """The sorted union of two sorted int64 arrays with no key in common."""
    out = np.empty(len(a) + len(b), dtype=np.int64)
    i = j = 0
    for k in range(len(out)):
        if j == len(b) or (i < len(a) and a[i] < b[j]):
            out[k] = a[i]
            i += 1
        else:
            out[k] = b[j]
            j += 1
    return out
