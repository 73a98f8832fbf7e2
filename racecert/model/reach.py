"""Unit-step reachability over a whole track in linear time (numpy, no Python loop per cell).

The validator and the lap precondition ask one question: which cells can a
flood of unit steps (side or corner, with the layer rules of a move) reach
from some sources without taking steps that the lines forbid, and can one of
the reached cells step legally across a target line? `racecert.model.topology`
states the step rules cell by cell; this module answers the question for every
cell at once, so that a 4000 x 4000 grid takes seconds instead of hours.

How: almost every step is *symmetric* (a step between two cells drivable in
the same layer can be taken back). Those steps are contracted into connected
components by a vectorised union-find (horizontal runs first, then FastSV
hooking and shortcutting over the implicit grid edges, a few dozen sweeps even
for a 16-million-cell spiral). The remaining steps are directed: a layer
change on a ramp (the step back stays in the other layer) and every step that
crosses one of the lines (allowed, forbidden or one-way by the caller's rule).
They are few (ramps, and about 16 per cell of line span) and are followed by a
breadth-first search over the components. The result is exactly the set the
cell-by-cell flood reaches (tests compare both on random tracks).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from racecert.model.track import Line, Track
from racecert.model.unique import unique_sorted

Node = tuple[int, int, int]  # (x, y, layer)
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
# One orientation of each undirected same-layer step: right, down, down-right, down-left.
_HALF_STEPS = [(1, 0), (0, 1), (1, 1), (-1, 1)]

Blocking = Literal["any", "backward"]
"""Which line crossings a flood refuses: "any" crossing, or only "backward" ones
(against the line's direction)."""


@dataclass(frozen=True)
class Reach:
    """What a flood reached: `reached[layer, y, x]`, and whether a reached cell can step
    legally across the target line (`hit`)."""

    reached: np.ndarray
    hit: bool

    def nodes(self) -> set[Node]:
        """The reached cells as (x, y, layer) nodes."""
        layer, y, x = np.nonzero(self.reached)
        return set(zip(x.tolist(), y.tolist(), layer.tolist(), strict=True))


def reach(track: Track, sources: Iterable[Node], lines: tuple[Line, ...], blocking: Blocking,
          target: Line | None = None, take_target_steps: bool = False) -> Reach:
    """Cells reachable from `sources` by unit steps that cross no line of `lines` in a
    way `blocking` refuses; `hit` tells whether some reached cell has a unit step that
    crosses `target` legally. Steps crossing `target` legally are taken only with
    `take_target_steps`. Sources must be drivable in their layer.
    """
    grid = _Grid(track)
    src = grid.node_indices(sources)
    crossings = _crossing_steps(grid, tuple(lines) + ((target,) if target else ()))
    taken, hits = _judge(crossings, lines, blocking, target, take_target_steps)
    same_masks = grid.same_layer_masks()
    grid.drop_same_layer_steps(same_masks, crossings)  # they are judged one way at a time
    labels = _components(grid, same_masks)
    du, dv = grid.layer_changes(exclude=crossings)
    du = np.concatenate((du, crossings.u[taken]))
    dv = np.concatenate((dv, crossings.v[taken]))
    reached_label = _search(labels, src, du, dv)
    # off-track cells (label -1) read some label's entry and are masked out
    reached = reached_label[labels].reshape(grid.shape) & grid.drivable
    hit = bool(reached.reshape(-1)[crossings.u[hits]].any())
    return Reach(reached, hit)


# -- the grid as flat node indices ------------------------------------------------------


class _Grid:
    """Drivable cells and ramps of a track; node (x, y, layer) has index (layer*H + y)*W + x."""

    def __init__(self, track: Track) -> None:
        sa = track.surface_arrays
        self.layers = track.layers
        self.h, self.w = track.height, track.width
        self.shape = (self.layers, self.h, self.w)
        self.drivable = np.ascontiguousarray(sa.drivable[: self.layers])
        self.ramp = sa.ramp

    @property
    def size(self) -> int:
        return self.layers * self.h * self.w

    def node_indices(self, nodes: Iterable[Node]) -> np.ndarray:
        out = []
        for x, y, layer in nodes:
            if not (0 <= layer < self.layers and 0 <= y < self.h and 0 <= x < self.w
                    and self.drivable[layer, y, x]):
                raise ValueError(f"source {(x, y, layer)} is not a drivable cell")
            out.append((layer * self.h + y) * self.w + x)
        return np.array(out, dtype=np.int64)

    def same_layer_masks(self) -> dict[tuple[int, int, int], np.ndarray]:
        """(layer, dx, dy) -> mask[y, x]: the step from (x, y) by (dx, dy) stays in the layer
        between two drivable cells (one orientation of each undirected step)."""
        masks = {}
        for layer in range(self.layers):
            d = self.drivable[layer]
            for dx, dy in _HALF_STEPS:
                m = np.zeros((self.h, self.w), dtype=bool)
                src, dst = _shifted(self.h, self.w, dx, dy)
                np.logical_and(d[src], d[dst], out=m[src])
                masks[(layer, dx, dy)] = m
        return masks

    def drop_same_layer_steps(self, masks: dict[tuple[int, int, int], np.ndarray],
                              c: _Crossings) -> None:
        """Remove the crossing steps that stay in their layer from the symmetric steps
        (each undirected step {(x, y), (x + dx, y + dy)} in its one stored orientation)."""
        stay = c.landed == c.layer
        for (layer, dx, dy), mask in masks.items():
            here = stay & (c.layer == layer)
            fwd = here & (c.dx == dx) & (c.dy == dy)
            back = here & (c.dx == -dx) & (c.dy == -dy)
            mask[c.y[fwd], c.x[fwd]] = False
            mask[c.y[back] - dy, c.x[back] - dx] = False

    def layer_changes(self, exclude: _Crossings) -> tuple[np.ndarray, np.ndarray]:
        """Directed steps that change layer (from a ramp to a cell drivable only in the
        other layer), except the crossing steps in `exclude`."""
        ry, rx = np.nonzero(self.ramp)
        if self.layers == 1 or not len(rx):
            z = np.zeros(0, dtype=np.int64)
            return z, z
        steps = np.array(STEPS, dtype=np.int64)
        cell = np.arange(len(rx))
        layer, cell, d = (a.ravel() for a in np.meshgrid((0, 1), cell, np.arange(len(STEPS)),
                                                         indexing="ij"))
        x, y = rx[cell].astype(np.int64), ry[cell].astype(np.int64)
        dx, dy = steps[d, 0], steps[d, 1]
        landed = _landing_layer(self, layer, x, y, dx, dy)
        change = (landed >= 0) & (landed != layer)
        u = ((layer * self.h + y) * self.w + x)[change]
        v = ((landed * self.h + y + dy) * self.w + x + dx)[change]
        if len(exclude.u) and len(u):
            keep = ~np.isin(u * self.size + v, exclude.u * self.size + exclude.v)
            u, v = u[keep], v[keep]
        return u, v


def _shifted(h: int, w: int, dx: int, dy: int) -> tuple[tuple[slice, slice],
                                                           tuple[slice, slice]]:
    """Slices of the source cells whose (dx, dy) neighbour is on the grid, and of those
    neighbours."""
    src = (slice(max(0, -dy), h - max(0, dy)), slice(max(0, -dx), w - max(0, dx)))
    dst = (slice(max(0, dy), h - max(0, -dy)), slice(max(0, dx), w - max(0, -dx)))
    return src, dst


# -- steps that cross a line ------------------------------------------------------------


@dataclass(frozen=True)
class _Crossings:
    """Unit steps u -> v (node indices) that cross a line on the layer they land in;
    `sign[i, j]` is +1 (legal), -1 (against) or 0 for step i and line j."""

    u: np.ndarray
    v: np.ndarray
    layer: np.ndarray  # source layer
    landed: np.ndarray  # landing layer
    x: np.ndarray
    y: np.ndarray
    dx: np.ndarray
    dy: np.ndarray
    sign: np.ndarray


def _crossing_steps(grid: _Grid, lines: tuple[Line, ...]) -> _Crossings:
    """Every unit step between drivable cells whose landing layer is a line's layer and
    whose segment meets the line.

    A unit step from cell centre (x, y) by (dx, dy) meets the boundary x = k + 1/2
    exactly when it goes from column k to k + 1 (or back) and its midpoint's other
    coordinate, y + dy/2, lies in the closed span [lo - 1/2, hi + 1/2]; that is
    `racecert.model.geometry.line_crossing` at t = 1/2, in integers.
    """
    layer, x, y, dx, dy = _candidates(grid, lines)
    if not len(x):
        return _empty_crossings(len(lines))
    landed = _landing_layer(grid, layer, x, y, dx, dy)
    sign = np.zeros((len(x), len(lines)), dtype=np.int64)
    for j, line in enumerate(lines):
        fixed, step_fixed, other, step_other = ((x, dx, y, dy) if line.axis == "x"
                                                else (y, dy, x, dx))
        meets = (np.minimum(fixed, fixed + step_fixed) == line.k) & (step_fixed != 0)
        mid2 = 2 * other + step_other  # the other coordinate at the crossing, doubled
        meets &= (2 * line.lo - 1 <= mid2) & (mid2 <= 2 * line.hi + 1)
        meets &= landed == line.layer
        sign[:, j] = np.where(meets, np.sign(step_fixed) * line.sign, 0)
    keep = (landed >= 0) & sign.any(axis=1)
    layer, x, y, dx, dy, landed, sign = (a[keep] for a in (layer, x, y, dx, dy, landed, sign))
    u = (layer * grid.h + y) * grid.w + x
    v = (landed * grid.h + y + dy) * grid.w + x + dx
    return _Crossings(u, v, layer, landed, x, y, dx, dy, sign)


def _candidates(grid: _Grid, lines: tuple[Line, ...]) -> tuple[np.ndarray, ...]:
    """(layer, x, y, dx, dy) of every unit step from a cell on the grid beside a line
    (columns k and k + 1 of a line x = k, rows lo - 1 .. hi + 1), each step once."""
    ids = [np.zeros(0, dtype=np.int64)]
    for line in lines:
        n_fixed, n_span = (grid.w, grid.h) if line.axis == "x" else (grid.h, grid.w)
        fixed = np.array([c for c in (line.k, line.k + 1) if 0 <= c < n_fixed], dtype=np.int64)
        span = np.arange(max(line.lo - 1, 0), min(line.hi + 2, n_span), dtype=np.int64)
        f, s = (a.ravel() for a in np.meshgrid(fixed, span))
        x, y = (f, s) if line.axis == "x" else (s, f)
        cell = (y * grid.w + x)[None, :] + (np.arange(grid.layers) * grid.h * grid.w)[:, None]
        ids.append((cell.ravel()[:, None] * len(STEPS) + np.arange(len(STEPS))).ravel())
    step_id = unique_sorted(np.concatenate(ids))
    node, d = np.divmod(step_id, len(STEPS))
    layer, cell = np.divmod(node, grid.h * grid.w)
    y, x = np.divmod(cell, grid.w)
    steps = np.array(STEPS, dtype=np.int64)
    return layer, x, y, steps[d, 0], steps[d, 1]


def _empty_crossings(n_lines: int) -> _Crossings:
    z = np.zeros(0, dtype=np.int64)
    return _Crossings(z, z, z, z, z, z, z, z, np.zeros((0, n_lines), dtype=np.int64))


def _landing_layer(grid: _Grid, layer: np.ndarray, x: np.ndarray, y: np.ndarray,
                   dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The layer a unit step lands in (the rules of `topology.unit_step`), -1 if it is no
    step (the source is off-track or off the grid, or the target cannot be entered)."""
    h, w = grid.h, grid.w
    on = (0 <= x) & (x < w) & (0 <= y) & (y < h)
    nx, ny = x + dx, y + dy
    on_next = (0 <= nx) & (nx < w) & (0 <= ny) & (ny < h)
    cx, cy = np.where(on, x, 0), np.where(on, y, 0)
    cnx, cny = np.where(on_next, nx, 0), np.where(on_next, ny, 0)
    d = grid.drivable
    source_ok = on & d[layer, cy, cx]
    stays = on_next & d[layer, cny, cnx]
    other = (1 - layer) % grid.layers
    switches = (grid.layers == 2) & on_next & grid.ramp[cy, cx] & d[other, cny, cnx]
    landed = np.where(stays, layer, np.where(switches & on, other, -1))
    return np.where(source_ok, landed, -1)


def _judge(c: _Crossings, lines: tuple[Line, ...], blocking: Blocking, target: Line | None,
           take_target_steps: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which crossing steps the flood takes, and which cross the target legally."""
    own = c.sign[:, : len(lines)]
    taken = (own == 0).all(axis=1) if blocking == "any" else (own != -1).all(axis=1)
    hits = np.zeros(len(c.u), dtype=bool) if target is None else c.sign[:, len(lines)] == 1
    if not take_target_steps:
        taken &= ~hits
    return taken, hits


# -- connected components of the symmetric steps ------------------------------------------


def _components(grid: _Grid, masks: dict[tuple[int, int, int], np.ndarray]) -> np.ndarray:
    """A label per node: equal labels exactly for drivable nodes joined by symmetric steps
    (-1 for cells that are not drivable).

    Horizontal runs (cells joined by side steps along a row) are contracted
    first; the other steps become edges between runs, one per stretch of
    equal (upper run, lower run) pairs, so an open area costs a handful of
    edges per row. The runs are then joined by `_union`.
    """
    run = _runs(grid, masks)
    ends = [_run_edges(grid, run, layer, dx, masks[(layer, dx, 1)])
            for layer in range(grid.layers) for dx in (-1, 0, 1)]
    a = np.concatenate([e[0] for e in ends])
    b = np.concatenate([e[1] for e in ends])
    root = _union(int(run.max()) + 1, a, b)
    labels = run.reshape(-1)  # relabelled in place: run index -> its component's root
    on = labels >= 0
    labels[on] = root[labels[on]]
    return labels


def _runs(grid: _Grid, masks: dict[tuple[int, int, int], np.ndarray]) -> np.ndarray:
    """run[layer, y, x]: the index of the drivable cell's horizontal run, -1 off-track."""
    starts = grid.drivable.copy()
    for layer in range(grid.layers):
        starts[layer, :, 1:] &= ~masks[(layer, 1, 0)][:, :-1]
    run = np.cumsum(starts, dtype=np.int32).reshape(grid.shape)  # < 2^26 cells: int32
    run -= 1
    run[~grid.drivable] = -1
    return run


def _run_edges(grid: _Grid, run: np.ndarray, layer: int, dx: int,
               mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges between the runs of rows y and y + 1 for the steps (dx, 1) in `mask`,
    dropping each edge equal to its left neighbour's (same two runs)."""
    src, dst = _shifted(grid.h, grid.w, dx, 1)
    e = mask[src]
    p, q = run[layer][src], run[layer][dst]
    keep = e.copy()
    keep[:, 1:] &= ~(e[:, :-1] & (p[:, 1:] == p[:, :-1]) & (q[:, 1:] == q[:, :-1]))
    return p[keep], q[keep]


def _union(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of n vertices and the edges a[i] - b[i]: the smallest vertex
    of each vertex's component.

    FastSV (Zhang, Azad and Hu, 2020): hook each tree under the smallest
    grandparent seen across an edge, hook each vertex directly, shortcut; stop
    when a sweep changes nothing. Parents only decrease and f[u] <= u, so the
    loop ends, and at its fixed point f[f[u]] = f[u] (every parent is a root)
    and f[u] = f[v] across every edge.
    """
    f = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    while True:
        gf = f[f]
        m = gf.copy()
        np.minimum.at(m, a, gf[b])
        np.minimum.at(m, b, gf[a])
        before = f.copy()
        np.minimum.at(f, before, m)  # hook the parent's tree
        np.minimum(f, m, out=f)  # hook the vertex
        np.minimum(f, f[f], out=f)  # shortcut
        if np.array_equal(f, before):
            return f


# -- the search over components -----------------------------------------------------------


def _search(labels: np.ndarray, sources: np.ndarray, du: np.ndarray,
            dv: np.ndarray) -> np.ndarray:
    """Labels reached from the sources' labels along the directed steps du -> dv
    (breadth-first, each directed step looked at once)."""
    reached = np.zeros(len(labels), dtype=bool)
    cu, cv = labels[du], labels[dv]
    keep = cu != cv
    cu, cv = cu[keep], cv[keep]
    order = np.argsort(cu, kind="stable")
    cu, cv = cu[order], cv[order]
    frontier = unique_sorted(labels[sources])
    reached[frontier] = True
    while len(frontier):
        lo = np.searchsorted(cu, frontier, side="left")
        hi = np.searchsorted(cu, frontier, side="right")
        n = hi - lo
        if not n.sum():
            break
        idx = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(n.sum())
        nxt = unique_sorted(cv[idx])
        nxt = nxt[~reached[nxt]]
        reached[nxt] = True
        frontier = nxt
    return reached
