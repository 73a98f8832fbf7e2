"""A fast, vectorised second geometry in integer arithmetic (docs/rules.md §2-§6).

The oracle walks cell boundaries (racecert.model.geometry) and screens moves with
clearance and summed-area tables (racecert.model.rules); the verify geometry clips
the segment against every cell with `Fraction`s. This module decides the same
questions a third way, with integers only, for many states at once:

- **touched cells** of a displacement (vx, vy): a cell of the move's bounding box
  is touched iff the implicit line function f(x, y) = vy·x − vx·y takes both signs,
  strictly, on the cell's four corners (in doubled coordinates, so corners are
  integers). Inside the bounding box the line meets an open cell only where the
  segment does (beyond the ends it stays inside the end cells' open squares).
- **entry order**: a touched cell (dx, dy) is entered at t = max(tx, ty), the later
  of its two slab entries; with the common denominator 2·|vx|·|vy| both are integer
  numerators, (2|dx| − 1)·|vy| and (2|dy| − 1)·|vx| (0 for the start row/column),
  so cells are sorted by an integer. Both are computed once per displacement.
- **the batch**: the cheap tests (zero velocity, the opening rule, the grid) are numpy
  passes over all candidates; the candidates left are walked by a compiled loop
  (`racecert.independent.fastgeom_kernel`, numba, written for this side) over a table
  of footprints per displacement, filled on demand from `footprint`; layers (ramps)
  are walked cell by cell. `valid_moves` (the searches' and the move re-check's) does
  the cheap tests in the same compiled call and returns only the valid moves.
- **lines**: a move crosses x = k + ½ iff k lies between p and q (half-open); the
  span test and the crossing time n / (2|v|) are integer; the cell entered at the
  crossing (whose layer decides whether the crossing counts) is the first touched
  cell beyond the line, found by a search over the offsets' monotone coordinate;
  start and finish are ordered by cross-multiplying their times (at equal times the
  finish is taken first, as in the verify geometry).
- **the opening rule**: on v′, for moves made while the phase is below K.

It reads the grid strings of a `racecert.model.track.Track` with its own table of
characters and imports nothing else from racecert outside this package.

>>> [(int(a), int(b)) for a, b in zip(*footprint(3, 1)[:2])]
[(0, 0), (1, 0), (2, 1), (3, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from racecert.independent.fastgeom_kernel import (
    NOT_ENDABLE,
    OFF_GRID,
    OFF_TRACK,
    OK,
    OPENING,
    WRONG_WAY,
    ZERO,
    valid_moves,
    walk_moves,
)
from racecert.independent.race_rules import ACCELS
from racecert.independent.unique import distinct_sorted
from racecert.model.track import Track

# Reason codes of `FastGeometry.classify` (the order of the checks is the rule order):
# OK, ZERO, OPENING, OFF_GRID, OFF_TRACK, NOT_ENDABLE, WRONG_WAY (fastgeom_kernel's).
__all__ = ["NOT_ENDABLE", "OFF_GRID", "OFF_TRACK", "OK", "OPENING", "WRONG_WAY", "ZERO",
           "FastGeometry", "Moves", "footprint", "touched_cells"]
REASONS = ("ok", "zero velocity", "opening rule", "leaves the grid", "off-track cell",
           "ends off asphalt", "wrong way over a line")

ACCEL_X = np.array([ax for ax, _ in ACCELS], dtype=np.int64)
ACCEL_Y = np.array([ay for _, ay in ACCELS], dtype=np.int64)
"""The nine accelerations; acceleration index a is (ACCEL_X[a], ACCEL_Y[a])."""

_OFF, _ASPHALT, _SHOULDER, _RAMP = 0, 1, 2, 3
_CODES = ({"#": _OFF, ".": _ASPHALT, ":": _SHOULDER, "/": _RAMP},
          {"#": _OFF, " ": _OFF, "=": _ASPHALT, ":": _SHOULDER, "/": _RAMP})


@cache
def footprint(vx: int, vy: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Touched cells of the move (0, 0) -> (vx, vy): (dx, dy, entry numerators, denominator).

    Cells are in entry order; cell i is entered at t = num[i] / den (0 for the start).

    >>> dx, dy, num, den = footprint(2, 1)
    >>> [(int(a), int(b), Fraction(int(n), den)) for a, b, n in zip(dx, dy, num)][1]
    (1, 0, Fraction(1, 4))
    """
    ax, ay = abs(vx), abs(vy)
    sx, sy = (vx > 0) - (vx < 0), (vy > 0) - (vy < 0)
    gx, gy = np.meshgrid(np.arange(ax + 1), np.arange(ay + 1), indexing="ij")
    gx, gy = gx.ravel(), gy.ravel()  # |dx|, |dy| of the bounding box's cells
    # f = ay·X − ax·Y at the doubled corners (2|dx| ± 1, 2|dy| ± 1), in the first quadrant
    corners = [ay * (2 * gx + cx) - ax * (2 * gy + cy) for cx in (-1, 1) for cy in (-1, 1)]
    lo = np.minimum.reduce(corners)
    hi = np.maximum.reduce(corners)
    touched = (lo < 0) & (hi > 0)
    gx, gy = gx[touched], gy[touched]
    mx = ay if ax and ay else 1  # numerators over den = 2·ax·ay (or 2·|v| on an axis)
    my = ax if ax and ay else 1
    ex = np.where(gx > 0, (2 * gx - 1) * mx, 0)
    ey = np.where(gy > 0, (2 * gy - 1) * my, 0)
    num = np.maximum(ex, ey)
    order = np.argsort(num, kind="stable")
    den = 2 * (ax * ay if ax and ay else max(ax, ay))
    out = (sx * gx[order], sy * gy[order], num[order], den)
    for a in out[:3]:
        a.setflags(write=False)
    return out


