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
- **the batch**: all states that move by the same displacement are checked
  together by numpy gathers of the surface along the precomputed offsets; layers
  (ramps) are walked cell by cell over the whole group at once.
- **lines**: a move crosses x = k + ½ iff k lies between p and q (half-open); the
  span test and the crossing time n / (2|v|) are integer; the cell entered at the
  crossing (whose layer decides whether the crossing counts) is the first touched
  cell beyond the line, found by a search over the offsets' monotone coordinate;
  start and finish are ordered by cross-multiplying their times (at equal times the
  finish is taken first, as in the verify geometry).
- **the opening rule**: on v′, for moves made while the phase is below K.

It reads the grid strings of a `racecert.model.track.Track` with its own table of
characters and imports nothing else from racecert.

>>> [(int(a), int(b)) for a, b in zip(*footprint(3, 1)[:2])]
[(0, 0), (1, 0), (2, 1), (3, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from racecert.model.track import Line, Track

# Reason codes of `FastGeometry.classify` (the order of the checks is the rule order).
OK, ZERO, OPENING, OFF_GRID, OFF_TRACK, NOT_ENDABLE, WRONG_WAY = range(7)
REASONS = ("ok", "zero velocity", "opening rule", "leaves the grid", "off-track cell",
           "ends off asphalt", "wrong way over a line")

ACCEL_X = np.array([ax for ax in (-1, 0, 1) for _ay in (-1, 0, 1)], dtype=np.int64)
ACCEL_Y = np.array([ay for _ax in (-1, 0, 1) for ay in (-1, 0, 1)], dtype=np.int64)
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
        self.plane = h * w
        op = track.opening
        self.k = op.moves if op is not None else 0
        self.max_speed = op.max_speed if op is not None else None
        self.straight = bool(op is not None and op.straight)
        self.perp_is_y = track.car.direction in ("+x", "-x")
        self.lines = (track.start, track.finish)

    # -- the batch ------------------------------------------------------------

    def classify(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                 layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> Moves:
        """All nine moves of each state: row 9·i + a is state i with acceleration a.

        `phase` is the number of moves made so far, capped at K (the opening rule
        applies to the move iff phase < K); the new phase is the caller's business.
        """
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
            self._walk_groups(live, px, py, nvx, nvy, code, new_layer, new_prog, arrives)
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

    def _walk_groups(self, live: np.ndarray, px: np.ndarray, py: np.ndarray, vx: np.ndarray,
                     vy: np.ndarray, code: np.ndarray, layer: np.ndarray,
                     progress: np.ndarray, arrives: np.ndarray) -> None:
        """Check the live candidates, one displacement at a time, writing results in place."""
        gx, gy = vx[live], vy[live]
        x0, y0 = int(gx.min()), int(gy.min())
        vcode = (gx - x0) * (int(gy.max()) - y0 + 1) + (gy - y0)
        if int(vcode.max()) < 1 << 15:  # numpy sorts 16-bit integers by radix
            vcode = vcode.astype(np.int16)
        order = np.argsort(vcode, kind="stable")
        sorted_codes = vcode[order]
        cuts = np.flatnonzero(np.diff(sorted_codes)) + 1
        starts = np.concatenate(([0], cuts))
        ends = np.concatenate((cuts, [len(order)]))
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
            rows = live[order[a:b]]
            dvx, dvy = int(vx[rows[0]]), int(vy[rows[0]])
            self._walk_one(rows, px[rows], py[rows], dvx, dvy, code, layer, progress, arrives)

    def _walk_one(self, rows: np.ndarray, px: np.ndarray, py: np.ndarray, vx: int, vy: int,
                  code: np.ndarray, layer: np.ndarray, progress: np.ndarray,
                  arrives: np.ndarray) -> None:
        """All candidates `rows` move by (vx, vy) from (px, py); their targets are on the grid."""
        dx, dy, _, _ = footprint(vx, vy)
        base = py * self.width + px
        offsets = dy * self.width + dx
        cur = layer[rows]
        if self.two_layers:
            ok, cur, layer_at = self._walk_layers(base, offsets, cur)
        else:
            cells = base.astype(np.int32)[:, None] + offsets.astype(np.int32)[None, :]
            ok = self.drive[cells].all(axis=1)
            layer_at = None
        bad = np.zeros(len(rows), dtype=np.int8)
        bad[~ok] = OFF_TRACK
        ends = self.end[cur * self.plane + base + vy * self.width + vx]
        bad[(bad == OK) & ~ends] = NOT_ENDABLE
        hits, times, legal = [], [], []
        for line in self.lines:
            hit, num, den = self._crossing(line, px, py, vx, vy, dx, dy, cur, layer_at)
            hits.append(hit)
            times.append((num, den))
            legal.append((vx if line.axis == "x" else vy) * line.sign > 0)
        for hit, ok_dir in zip(hits, legal, strict=True):
            if not ok_dir:
                bad[(bad == OK) & hit] = WRONG_WAY
        s_hit, f_hit = hits
        (sn, sd), (fn, fd) = times
        start_first = s_hit & f_hit & (sn * fd < fn * sd)  # equal times: the finish first
        prog = progress[rows]
        arrive = f_hit & ((prog == 1) | start_first)
        new_prog = np.where(f_hit, s_hit & ~start_first, s_hit | (prog == 1)).astype(np.int64)
        code[rows] = bad
        layer[rows] = cur
        progress[rows] = new_prog
        arrives[rows] = arrive & (bad == OK)

    def _walk_layers(self, base: np.ndarray, offsets: np.ndarray, cur: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ramp rule along the touched cells: (valid, end layer, layer in each cell)."""
        n = len(base)
        ok = np.ones(n, dtype=bool)
        prev_ramp = np.zeros(n, dtype=bool)
        cur = cur.astype(np.int64, copy=True)
        layer_at = np.empty((len(offsets), n), dtype=np.int64)
        for i, off in enumerate(offsets.tolist()):
            cell = base + off
            here = self.drive[cur * self.plane + cell]
            switch = ~here & prev_ramp & self.drive[(1 - cur) * self.plane + cell]
            ok &= here | switch
            cur ^= switch
            layer_at[i] = cur
            prev_ramp = self.ramp[cell]
        return ok, cur, layer_at

    def _crossing(self, line: Line, px: np.ndarray, py: np.ndarray, vx: int, vy: int,
                  dx: np.ndarray, dy: np.ndarray, cur: np.ndarray,
                  layer_at: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, int]:
        """Which moves meet `line` on its layer, and when: (hit, t numerator, t denominator).

        A vertical line x = k + ½ is met iff k lies in [min(p, q), max(p, q)); at
        t = n / (2|vx|) with n = (2k + 1 − 2·px)·sign(vx) the doubled span coordinate
        2·py + 2·vy·t must lie in [2·lo − 1, 2·hi + 1] (closed span).
        """
        if line.axis == "x":
            fixed, span, vf, vs, along = px, py, vx, vy, dx
        else:
            fixed, span, vf, vs, along = py, px, vy, vx, dy
        n = len(px)
        if vf == 0:
            return np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64), 1
        sign = 1 if vf > 0 else -1
        den = 2 * abs(vf)
        num = (2 * line.k + 1 - 2 * fixed) * sign
        hit = (num > 0) & (num < den)
        if not hit.any():  # no move of the group straddles the line
            return hit, num, den
        doubled = 2 * span * den + 2 * vs * num  # (doubled span coordinate at t) · den
        hit &= (doubled >= (2 * line.lo - 1) * den) & (doubled <= (2 * line.hi + 1) * den)
        # the first touched cell beyond the line: its coordinate along the fixed axis
        # passes k (moving +) or k + 1 (moving -); offsets are monotone along that axis
        if sign > 0:
            cell = np.searchsorted(along, line.k + 1 - fixed, side="left")
        else:
            cell = np.searchsorted(-along, fixed - line.k, side="left")
        if layer_at is None:
            at_layer = cur
        else:
            cell = np.minimum(cell, len(along) - 1)
            at_layer = layer_at[cell, np.arange(n)]
        hit &= at_layer == line.layer
        return hit, num, den

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
