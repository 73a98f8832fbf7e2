"""One-pass propagations over a DAG whose edges are given in a topological order.

Yellow's selection (`racecert.oracle.dijkstra._select`) works on the tight edges between
settled states: each goes from a state at distance d to one at d + |v'| >= d + 1, so
sorting the edges by their source's distance (or, backwards, by their target's) is a
topological order, and one pass replaces a fixpoint iteration whose rounds grow with the
trajectory's moves (833 rounds over millions of edges on a long serpentine).

>>> import numpy as np
>>> src, dst = np.array([1, 0, 0]), np.array([2, 1, 2])
>>> moves = np.array([0, 99, 99])
>>> order = np.array([1, 2, 0])  # edges out of 0 first: a topological order
>>> fewest_moves(src[order], dst[order], moves); moves.tolist()
[0, 1, 1]
>>> mark = np.array([False, False, True])
>>> mark_sources(src[order], dst[order], mark); mark.tolist()
[True, True, True]
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fewest_moves(src: np.ndarray, dst: np.ndarray, moves: np.ndarray) -> None:
    """moves[v] = min(moves[v], moves[u] + 1) along each edge u -> v, the edges taken as
    given, which must be a topological order (every edge into u before any edge out of u,
    e.g. by increasing distance of the source). `moves` holds 0 at the sources and a large
    value elsewhere; it is updated in place."""
    for e in range(len(src)):
        m = moves[src[e]] + 1
        if m < moves[dst[e]]:
            moves[dst[e]] = m


@njit(cache=True, nogil=True)
def mark_sources(src: np.ndarray, dst: np.ndarray, mark: np.ndarray) -> None:
    """mark[u] |= mark[v] along each edge u -> v, the edges given in a topological order and
    taken from the last to the first (so every edge out of v comes before any edge into v):
    afterwards every state with a path to a marked state is marked."""
    for e in range(len(src) - 1, -1, -1):
        if mark[dst[e]]:
            mark[src[e]] = True
