"""One-pass propagations over a DAG whose edges are given in a topological order.

Yellow's selection (`racecert.oracle.dijkstra._select`) works on the tight edges between
settled states: each goes from a state at distance d to one at d + |v'| >= d + 1, so
sorting the edges by their source's distance (or, backwards, by their target's) is a
topological order, and one pass replaces a fixpoint iteration whose rounds grow with the
trajectory's moves (833 rounds over millions of edges on a long serpentine).

>>> import numpy as np
>>> src, dst = np.array([1, 0, 0]), np.array([2, 1, 2])
>>> moves = np.array([0, 99, 99])
>>> fewest_moves(src, dst, np.array([1, 2, 0]), moves); moves.tolist()
[0, 1, 1]
>>> mark = np.array([False, False, True])
>>> mark_sources(src, dst, np.array([0, 1, 2]), mark); mark.tolist()
[True, True, True]
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def fewest_moves(src: np.ndarray, dst: np.ndarray, order: np.ndarray,
                 moves: np.ndarray) -> None:
    """moves[v] = min(moves[v], moves[u] + 1) along each edge u -> v, the edges taken in
    `order`, which must visit every edge into u before any edge out of u (e.g. by
    increasing distance of the source). `moves` holds 0 at the sources and a large
    value elsewhere; it is updated in place."""
    for k in range(len(order)):
        e = order[k]
        m = moves[src[e]] + 1
        if m < moves[dst[e]]:
            moves[dst[e]] = m


@njit(cache=True, nogil=True)
def mark_sources(src: np.ndarray, dst: np.ndarray, order: np.ndarray,
                 mark: np.ndarray) -> None:
    """mark[u] |= mark[v] along each edge u -> v, the edges taken in `order`, which must
    visit every edge out of v before any edge into v (e.g. by decreasing distance of the
    target): afterwards every state with a path to a marked state is marked."""
    for k in range(len(order)):
        e = order[k]
        if mark[dst[e]]:
            mark[src[e]] = True


@njit(cache=True, nogil=True)
def fewest_moves_forwards(src: np.ndarray, dst: np.ndarray, moves: np.ndarray) -> None:
    """`fewest_moves` with the edges taken as given (already in a topological order): no
    order array to build over millions of edges."""
    for e in range(len(src)):
        m = moves[src[e]] + 1
        if m < moves[dst[e]]:
            moves[dst[e]] = m


@njit(cache=True, nogil=True)
def mark_sources_backwards(src: np.ndarray, dst: np.ndarray, mark: np.ndarray) -> None:
    """`mark_sources` with the edges taken from the last to the first (given in a
    topological order, so that backwards every edge out of v comes before any into v)."""
    for e in range(len(src) - 1, -1, -1):
        if mark[dst[e]]:
            mark[src[e]] = True
