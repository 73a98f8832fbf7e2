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

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from racecert.model.geometry import touched_offsets
from racecert.model.track import Track
from racecert.model.unique import unique_sorted
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
"""Moves keyed at a time (`dag_moves`): a large open area has tens of millions."""


def drivable_cells(track: Track) -> int:
    """Number of cells (x, y) drivable in at least one layer."""
    return int(track.surface_arrays.drivable.any(axis=0).sum())


def dag_moves(dag: OptimalDag, width: int, height: int) -> np.ndarray:
    """Distinct moves of the DAG, arrivals included, as sorted int64 keys (`move_keys`).

    One key per move (start position, new velocity) instead of an (n, 4) array:
    a 1-D `np.unique` is several times faster than `np.unique(axis=0)` on the
    hundreds of thousands of moves of a large open track.
    The keys are made distinct about `CHUNK` moves at a time before they are gathered (many
    moves of a layer share a start and a new velocity), so no array of every move, or of
    a whole wide layer's, is ever built; short layers are taken together.
    """
    parts: list[np.ndarray] = []
    batch: list[np.ndarray] = []  # keys not yet made distinct (fewer than CHUNK)
    held = 0

    def add(keys: np.ndarray) -> None:
        nonlocal held
        batch.append(keys)
        held += len(keys)
        if held >= CHUNK:  # many short layers (a winding track) are made distinct together
            parts.append(unique_sorted(np.concatenate(batch)))
            batch.clear()
            held = 0

    for t, (src, dst) in enumerate(dag.edges):
        a, b = dag.layers[t], dag.layers[t + 1]
        for lo in range(0, len(src), CHUNK):
            s, d = src[lo: lo + CHUNK], dst[lo: lo + CHUNK]
            add(move_keys(a.x[s], a.y[s], b.vx[d], b.vy[d], width, height))
    a = dag.layers[-1]
    for lo in range(0, len(dag.arrive_src), CHUNK):
        s = dag.arrive_src[lo: lo + CHUNK]
        vx, vy = dag.arrive_state.velocities(slice(lo, lo + CHUNK))
        add(move_keys(a.x[s], a.y[s], vx, vy, width, height))
    if batch:
        parts.append(unique_sorted(np.concatenate(batch)))
    return unique_sorted(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)


def move_keys(px: np.ndarray, py: np.ndarray, vx: np.ndarray, vy: np.ndarray, width: int,
              height: int) -> np.ndarray:
    """Mixed-radix int64 key of each move: velocity major, then y, then x.

    Keys sorted by value are grouped by velocity (`key // (width * height)`).

    >>> int(move_keys(np.array([2]), np.array([1]), np.array([0]), np.array([0]), 10, 3)[0])
    1422
    """
    vel = ((vy.astype(np.int64) + height - 1) * (2 * width - 1) + vx.astype(np.int64)
           + width - 1)
    return (vel * height + py.astype(np.int64)) * width + px.astype(np.int64)


def red_coverage(track: Track, dag: OptimalDag) -> Coverage:
    """Cells touched by any move of `dag` over the drivable cells of `track`.

    Moves are grouped by velocity; the touched cells of one velocity are the
    same offsets (`touched_offsets`, exact) from every start position.
    """
    w, h = track.width, track.height
    keys = dag_moves(dag, w, h)
    x0, y0 = dag.layers[0].x[0], dag.layers[0].y[0]
    grid = np.zeros((h, w), dtype=bool)
    grid[y0, x0] = True
    vel = keys // (w * h)
    cut = np.flatnonzero(np.diff(vel)) + 1
    starts = np.concatenate(([0], cut)).tolist()
    velocities = vel[starts].tolist()
    del vel, cut  # positions are decoded one velocity at a time
    flat = grid.reshape(-1)
    for lo, hi, v in zip(starts, [*starts[1:], len(keys)], velocities, strict=True):
        vyv, vxv = divmod(v, 2 * w - 1)
        offsets = np.array([dy * w + dx for dx, dy, _ in
                            touched_offsets(vxv - (w - 1), vyv - (h - 1))], dtype=np.int64)
        step = max(CHUNK // len(offsets), 1)
        for a in range(lo, hi, step):
            cells = keys[a: min(a + step, hi)] % (w * h)  # y * w + x of each start
            flat[(cells[:, None] + offsets[None, :]).reshape(-1)] = True
    ys, xs = np.nonzero(grid)
    return Coverage(frozenset(zip(xs.tolist(), ys.tolist(), strict=True)), drivable_cells(track))


def jaccard_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 - |a ∩ b| / |a ∪ b| (0 for two empty sets).

    >>> jaccard_distance(frozenset({1, 2}), frozenset({2, 3}))
    Fraction(2, 3)
    """
    union = len(a | b)
    return Fraction(0) if union == 0 else 1 - Fraction(len(a & b), union)