def touched_cells(vx: int, vy: int) -> tuple[tuple[int, int, Fraction], ...]:
    """`footprint` as (dx, dy, exact entry t) tuples, for comparisons with other geometries.

    >>> [c[:2] for c in touched_cells(1, 1)]
    [(0, 0), (1, 1)]
    """
    dx, dy, num, den = footprint(vx, vy)
    rows = zip(dx.tolist(), dy.tolist(), num.tolist(), strict=True)
    return tuple((a, b, Fraction(n, den)) for a, b, n in rows)


@dataclass(frozen=True)
class Moves:
    """The outcome of candidate moves, aligned arrays (one row per candidate).

    `code` is a reason code (OK = valid); for valid rows `x, y, vx, vy, layer,
    progress` are the new state and `arrives` says whether the move arrives;
    `src` and `accel` index the source state and the acceleration.
    """

    src: np.ndarray
    accel: np.ndarray
    code: np.ndarray
    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    layer: np.ndarray
    progress: np.ndarray
    arrives: np.ndarray

    def take(self, idx: np.ndarray) -> Moves:
        """The rows `idx` (a mask or an index array)."""
        return Moves(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))


class FastGeometry:
    """Batch move validity on one track.

    >>> # g = FastGeometry(track); g.classify(x, y, vx, vy, layer, progress, phase)
    """

    def __init__(self, track: Track) -> None:
        self.track = track
        self.width, self.height = w, h = track.width, track.height
        surf = np.zeros((2, h, w), dtype=np.int8)
        grids = (track.ground, track.elevated or ())
        for layer, grid in enumerate(grids):
            for y, row in enumerate(grid[:h]):
                for x, ch in enumerate(row[:w]):
                    surf[layer, y, x] = _CODES[layer].get(ch, _OFF)
        self.two_layers = track.elevated is not None
        self.drive = (surf != _OFF).ravel()  # flat index layer·H·W + y·W + x
        self.end = ((surf == _ASPHALT) | (surf == _RAMP)).ravel()
        self.ramp = (surf[0] == _RAMP).ravel()
        self._blocked = np.zeros(0, dtype=np.int64)
        self.rebuild()
        self.plane = h * w
        op = track.opening
        self.k = op.moves if op is not None else 0
        self.max_speed = op.max_speed if op is not None else None
        self.straight = bool(op is not None and op.straight)
        self.perp_is_y = track.car.direction in ("+x", "-x")
        self.lines = (track.start, track.finish)
        self._lines = np.array([[0 if ln.axis == "x" else 1, ln.k, ln.lo, ln.hi, ln.sign,
                                 ln.layer] for ln in self.lines], dtype=np.int64)
        # the footprint table of the compiled walk (`_footprints`), grown on demand
        self._span = 0
        self._slot = np.full(1, -1, dtype=np.int64)
        self._slots: dict[tuple[int, int], int] = {}
        self._cells: list[tuple[np.ndarray, np.ndarray]] = []
        self._fp_start = self._fp_len = self._fp_dx = self._fp_dy = np.zeros(0, np.int64)
        self._scratch = np.zeros(1, dtype=np.int64)

    def rebuild(self) -> None:
        """Derive the summed-area table of undrivable layer-0 cells from `drive` (done
        at construction; again after a caller, e.g. a corruption test, edits `drive`)."""
        h, w = self.height, self.width
        off = ~self.drive[: h * w].reshape(h, w)
        blocked = np.zeros((h + 1, w + 1), dtype=np.int64)
        blocked[1:, 1:] = off.cumsum(axis=0).cumsum(axis=1)
        self._blocked = blocked.ravel()

    # -- the batch ------------------------------------------------------------

    def classify(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                 layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> Moves:
        """All nine moves of each state: row 9·i + a is state i with acceleration a.

        `phase` is the number of moves made so far, capped at K (the opening rule
        applies to the move iff phase < K); the new phase is the caller's business.
        """
        x, y, vx, vy, layer, progress, phase = (np.asarray(a, dtype=np.int64) for a in (
            x, y, vx, vy, layer, progress, phase))
        n = len(x)
        src = np.repeat(np.arange(n, dtype=np.int64), 9)
        accel = np.tile(np.arange(9, dtype=np.int64), n)
        nvx = vx[src] + ACCEL_X[accel]
        nvy = vy[src] + ACCEL_Y[accel]
        px, py = x[src], y[src]
        code = np.full(9 * n, OK, dtype=np.int8)
        code[(nvx == 0) & (nvy == 0)] = ZERO
        code[(code == OK) & self._opening_blocks(phase[src], nvx, nvy)] = OPENING
        qx, qy = px + nvx, py + nvy
        inside = (qx >= 0) & (qx < self.width) & (qy >= 0) & (qy < self.height)
        code[(code == OK) & ~inside] = OFF_GRID
        new_layer = layer[src].astype(np.int64, copy=True)
        new_prog = progress[src].astype(np.int64, copy=True)
        arrives = np.zeros(9 * n, dtype=bool)
        live = np.flatnonzero(code == OK)
        if len(live):
            self._walk(live, px, py, nvx, nvy, code, new_layer, new_prog, arrives)
        return Moves(src, accel, code, qx, qy, nvx, nvy, new_layer, new_prog, arrives)

    def _opening_blocks(self, phase: np.ndarray, vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
        """Moves that the opening rule forbids (phase < K and over speed or not straight)."""
        if self.k == 0:
            return np.zeros(len(vx), dtype=bool)
        bad = np.zeros(len(vx), dtype=bool)
        if self.max_speed is not None:
            bad |= (np.abs(vx) > self.max_speed) | (np.abs(vy) > self.max_speed)
        if self.straight:
            bad |= (vy if self.perp_is_y else vx) != 0
        return bad & (phase < self.k)

    def _walk(self, live: np.ndarray, px: np.ndarray, py: np.ndarray, vx: np.ndarray,
              vy: np.ndarray, code: np.ndarray, layer: np.ndarray, progress: np.ndarray,
              arrives: np.ndarray) -> None:
        """Judge the live candidates by the compiled walk, writing results in place."""
        self._footprints(vx[live], vy[live])
        walk_moves(live, px, py, vx, vy, layer, progress, *self._tables(), code, arrives)

    def _tables(self) -> tuple:
        """The footprint table and the track's arrays, as the compiled kernels take them."""
        return (self._slot, self._span, self._fp_start, self._fp_len, self._fp_dx,
                self._fp_dy, self.width, self.plane, self.two_layers, self.drive, self.end,
                self.ramp, self._blocked, self._lines, self._scratch)

    def valid_moves(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                    layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> Moves:
        """The valid moves of `classify` alone (code OK), in the same (state,
        acceleration) order, from one fused compiled pass: no nine-fold numpy passes,
        so the searches' cost per state is the walk itself.

        The rows are views into buffers of nine rows per state (callers that keep
        them long copy what they keep).
        """
        x, y, vx, vy, layer, progress, phase = (np.ascontiguousarray(a, dtype=np.int64)
                                                for a in (x, y, vx, vy, layer, progress,
                                                          phase))
        n = len(x)
        if n:  # every displacement a state's nine accelerations can make (not (0, 0))
            side = 2 * int(max(np.abs(vx).max(), np.abs(vy).max())) + 5
            base = distinct_sorted((vx + side // 2) * side + (vy + side // 2))
            cand = (base[:, None] + (ACCEL_X * side + ACCEL_Y)[None, :]).ravel()
            dvx, dvy = np.divmod(cand, side)
            dvx, dvy = dvx - side // 2, dvy - side // 2
            moving = (dvx != 0) | (dvy != 0)
            if moving.any():
                self._footprints(dvx[moving], dvy[moving])
        out = [np.empty(9 * n, dtype=np.int64) for _ in range(8)]
        arrives = np.empty(9 * n, dtype=np.bool_)
        count = valid_moves(x, y, vx, vy, layer, progress, phase, self.k,
                            -1 if self.max_speed is None else self.max_speed, self.straight,
                            self.perp_is_y, self.height, *self._tables(), *out, arrives)
        src, accel, qx, qy, nvx, nvy, new_layer, new_prog = (a[:count] for a in out)
        return Moves(src, accel, np.zeros(count, dtype=np.int8), qx, qy, nvx, nvy, new_layer,
                     new_prog, arrives[:count])

    def _footprints(self, vx: np.ndarray, vy: np.ndarray) -> None:
        """Make sure the footprint table holds every displacement (vx[i], vy[i]): the slot
        array covers speeds up to the largest seen (regrown when passed), each new
        displacement's `footprint` is appended once."""
        need = int(max(np.abs(vx).max(), np.abs(vy).max()))
        if need > self._span:
            self._span = max(need, 2 * self._span)
            side = 2 * self._span + 1
            self._slot = np.full(side * side, -1, dtype=np.int64)
            for (dx, dy), s in self._slots.items():
                self._slot[(dx + self._span) * side + dy + self._span] = s
        side = 2 * self._span + 1
        codes = (vx + self._span) * side + (vy + self._span)
        missing = distinct_sorted(codes[self._slot[codes] < 0])
        if not len(missing):
            return
        for c in missing.tolist():
            dvx, dvy = divmod(c, side)
            dvx, dvy = dvx - self._span, dvy - self._span
            dx, dy, _, _ = footprint(dvx, dvy)
            self._slots[(dvx, dvy)] = self._slot[c] = len(self._cells)
            self._cells.append((dx, dy))
        lens = np.array([len(dx) for dx, _ in self._cells], dtype=np.int64)
        self._fp_len = lens
        self._fp_start = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        self._fp_dx = np.concatenate([dx for dx, _ in self._cells]).astype(np.int64)
        self._fp_dy = np.concatenate([dy for _, dy in self._cells]).astype(np.int64)
        if int(lens.max()) > len(self._scratch):
            self._scratch = np.zeros(int(lens.max()), dtype=np.int64)

    # -- one move (tests and replays) -------------------------------------------

    def move(self, state: tuple[int, ...], accel: tuple[int, int]
             ) -> tuple[int, tuple[int, int, int, int, int, int] | None, bool]:
        """One move: (reason code, new (x, y, vx, vy, layer, progress) or None, arrives).

        `state` is (x, y, vx, vy, layer, progress, phase).
        """
        arrays = [np.array([v], dtype=np.int64) for v in state]
        m = self.classify(*arrays)
        a = (accel[0] + 1) * 3 + (accel[1] + 1)
        if m.code[a] != OK:
            return int(m.code[a]), None, False
        new = (int(m.x[a]), int(m.y[a]), int(m.vx[a]), int(m.vy[a]), int(m.layer[a]),
               int(m.progress[a]))
        return OK, new, bool(m.arrives[a])
