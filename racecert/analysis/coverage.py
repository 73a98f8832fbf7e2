"""Red coverage: the share of the track that optimal trajectories use (SPEC §5.7).

Definitions (docs/report.md):

- a *cell* is a grid square (x, y); layers are merged, so a bridge cell used
  on either level counts once;
- *drivable cells* are the cells drivable in some layer: every (x, y) whose
  character is not off-track in `ground` or in `elevated` (asphalt,
  shoulders and ramps all count);
- *red cells* are the cells touched (SPEC §1: the segment meets the cell's
  interior) by some move of the optimal DAG, arriving moves included, plus the
  initial position;
- coverage = |red| / |drivable| as an exact `Fraction`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from racecert.model.geometry import touched_offsets
from racecert.model.track import Track
from racecert.solvers.bfs import OptimalDag


@dataclass(frozen=True)
class Coverage:
    """Red coverage: `cells` touched by the optimal DAG out of `drivable` drivable cells."""

    cells: frozenset[tuple[int, int]]
    drivable: int

    @property
    def fraction(self) -> Fraction:
        return Fraction(len(self.cells), self.drivable)


def drivable_cells(track: Track) -> int:
    """Number of cells (x, y) drivable in at least one layer."""
    return int(track.surface_arrays.drivable.any(axis=0).sum())


def dag_moves(dag: OptimalDag) -> np.ndarray:
    """Distinct moves (px, py, vx, vy) of the DAG, arrivals included, as an (n, 4) array."""
    parts = []
    for t, (src, dst) in enumerate(dag.edges):
        a, b = dag.layers[t], dag.layers[t + 1]
        parts.append(np.stack((a.x[src], a.y[src], b.vx[dst], b.vy[dst]), axis=1))
    a = dag.layers[-1]
    s = dag.arrive_src
    parts.append(np.stack((a.x[s], a.y[s], dag.arrive_state.vx, dag.arrive_state.vy), axis=1))
    return np.unique(np.concatenate(parts).astype(np.int64), axis=0)


def red_coverage(track: Track, dag: OptimalDag) -> Coverage:
    """Cells touched by any move of `dag` over the drivable cells of `track`."""
    moves = dag_moves(dag)
    x0, y0 = dag.layers[0].x[0], dag.layers[0].y[0]
    grid = np.zeros((track.height, track.width), dtype=bool)
    grid[y0, x0] = True
    vel = moves[:, 2:]
    uvel, inverse = np.unique(vel, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for k, (vx, vy) in enumerate(uvel.tolist()):
        p = moves[inverse == k, :2]
        for dx, dy, _ in touched_offsets(vx, vy):
            grid[p[:, 1] + dy, p[:, 0] + dx] = True
    ys, xs = np.nonzero(grid)
    return Coverage(frozenset(zip(xs.tolist(), ys.tolist(), strict=True)), drivable_cells(track))


def jaccard_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 - |a ∩ b| / |a ∪ b| (0 for two empty sets).

    >>> jaccard_distance(frozenset({1, 2}), frozenset({2, 3}))
    Fraction(2, 3)
    """
    union = len(a | b)
    return Fraction(0) if union == 0 else 1 - Fraction(len(a & b), union)
