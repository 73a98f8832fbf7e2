"""Red coverage and the cells of a trajectory, re-derived on the independent side.

Definitions (docs/report.md, "Red coverage, precisely"): a cell is a grid
square (x, y) with layers merged; the drivable cells are those whose character
is drivable in some layer (asphalt, shoulder or ramp, on the ground or
elevated); the red cells are the initial position and every cell touched by a
move of the optimal DAG (arriving moves included), a cell being touched when
the move's segment meets its open interior. coverage = red / drivable, an
exact `Fraction`.

Touched cells come from the verify geometry's Liang–Barsky clipping
(`racecert.independent.geometry.touched_cells`), one displacement at a time; the
grid is read here with this module's own table of characters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from racecert.independent.dag import LayeredDag
from racecert.independent.geometry import touched_cells
from racecert.independent.unique import distinct_sorted
from racecert.model.track import Track

_DRIVABLE = ({".", ":", "/"}, {"=", ":", "/"})  # ground, elevated
TouchedFn = Callable[[int, int], Sequence[tuple[int, ...]]]


@dataclass(frozen=True)
class RedCoverage:
    """Red cells (x, y) out of `drivable` drivable cells."""

    cells: frozenset[tuple[int, int]]
    drivable: int

    @property
    def fraction(self) -> Fraction:
        return Fraction(len(self.cells), self.drivable)


def drivable_count(track: Track) -> int:
    """Cells (x, y) drivable in at least one layer, read from the grid characters."""
    cells: set[tuple[int, int]] = set()
    grids = (track.ground, track.elevated or ())
    for layer, grid in enumerate(grids):
        for y, row in enumerate(grid):
            cells.update((x, y) for x, ch in enumerate(row) if ch in _DRIVABLE[layer])
    return len(cells)


def _mark(grid: np.ndarray, px: np.ndarray, py: np.ndarray, dx: np.ndarray,
          dy: np.ndarray, touched: TouchedFn) -> None:
    """Mark the cells touched by the moves from (px, py) by (dx, dy), one displacement at
    a time (moves sorted by displacement, each group a slice)."""
    if not len(px):
        return
    h, w = grid.shape
    code = (dx.astype(np.int64) + w) * (2 * h + 1) + (dy.astype(np.int64) + h)
    order = np.argsort(code, kind="stable")
    code, x_all, y_all = code[order], px[order], py[order]
    cuts = np.r_[0, np.nonzero(np.diff(code))[0] + 1, len(code)]
    for lo, hi in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        vx, vy = int(dx[order[lo]]), int(dy[order[lo]])
        y0, x0 = np.divmod(distinct_sorted(y_all[lo:hi] * w + x_all[lo:hi]), w)  # distinct starts
        for ox, oy, *_ in touched(vx, vy):
            cx, cy = x0 + ox, y0 + oy
            if cx.min() < 0 or cy.min() < 0 or cx.max() >= w or cy.max() >= h:
                raise ValueError(f"a DAG move by ({vx}, {vy}) touches a cell off the grid")
            grid[cy, cx] = True


def red_coverage(track: Track, dag: LayeredDag,
                 touched: TouchedFn = touched_cells) -> RedCoverage:
    """The red cells of `dag` (every move, arrivals included, plus the start) over the track.

    `touched(vx, vy)` lists the touched offsets (dx, dy, ...) of a displacement:
    the verify geometry's clipping by default (exact `Fraction`s, slow on long
    moves), or any other independent implementation.
    """
    grid = np.zeros((track.height, track.width), dtype=bool)
    x0, y0 = dag.start
    grid[y0, x0] = True
    for t, (src, _) in enumerate(dag.edges):
        dx, dy = dag.displacement(t)
        _mark(grid, dag.xs[t][src], dag.ys[t][src], dx, dy, touched)
    last = len(dag.xs) - 1
    dx, dy = dag.arrival_displacement()
    _mark(grid, dag.xs[last][dag.arrive_src], dag.ys[last][dag.arrive_src], dx, dy, touched)
    ys, xs = np.nonzero(grid)
    return RedCoverage(frozenset(zip(xs.tolist(), ys.tolist(), strict=True)),
                       drivable_count(track))


def trajectory_cells(positions: Iterable[tuple[int, int]],
                     touched: TouchedFn = touched_cells) -> frozenset[tuple[int, int]]:
    """Cells touched by the moves between consecutive positions, the first position included."""
    pts = list(positions)
    out = {pts[0]}
    for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
        out.update((x0 + ox, y0 + oy) for ox, oy, *_ in touched(x1 - x0, y1 - y0))
    return frozenset(out)


def jaccard_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 - |a ∩ b| / |a ∪ b| (0 when both are empty).

    >>> jaccard_distance(frozenset({1, 2}), frozenset({2, 3}))
    Fraction(2, 3)
    """
    union = len(a | b)
    return Fraction(0) if union == 0 else 1 - Fraction(len(a & b), union)
