"""Red coverage: the share of the track that optimal trajectories use (docs/report.md).

Definitions (docs/report.md):

- a *cell* is a grid square (x, y); layers are merged, so a bridge cell used
  on either level counts once;
- *drivable cells* are the cells drivable in some layer: every (x, y) whose
  character is not off-track in `ground` or in `elevated` (asphalt,
  shoulders and ramps all count);
- *red cells* are the cells touched (docs/rules.md: the segment meets the cell's
  interior) by some move of the optimal DAG, arriving moves included, plus the
  initial position;
- coverage = |red| / |drivable| as an exact `Fraction`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from racecert.model.geometry import touched_offsets
from racecert.model.track import Track
from racecert.oracle.bfs import OptimalDag


@dataclass(frozen=True)
class Coverage:
    """Red coverage: `cells` touched by the optimal DAG out of `drivable` drivable cells."""

    cells: frozenset[tuple[int, int]]
    drivable: int

    @property
    def fraction(self) -> Fraction:
        return Fraction(len(self.cells), self.drivable)


CHUNK = 1 << 20
"""Arriving moves read at a time (`red_coverage`): a large open area has tens of millions."""


def drivable_cells(track: Track) -> int:
    """Number of cells (x, y) drivable in at least one layer."""
    return int(track.surface_arrays.drivable.any(axis=0).sum())


class _Offsets:
    """The touched cells of every move velocity of a DAG as flat offsets (dy·w + dx, from
    `touched_offsets`, the one definition), in compressed rows: velocity (vx, vy) is row
    (vy + vy0)·span + vx + vx0, its offsets offs[start[row]: start[row + 1]] (empty for
    the velocities no move has)."""

    def __init__(self, velocities: Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]],
                 width: int) -> None:
        """`velocities()` yields the moves' velocities a part at a time (read twice: for
        the largest components, then for the velocities present)."""
        vx0 = vy0 = 0
        for vx, vy in velocities():
            vx0 = max(vx0, int(np.abs(vx).max(initial=0)))
            vy0 = max(vy0, int(np.abs(vy).max(initial=0)))
        self.vx0, self.vy0, self.span = vx0, vy0, 2 * vx0 + 1
        present = np.zeros((2 * vy0 + 1) * self.span, dtype=bool)
        for vx, vy in velocities():
            _mark_present(present, vx, vy, vx0, vy0, self.span)
        lengths = np.zeros(len(present), dtype=np.int64)
        offs: list[int] = []
        for row in np.flatnonzero(present).tolist():
            vy, vx = divmod(row, self.span)
            cells = touched_offsets(vx - vx0, vy - vy0)
            offs.extend(dy * width + dx for dx, dy, _ in cells)
            lengths[row] = len(cells)
        self.start = np.concatenate(([0], np.cumsum(lengths)))
        self.offs = np.array(offs, dtype=np.int64)


@njit(cache=True, nogil=True, inline="always")
def _velocity_row(vx, vy, vx0, vy0, span):
    """The row of velocity (vx, vy) in the table of `_Offsets`."""
    return (np.int64(vy) + vy0) * span + (np.int64(vx) + vx0)


@njit(cache=True, nogil=True)
def _mark_present(present, vx, vy, vx0, vy0, span):
    """Mark the row of every velocity (vx[i], vy[i]) in `present`."""
    for i in range(len(vx)):
        present[_velocity_row(vx[i], vy[i], vx0, vy0, span)] = True


@njit(cache=True, nogil=True)
def _mark_moves(red, w, px, py, src, vx, vy, dst, vx0, vy0, span, start, offs):
    """Mark red[y·w + x + offset] for every offset of every move i: from the position
    (px, py)[src[i]] with the velocity (vx, vy)[dst[i]] (the table of `_Offsets`). The
    moves are a DAG's, so every cell they touch is on the grid (drivable); nothing here
    checks it."""
    for i in range(len(src)):
        s, d = src[i], dst[i]
        cell = np.int64(py[s]) * w + px[s]
        row = _velocity_row(vx[d], vy[d], vx0, vy0, span)
        for k in range(start[row], start[row + 1]):
            red[cell + offs[k]] = True


def red_coverage(track: Track, dag: OptimalDag) -> Coverage:
    """Cells touched by any move of `dag` over the drivable cells of `track`.

    One compiled pass per layer marks each move's touched cells, the same offsets
    (`touched_offsets`, exact) from every start position for one velocity; a large open
    area has tens of millions of moves, and marking them costs less than making them
    distinct first. The arriving moves are read `CHUNK` at a time.
    """
    w = track.width
    red = np.zeros(w * track.height, dtype=bool)
    red[int(dag.layers[0].y[0]) * w + int(dag.layers[0].x[0])] = True
    n_arr = len(dag.arrive_src)
    arrival_chunks = [slice(lo, min(lo + CHUNK, n_arr)) for lo in range(0, n_arr, CHUNK)]

    def velocities() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for b in dag.layers[1:]:
            yield b.vx, b.vy
        for c in arrival_chunks:
            yield dag.arrive_state.velocities(c)

    table = _Offsets(velocities, w)
    args = (table.vx0, table.vy0, table.span, table.start, table.offs)
    for t, (src, dst) in enumerate(dag.edges):
        a, b = dag.layers[t], dag.layers[t + 1]
        _mark_moves(red, w, a.x, a.y, src, b.vx, b.vy, dst, *args)
    last = dag.layers[-1]
    lx, ly = last.x, last.y
    for c in arrival_chunks:
        vx, vy = dag.arrive_state.velocities(c)
        _mark_moves(red, w, lx, ly, dag.arrive_src[c], vx, vy,
                    np.arange(len(vx), dtype=np.int64), *args)
    ys, xs = np.divmod(np.flatnonzero(red), w)
    return Coverage(frozenset(zip(xs.tolist(), ys.tolist(), strict=True)), drivable_cells(track))


def jaccard_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 - |a ∩ b| / |a ∪ b| (0 for two empty sets).

    >>> jaccard_distance(frozenset({1, 2}), frozenset({2, 3}))
    Fraction(2, 3)
    """
    union = len(a | b)
    return Fraction(0) if union == 0 else 1 - Fraction(len(a & b), union)
