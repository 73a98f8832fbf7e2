"""The move rules of SPEC §3-§4, as one interface the solvers consume.

`RuleProfile` is that interface: an initial state and a vectorised `expand`
that turns a batch of states into their legal successors (and the moves that
arrive). Solvers never look at grids or lines themselves, so a second rule
profile (e.g. the classic lattice-point game with polygonal walls) plugs in by
implementing the same two methods.

`VectorRaceRules` is racecert's profile. `apply_move` is its scalar,
exact-`Fraction` reference for one move: it explains *why* a move is invalid
and is what the vectorised code is tested against.

A state is (x, y, vx, vy, layer, progress, phase): `progress` is 1 once the
start line has been crossed legally (the race's own bookkeeping, implied by the
position on ordinary tracks but kept so that bridges over a line stay exact;
in an arrived state it is the next lap's: 1 when the arriving move crossed the
start line after the finish line),
`phase` = min(moves made, K) for an opening rule of K moves (0 without one).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from racecert.model.geometry import line_crossing, touched_offsets
from racecert.model.track import DIRECTION_VECTORS, Line, Track

ACCELERATIONS: tuple[tuple[int, int], ...] = tuple(
    (ax, ay) for ay in (-1, 0, 1) for ax in (-1, 0, 1)
)


@dataclass(frozen=True)
class CarState:
    """One car state; see the module docstring for the fields."""

    x: int
    y: int
    vx: int = 0
    vy: int = 0
    layer: int = 0
    progress: int = 0
    phase: int = 0

    @property
    def kinematic(self) -> tuple[int, int, int, int, int]:
        """(x, y, vx, vy, layer): what a final state is distinguished by."""
        return (self.x, self.y, self.vx, self.vy, self.layer)


@dataclass(frozen=True)
class MoveResult:
    """The outcome of one move from a state with one acceleration."""

    valid: bool
    reason: str
    state: CarState | None = None
    arrives: bool = False
    touched: tuple[tuple[int, int, int], ...] = ()
    crossings: tuple[tuple[str, Fraction], ...] = ()


def opening_allows(track: Track, phase: int, vx: int, vy: int) -> bool:
    """Whether the opening rule allows new velocity (vx, vy) on the move after `phase` moves."""
    op = track.opening
    if op is None or phase >= op.moves:
        return True
    if op.max_speed is not None and max(abs(vx), abs(vy)) > op.max_speed:
        return False
    if op.straight:
        dx, dy = DIRECTION_VECTORS[track.car.direction]
        if (vy if dx else vx) != 0:
            return False
    return True


def apply_move(track: Track, s: CarState, accel: tuple[int, int]) -> MoveResult:
    """Apply acceleration `accel` to state `s` under SPEC's rules (exact reference).

    The opening rule is applied when `s.phase` < K; callers that count moves
    themselves (the editor-compatible key) pass the move count as the phase.

    >>> from racecert.model.parse import parse_track
    >>> t = parse_track(open("tracks/tiny_straight.toml", "rb").read())  # doctest: +SKIP
    """
    vx, vy = s.vx + accel[0], s.vy + accel[1]
    if (vx, vy) == (0, 0):
        return MoveResult(False, "zero velocity")
    if not opening_allows(track, s.phase, vx, vy):
        return MoveResult(False, "opening rule")
    layer = s.layer
    walked: list[tuple[int, int, int, Fraction]] = []
    prev: tuple[int, int] | None = None
    for dx, dy, t in touched_offsets(vx, vy):
        cx, cy = s.x + dx, s.y + dy
        if track.drivable(layer, cx, cy):
            pass
        elif prev is not None and track.is_ramp(*prev) and track.drivable(1 - layer, cx, cy):
            layer = 1 - layer
        else:
            return MoveResult(False, f"cell ({cx}, {cy}) not drivable in layer {layer}")
        walked.append((cx, cy, layer, t))
        prev = (cx, cy)
    qx, qy = s.x + vx, s.y + vy
    if not track.endable(layer, qx, qy):
        return MoveResult(False, f"ends on ({qx}, {qy}), not asphalt in layer {layer}")
    events: list[tuple[Fraction, str]] = []
    for name, line in (("start", track.start), ("finish", track.finish)):
        t = line_crossing(line, s.x, s.y, vx, vy)
        if t is None:
            continue
        entered_layer = next(lay for _, _, lay, te in walked if te == t)
        if entered_layer != line.layer:
            continue  # passes over or under the line on another layer
        v = vx if line.axis == "x" else vy
        if v * line.sign < 0:
            return MoveResult(False, f"crosses the {name} line the wrong way")
        events.append((t, name))
    events.sort()
    progress, arrives = s.progress, False
    for _, name in events:
        if name == "start":
            progress = 1  # after an arrival this is the next lap's start crossing
        elif progress:
            arrives = True
            progress = 0  # the arrived state carries the next lap's progress
    k = track.opening.moves if track.opening else 0
    new = CarState(qx, qy, vx, vy, layer, progress, min(s.phase + 1, k))
    return MoveResult(
        True, "ok", new, arrives,
        tuple((x, y, lay) for x, y, lay, _ in walked),
        tuple((name, t) for t, name in events),
    )


# -- the vectorised interface ------------------------------------------------------


@dataclass(frozen=True)
class StateArrays:
    """A batch of states as parallel int32 arrays (struct of arrays)."""

    x: np.ndarray
    y: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    layer: np.ndarray
    progress: np.ndarray
    phase: np.ndarray

    def __len__(self) -> int:
        return len(self.x)

    def take(self, idx: np.ndarray) -> StateArrays:
        """The sub-batch at `idx` (an index array or boolean mask)."""
        return StateArrays(*(a[idx] for a in self.fields()))

    def fields(self) -> tuple[np.ndarray, ...]:
        return (self.x, self.y, self.vx, self.vy, self.layer, self.progress, self.phase)

    def state(self, i: int) -> CarState:
        """Row i as a `CarState`."""
        return CarState(*(int(a[i]) for a in self.fields()))

    @staticmethod
    def of(states: list[CarState]) -> StateArrays:
        """Pack a list of states."""
        cols = list(zip(*[(s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase)
                          for s in states], strict=True)) if states else [()] * 7
        return StateArrays(*(np.array(c, dtype=np.int32) for c in cols))

    @staticmethod
    def concat(parts: list[StateArrays]) -> StateArrays:
        return StateArrays(*(np.concatenate(cols) for cols in zip(
            *(p.fields() for p in parts), strict=True)))


@dataclass(frozen=True)
class Expansion:
    """Legal successors of a batch: `succ[i]` is reached from batch row `src[i]`.

    Arriving moves are reported apart (`arrive_src`, `arrive_state`): an
    arrival ends the trajectory, so it is never expanded further.
    """

    src: np.ndarray
    succ: StateArrays
    arrive_src: np.ndarray
    arrive_state: StateArrays


class RuleProfile(Protocol):
    """What a solver needs from a rule set."""

    track: Track
    phase_limit: int

    def initial_state(self) -> CarState: ...

    def expand(self, batch: StateArrays) -> Expansion: ...


class VectorRaceRules:
    """racecert's rules (SPEC §1-§4), vectorised over batches of states.

    Moves whose bounding box lies entirely on plain cells of the car's layer
    (drivable, not a ramp) are valid without a walk, since every touched cell
    lies in that box; only the remaining moves, near walls or ramps, walk their
    touched cells, using per-velocity offset tables padded into arrays.
    """

    def __init__(self, track: Track) -> None:
        self.track = track
        self.phase_limit = track.opening.moves if track.opening else 0
        sa = track.surface_arrays
        self._drivable = sa.drivable
        self._endable = sa.endable
        self._ramp = sa.ramp
        plain = sa.drivable & ~sa.ramp[None, :, :]
        self._plain_sat = np.zeros((2, track.height + 1, track.width + 1), dtype=np.int32)
        self._plain_sat[:, 1:, 1:] = plain.astype(np.int32).cumsum(1).cumsum(2)
        self._vmax = 0
        self._off_x = self._off_y = self._off_len = None
        self._ensure_tables(8)

    def initial_state(self) -> CarState:
        x, y = self.track.car.position
        return CarState(x, y, 0, 0, self.track.car.layer, 0, 0)

    # -- offset tables -----------------------------------------------------------

    def _ensure_tables(self, vmax: int) -> None:
        """Padded touched-cell offsets for every velocity with |v|inf <= vmax."""
        if vmax <= self._vmax:
            return
        vmax = max(vmax, 2 * self._vmax)
        n = 2 * vmax + 1
        width = 2 * vmax + 1
        off_x = np.zeros((n * n, width), dtype=np.int32)
        off_y = np.zeros((n * n, width), dtype=np.int32)
        off_len = np.zeros(n * n, dtype=np.int32)
        for vy in range(-vmax, vmax + 1):
            for vx in range(-vmax, vmax + 1):
                cells = touched_offsets(vx, vy)
                i = (vy + vmax) * n + (vx + vmax)
                off_len[i] = len(cells)
                off_x[i, : len(cells)] = [c[0] for c in cells]
                off_y[i, : len(cells)] = [c[1] for c in cells]
                off_x[i, len(cells):] = vx
                off_y[i, len(cells):] = vy
        self._vmax, self._off_x, self._off_y, self._off_len = vmax, off_x, off_y, off_len

    # -- expansion ---------------------------------------------------------------

    def expand(self, batch: StateArrays) -> Expansion:
        """All legal moves from every state of `batch` (opening rule by each state's phase)."""
        t = self.track
        n = len(batch)
        ax = np.array([a[0] for a in ACCELERATIONS], dtype=np.int32)
        ay = np.array([a[1] for a in ACCELERATIONS], dtype=np.int32)
        src = np.repeat(np.arange(n, dtype=np.int64), 9)
        vx = (batch.vx[:, None] + ax[None, :]).ravel()
        vy = (batch.vy[:, None] + ay[None, :]).ravel()
        px, py = batch.x[src], batch.y[src]
        qx, qy = px + vx, py + vy
        ok = ((vx != 0) | (vy != 0)) & (qx >= 0) & (qx < t.width) & (qy >= 0) & (qy < t.height)
        if t.opening is not None:
            active = batch.phase[src] < t.opening.moves
            if t.opening.max_speed is not None:
                ok &= ~active | (np.maximum(np.abs(vx), np.abs(vy)) <= t.opening.max_speed)
            if t.opening.straight:
                perp = vy if DIRECTION_VECTORS[t.car.direction][0] else vx
                ok &= ~active | (perp == 0)
        idx = np.nonzero(ok)[0]
        src, vx, vy, px, py, qx, qy = (a[idx] for a in (src, vx, vy, px, py, qx, qy))
        layer0 = batch.layer[src]

        # Fast path: the whole bounding box is plain in the car's layer.
        x0, x1 = np.minimum(px, qx), np.maximum(px, qx)
        y0, y1 = np.minimum(py, qy), np.maximum(py, qy)
        sat = self._plain_sat
        box = (sat[layer0, y1 + 1, x1 + 1] - sat[layer0, y0, x1 + 1]
               - sat[layer0, y1 + 1, x0] + sat[layer0, y0, x0])
        fast = box == (x1 - x0 + 1) * (y1 - y0 + 1)
        layer = layer0.copy()
        valid = np.ones(len(src), dtype=bool)
        slow = np.nonzero(~fast)[0]
        walk_layers = None
        if len(slow):
            v_ok, l_end, walk_layers = self._walk(px[slow], py[slow], vx[slow], vy[slow],
                                                  layer0[slow])
            valid[slow] = v_ok
            layer[slow] = l_end
        valid &= self._endable[layer, qy, qx]

        progress = batch.progress[src].copy()
        arrive = np.zeros(len(src), dtype=bool)
        s_hit, s_num, s_den, s_bad = self._crossing(t.start, px, py, vx, vy, layer0, slow,
                                                    walk_layers)
        f_hit, f_num, f_den, f_bad = self._crossing(t.finish, px, py, vx, vy, layer0, slow,
                                                    walk_layers)
        valid &= ~s_bad & ~f_bad
        s_before_f = s_hit & (s_num * f_den < f_num * s_den)
        arrive = f_hit & ((progress == 1) | s_before_f)
        progress = np.where(s_hit, 1, progress).astype(np.int32)
        phase = np.minimum(batch.phase[src] + 1, self.phase_limit).astype(np.int32)

        keep = valid & ~arrive
        out = StateArrays(qx[keep], qy[keep], vx[keep], vy[keep], layer[keep], progress[keep],
                          phase[keep])
        arr = valid & arrive
        # An arrived state's progress is the *next* lap's: 1 when the arriving move
        # crossed the start line after the finish line (the race rule of SPEC §5.6).
        next_lap = (s_hit & (s_num * f_den > f_num * s_den)).astype(np.int32)
        arrived = StateArrays(qx[arr], qy[arr], vx[arr], vy[arr], layer[arr], next_lap[arr],
                              phase[arr])
        return Expansion(src[keep], out, src[arr], arrived)

    def _walk(self, px: np.ndarray, py: np.ndarray, vx: np.ndarray, vy: np.ndarray,
              layer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Walk the touched cells of each move with the layer rules.

        Returns (valid, final layer, layer after entering each touched cell).
        """
        vmax = int(max(np.abs(vx).max(), np.abs(vy).max()))
        self._ensure_tables(vmax)
        n = 2 * self._vmax + 1
        vi = (vy + self._vmax) * n + (vx + self._vmax)
        offx, offy = self._off_x[vi], self._off_y[vi]
        length = int(self._off_len[vi].max())
        cur = layer.astype(np.int32).copy()
        valid = np.ones(len(px), dtype=bool)
        layers = np.empty((len(px), length), dtype=np.int32)
        prev_ramp = np.zeros(len(px), dtype=bool)
        for i in range(length):
            cx, cy = px + offx[:, i], py + offy[:, i]
            here = self._drivable[cur, cy, cx]
            switch = ~here & prev_ramp & self._drivable[1 - cur, cy, cx]
            valid &= here | switch
            cur = np.where(switch, 1 - cur, cur)
            layers[:, i] = cur
            prev_ramp = self._ramp[cy, cx]
        return valid, cur, layers

    def _crossing(self, line: Line, px: np.ndarray, py: np.ndarray, vx: np.ndarray,
                  vy: np.ndarray, layer0: np.ndarray, slow: np.ndarray,
                  walk_layers: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per move: crossed legally on the line's layer, t = num/den (den > 0), wrong way."""
        if line.axis == "x":
            pf, vf, ps, vs = px, vx, py, vy
        else:
            pf, vf, ps, vs = py, vy, px, vx
        qf = pf + vf
        k = line.k
        straddle = (np.minimum(pf, qf) <= k) & (k < np.maximum(pf, qf))
        num = (2 * k + 1 - 2 * pf).astype(np.int64)
        den = (2 * vf).astype(np.int64)
        # doubled other coordinate at t: 2 ps + vs * num / vf, compared on [2lo - 1, 2hi + 1]
        vf64 = vf.astype(np.int64)
        lhs = 2 * ps.astype(np.int64) * vf64 + vs.astype(np.int64) * num
        lo, hi = 2 * line.lo - 1, 2 * line.hi + 1
        pos = vf64 > 0
        inside = np.where(pos, (lhs >= lo * vf64) & (lhs <= hi * vf64),
                          (lhs <= lo * vf64) & (lhs >= hi * vf64))
        hit = straddle & inside
        # the layer of the cell entered at the crossing
        at_layer = layer0.copy()
        if len(slow) and walk_layers is not None:
            h = hit[slow]
            if h.any():
                rows = slow[h]
                offs = (self._off_x if line.axis == "x" else self._off_y)
                n = 2 * self._vmax + 1
                vi = (vy[rows] + self._vmax) * n + (vx[rows] + self._vmax)
                o = offs[vi][:, : walk_layers.shape[1]]
                pfr = pf[rows][:, None]
                target = np.where(vf[rows] > 0, k + 1, k)[:, None]
                entered = (pfr + o == target)
                first = entered.argmax(axis=1)
                at_layer[rows] = walk_layers[np.nonzero(h)[0], first]
        hit &= at_layer == line.layer
        legal = (vf * line.sign) > 0
        sign = np.where(den < 0, -1, 1)
        return hit & legal, num * sign, den * sign, hit & ~legal
