"""The move rules of docs/rules.md, as one interface the solvers consume.

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
_BOX_PLAIN, _NO_RAMP, _RAMP = 0, 1, 2  # how a slow candidate's validity is decided
_AX = np.array([a[0] for a in ACCELERATIONS], dtype=np.int32)
_AY = np.array([a[1] for a in ACCELERATIONS], dtype=np.int32)


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
    """Apply acceleration `accel` to state `s` under the rules of docs/rules.md (exact
    reference).

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
        if not track.drivable(layer, cx, cy):
            if prev is not None and track.is_ramp(*prev) and track.drivable(1 - layer, cx, cy):
                layer = 1 - layer  # leaving a ramp into a cell of the other layer only
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
    """racecert's rules (docs/rules.md), vectorised over batches of states.

    Validity is decided by the cheapest sufficient test first (each is exact, never a
    heuristic):

    1. *clearance*: every touched cell of a move lies in the square of radius
       s = max(|v'x|, |v'y|) around p, and the only touched cell on that square's outer
       ring is q itself (the last boundary crossing along the dominant axis happens within
       half a cell of q's row, or exactly at a corner, which steps straight into q). So if
       the square of radius s - 1 is all plain cells (drivable in the car's layer, not a
       ramp) and q is asphalt in that layer (checked for every move anyway), the walk is
       valid and the layer stays. `_clearance` holds the largest such radius per cell,
       capped so that the next ring is still on the grid (so q is too).
    2. *box*: the same argument with the move's exact bounding box, by a summed-area
       table of plain cells.
    3. *row intervals*: a move whose box holds no ramp cannot change layer, so it is valid
       iff every touched cell is drivable in its layer. The touched cells of one row (of
       one column, for steep moves) form a contiguous run, so per-velocity tables of
       those runs and per-row (per-column) prefix sums of off-track cells answer each run
       in O(1): min(|v'x|, |v'y|) + 1 runs per move.
    4. *walk*: the moves whose box holds a ramp walk their touched cells with the layer
       rules, using per-velocity offset tables built on demand.

    Line crossings are only evaluated for moves whose fixed coordinate straddles the
    line, and the layer at the crossing is looked up in the walk for walked moves (the
    layer cannot change on the first three paths).
    """

    _CLEARANCE_CAP = 64  # largest clearance radius computed; faster moves use the box test

    def __init__(self, track: Track) -> None:
        self.track = track
        self.phase_limit = track.opening.moves if track.opening else 0
        sa = track.surface_arrays
        self._drivable = sa.drivable
        self._ramp = sa.ramp
        self._endable_flat = np.ascontiguousarray(sa.endable).ravel()
        self._endable_any = (sa.endable[0] | sa.endable[1]).ravel()
        self._has_ramps = bool(sa.ramp.any())
        plain = sa.drivable & ~sa.ramp[None, :, :]
        sat = np.zeros((2, track.height + 1, track.width + 1), dtype=np.int32)
        sat[:, 1:, 1:] = plain.astype(np.int32).cumsum(1).cumsum(2)
        self._plain_sat = sat.ravel()
        self._clearance = _clearance(plain, self._CLEARANCE_CAP).ravel()
        self._ramp_sat = np.zeros((track.height + 1, track.width + 1), dtype=np.int32)
        self._ramp_sat[1:, 1:] = sa.ramp.astype(np.int32).cumsum(0).cumsum(1)
        self._ramp_sat = self._ramp_sat.ravel()
        off = ~sa.drivable
        # off-track cells before column x in row y of a layer: [layer, y, x], x in 0..w
        row = np.zeros((2, track.height, track.width + 1), dtype=np.int32)
        row[:, :, 1:] = off.cumsum(2)
        col = np.zeros((2, track.width, track.height + 1), dtype=np.int32)
        col[:, :, 1:] = off.transpose(0, 2, 1).cumsum(2)
        self._row_off, self._col_off = row.ravel(), col.ravel()
        self._offsets: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self._runs: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def initial_state(self) -> CarState:
        x, y = self.track.car.position
        return CarState(x, y, 0, 0, self.track.car.layer, 0, 0)

    # -- expansion ---------------------------------------------------------------

    def expand(self, batch: StateArrays) -> Expansion:
        """All legal moves from every state of `batch` (opening rule by each state's phase).

        Candidates are laid out state-major: candidate i is state i // 9 with
        acceleration `ACCELERATIONS[i % 9]`. Validity is computed on that whole layout
        and the survivors are compacted once, with index arrays, never boolean masks
        (numpy's masked indexing is several times slower). Callers with huge batches
        should pass them in chunks of some 10^4 states: arrays that fit in cache and
        avoid fresh page faults run an order of magnitude faster.
        """
        t = self.track
        w, h = t.width, t.height
        n = len(batch)
        bx, by = batch.x.astype(np.int32), batch.y.astype(np.int32)
        blayer = batch.layer.astype(np.int32)
        vx = (batch.vx.astype(np.int32)[:, None] + _AX).ravel()
        vy = (batch.vy.astype(np.int32)[:, None] + _AY).ravel()
        px, py, layer0 = np.repeat(bx, 9), np.repeat(by, 9), np.repeat(blayer, 9)
        speed = np.maximum(np.abs(vx), np.abs(vy))
        cand = speed > 0
        if t.opening is not None:
            op = t.opening
            active = np.repeat(batch.phase < op.moves, 9)
            if op.max_speed is not None:
                cand &= ~active | (speed <= op.max_speed)
            if op.straight:
                perp = vy if DIRECTION_VECTORS[t.car.direction][0] else vx
                cand &= ~active | (perp == 0)
        clear = np.repeat(self._clearance[(blayer * h + by) * w + bx], 9)
        fast = speed <= clear + 1
        qx, qy = px + vx, py + vy
        # q's flat [layer, y, x] index; only meaningful where q is on the grid (fast moves)
        qcell = (layer0 * h + qy) * w + qx
        valid = cand & fast
        valid &= np.take(self._endable_flat, qcell, mode="clip")
        layer = layer0
        slow = np.flatnonzero(cand & ~fast)
        wrows = np.zeros(0, dtype=np.int64)
        walk_layers = walk_offs = None
        if len(slow):
            slow, how = self._slow_filter(slow, px, py, vx, vy, layer0)
            box_ok = slow[how == _BOX_PLAIN]
            valid[box_ok] = self._endable_flat[qcell[box_ok]]
            runs = slow[how == _NO_RAMP]
            if len(runs):
                valid[runs] = self._endable_flat[qcell[runs]] & self._runs_drivable(
                    px[runs], py[runs], vx[runs], vy[runs], layer0[runs])
            wrows = slow[how == _RAMP]
            if len(wrows):
                w_ok, w_end, walk_layers, walk_offs = self._walk(
                    px[wrows], py[wrows], vx[wrows], vy[wrows], layer0[wrows])
                layer = layer0.copy()
                layer[wrows] = w_end
                valid[wrows] = w_ok & self._endable_flat[(w_end * h + qy[wrows]) * w
                                                         + qx[wrows]]

        s_hit, s_t, s_bad = self._crossing(t.start, px, py, vx, vy, layer0, valid, wrows,
                                           walk_layers, walk_offs)
        f_hit, f_t, f_bad = self._crossing(t.finish, px, py, vx, vy, layer0, valid, wrows,
                                           walk_layers, walk_offs)
        valid[s_bad] = False
        valid[f_bad] = False
        s_hit, s_t = _restrict(s_hit, s_t, valid)
        f_hit, f_t = _restrict(f_hit, f_t, valid)
        # an arrival: F crossed with the start line already crossed, before or in this move
        arrive = batch.progress[f_hit // 9] == 1
        next_lap = np.zeros(len(f_hit), dtype=np.int32)
        both = np.intersect1d(s_hit, f_hit, assume_unique=True)
        if len(both):
            # crossing order by the exact t = num / den (den > 0)
            (sn, sd), (fn, fd) = _t_at(s_hit, s_t, both), _t_at(f_hit, f_t, both)
            s_first = sn * fd < fn * sd
            in_f = np.searchsorted(f_hit, both)
            arrive[in_f[s_first]] = True
            # start after finish: the arrived state carries the next lap's progress
            next_lap[in_f[~s_first]] = 1
        arr = f_hit[arrive]
        valid[arr] = False  # an arrival ends the trajectory: it is no successor

        keep = np.flatnonzero(valid)
        src = keep // 9
        progress = batch.progress.astype(np.int32)[src]
        if len(s_hit):
            started = np.zeros(9 * n, dtype=bool)
            started[s_hit] = True
            progress |= started[keep]
        out = StateArrays(qx[keep], qy[keep], vx[keep], vy[keep], layer[keep], progress,
                          self._next_phase(batch, src))
        # arrivals come source-major, acceleration-minor (the candidate order); an arrived
        # state's progress is the *next* lap's (the race rule of docs/continuity.md)
        a_src = arr // 9
        arrived = StateArrays(qx[arr], qy[arr], vx[arr], vy[arr], layer[arr],
                              next_lap[arrive], self._next_phase(batch, a_src))
        return Expansion(src, out, a_src, arrived)

    def _next_phase(self, batch: StateArrays, src: np.ndarray) -> np.ndarray:
        """min(phase + 1, K) of the source states `src` (all 0 without an opening rule)."""
        if not self.phase_limit:
            return np.zeros(len(src), dtype=np.int32)
        return np.minimum(batch.phase.astype(np.int32)[src] + 1, self.phase_limit)

    def _slow_filter(self, idx: np.ndarray, px: np.ndarray, py: np.ndarray, vx: np.ndarray,
                     vy: np.ndarray, layer0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidates `idx` that failed the clearance test: drop those that cannot be valid
        (q off the grid or not asphalt in any layer) and classify the rest by their
        bounding box: `_BOX_PLAIN` (all plain: valid up to q's surface), `_NO_RAMP`
        (off-track cells but no ramp: row-interval test), `_RAMP` (walk).

        Returns (surviving indices, their classes as int8).
        """
        t = self.track
        w, h = t.width, t.height
        px, py = px[idx], py[idx]
        qx, qy = px + vx[idx], py + vy[idx]
        inside = (qx >= 0) & (qx < w) & (qy >= 0) & (qy < h)
        inside[inside] = self._endable_any[qy[inside] * w + qx[inside]]
        idx, px, py, qx, qy = idx[inside], px[inside], py[inside], qx[inside], qy[inside]
        lay = layer0[idx]
        x0, x1 = np.minimum(px, qx), np.maximum(px, qx) + 1
        y0, y1 = np.minimum(py, qy), np.maximum(py, qy) + 1
        sat, sw = self._plain_sat, w + 1
        base = lay * ((h + 1) * sw)
        box = (sat[base + y1 * sw + x1] - sat[base + y0 * sw + x1]
               - sat[base + y1 * sw + x0] + sat[base + y0 * sw + x0])
        how = np.where(box == (x1 - x0) * (y1 - y0), _BOX_PLAIN, _NO_RAMP).astype(np.int8)
        if self._has_ramps:
            rs = self._ramp_sat
            ramps = (rs[y1 * sw + x1] - rs[y0 * sw + x1] - rs[y1 * sw + x0] + rs[y0 * sw + x0])
            how[ramps > 0] = _RAMP
        return idx, how

    def _run_table(self, vx: int, vy: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Touched cells of velocity (vx, vy) as runs: (offset along the minor axis, first
        and last offset along the major axis) per run, the major axis being x when
        |vx| >= |vy| (one run per row), else y (one run per column). Cached.

        """
        got = self._runs.get((vx, vy))
        if got is None:
            rows = abs(vx) >= abs(vy)
            spans: dict[int, list[int]] = {}
            for dx, dy, _ in touched_offsets(vx, vy):
                minor, major = (dy, dx) if rows else (dx, dy)
                spans.setdefault(minor, []).append(major)
            for majors in spans.values():  # contiguous runs: what the O(1) test relies on
                if max(majors) - min(majors) + 1 != len(majors):
                    raise AssertionError(f"touched cells of {(vx, vy)} are not row runs")
            keys = sorted(spans)
            got = (np.array(keys, dtype=np.int32),
                   np.array([min(spans[k]) for k in keys], dtype=np.int32),
                   np.array([max(spans[k]) for k in keys], dtype=np.int32))
            self._runs[(vx, vy)] = got
        return got

    def _runs_drivable(self, px: np.ndarray, py: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                       layer: np.ndarray) -> np.ndarray:
        """Whether every touched cell of each move is drivable in `layer` (by row runs)."""
        t = self.track
        w, h = t.width, t.height
        ok = np.ones(len(px), dtype=bool)
        rows = np.abs(vx) >= np.abs(vy)
        for along_x in (True, False):
            sel = np.flatnonzero(rows == along_x)
            if not len(sel):
                continue
            uniq, inv = _velocity_groups(vx[sel], vy[sel])
            tables = [self._run_table(ux, uy) for ux, uy in uniq]
            n_runs = max(len(tb[0]) for tb in tables)
            minor = np.empty((len(tables), n_runs), dtype=np.int32)
            first = np.empty((len(tables), n_runs), dtype=np.int32)
            last = np.empty((len(tables), n_runs), dtype=np.int32)
            for i, (a, lo, hi) in enumerate(tables):  # pad by repeating the last run
                k = len(a)
                minor[i, :k], minor[i, k:] = a, a[-1]
                first[i, :k], first[i, k:] = lo, lo[-1]
                last[i, :k], last[i, k:] = hi, hi[-1]
            minor, first, last = minor[inv], first[inv], last[inv]
            if along_x:  # a run is row py + minor, columns px + first .. px + last
                line = (layer[sel] * h + py[sel])[:, None] + minor
                pre, stride, start = self._row_off, w + 1, px[sel][:, None]
            else:  # a run is column px + minor, rows py + first .. py + last
                line = (layer[sel] * w + px[sel])[:, None] + minor
                pre, stride, start = self._col_off, h + 1, py[sel][:, None]
            base = line * stride + start
            off = pre[base + last + 1] - pre[base + first]  # >= 0: off-track cells in a run
            ok[sel] = off.sum(axis=1) == 0
        return ok

    def _touched(self, vx: int, vy: int) -> tuple[np.ndarray, np.ndarray]:
        """Touched-cell offsets of velocity (vx, vy) as two int32 arrays (cached)."""
        got = self._offsets.get((vx, vy))
        if got is None:
            cells = touched_offsets(vx, vy)
            got = (np.array([c[0] for c in cells], dtype=np.int32),
                   np.array([c[1] for c in cells], dtype=np.int32))
            self._offsets[(vx, vy)] = got
        return got

    def _offset_tables(self, vx: np.ndarray, vy: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per move: touched offsets padded with the last cell, and the number of cells."""
        uniq, inv = _velocity_groups(vx, vy)
        cells = [self._touched(ux, uy) for ux, uy in uniq]
        length = max(len(c[0]) for c in cells)
        tx = np.empty((len(cells), length), dtype=np.int32)
        ty = np.empty((len(cells), length), dtype=np.int32)
        lens = np.empty(len(cells), dtype=np.int32)
        for i, (cx, cy) in enumerate(cells):
            k = len(cx)
            tx[i, :k], tx[i, k:] = cx, cx[-1]
            ty[i, :k], ty[i, k:] = cy, cy[-1]
            lens[i] = k
        return tx[inv], ty[inv], lens[inv]

    def _walk(self, px: np.ndarray, py: np.ndarray, vx: np.ndarray, vy: np.ndarray,
              layer: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """Walk the touched cells of each move with the layer rules.

        Returns (valid, final layer, layer after entering each touched cell, the
        (x, y) touched offsets the walk used).
        """
        offx, offy, _ = self._offset_tables(vx, vy)
        length = offx.shape[1]
        cur = layer.astype(np.int32).copy()
        valid = np.ones(len(px), dtype=bool)
        layers = np.empty((len(px), length), dtype=np.int8)
        prev_ramp = np.zeros(len(px), dtype=bool)
        w, h = self.track.width, self.track.height
        drivable = self._drivable.ravel()
        ramp = self._ramp.ravel()
        for i in range(length):
            cell = (py + offy[:, i]) * w + (px + offx[:, i])
            here = drivable[cur * (h * w) + cell]
            switch = ~here & prev_ramp & drivable[(1 - cur) * (h * w) + cell]
            valid &= here | switch
            cur = np.where(switch, 1 - cur, cur)
            prev_ramp = ramp[cell]
            layers[:, i] = cur
        return valid, cur, layers, (offx, offy)

    def _crossing(self, line: Line, px: np.ndarray, py: np.ndarray, vx: np.ndarray,
                  vy: np.ndarray, layer0: np.ndarray, valid: np.ndarray, wrows: np.ndarray,
                  walk_layers: np.ndarray | None,
                  walk_offs: tuple[np.ndarray, np.ndarray] | None
                  ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray], np.ndarray]:
        """Valid moves crossing `line` legally on its layer, their exact t, wrong-way moves.

        Only moves with `valid` set are considered. Returns (sorted indices of legal
        crossings, (num, den) of t = num/den with den > 0 aligned with them, indices of
        wrong-way crossings).
        """
        if line.axis == "x":
            pf, vf, ps, vs = px, vx, py, vy
        else:
            pf, vf, ps, vs = py, vy, px, vx
        k = line.k
        qf = pf + vf
        # the fixed coordinate straddles k + 1/2
        rows = np.flatnonzero(((pf <= k) != (qf <= k)) & valid)
        pf, vf = pf[rows].astype(np.int64), vf[rows].astype(np.int64)
        ps, vs = ps[rows].astype(np.int64), vs[rows].astype(np.int64)
        num = 2 * k + 1 - 2 * pf
        # doubled other coordinate at t: 2 ps + vs * num / vf, compared on [2lo - 1, 2hi + 1]
        lhs = 2 * ps * vf + vs * num
        lo, hi = 2 * line.lo - 1, 2 * line.hi + 1
        pos = vf > 0
        inside = np.where(pos, (lhs >= lo * vf) & (lhs <= hi * vf),
                          (lhs <= lo * vf) & (lhs >= hi * vf))
        rows, num, vf, pf = rows[inside], num[inside], vf[inside], pf[inside]
        # the layer of the cell entered at the crossing
        at_layer = layer0[rows]
        if walk_layers is not None and len(rows):
            wpos = np.searchsorted(wrows, rows)
            wpos[wpos == len(wrows)] = 0
            in_walk = wrows[wpos] == rows
            if in_walk.any():
                wi = wpos[in_walk]
                offs = walk_offs[0] if line.axis == "x" else walk_offs[1]
                target = np.where(vf[in_walk] > 0, k + 1, k)[:, None]
                entered = pf[in_walk][:, None] + offs[wi] == target
                at_layer[in_walk] = walk_layers[wi, entered.argmax(axis=1)]
        on_layer = at_layer == line.layer
        rows, num, vf = rows[on_layer], num[on_layer], vf[on_layer]
        legal = vf * line.sign > 0
        sign = np.where(vf < 0, -1, 1)
        return rows[legal], ((num * sign)[legal], (2 * vf * sign)[legal]), rows[~legal]


def _restrict(hits: np.ndarray, t: tuple[np.ndarray, np.ndarray], valid: np.ndarray
              ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """The crossings `hits` (with their t) of moves still valid."""
    ok = valid[hits]
    return hits[ok], (t[0][ok], t[1][ok])


def _t_at(hits: np.ndarray, t: tuple[np.ndarray, np.ndarray], rows: np.ndarray
          ) -> tuple[np.ndarray, np.ndarray]:
    """(num, den) of the crossings at `rows`, a subset of the sorted `hits`."""
    i = np.searchsorted(hits, rows)
    return t[0][i], t[1][i]


def _velocity_groups(vx: np.ndarray, vy: np.ndarray
                     ) -> tuple[list[tuple[int, int]], np.ndarray]:
    """The distinct velocities of a batch and, per move, the index of its velocity.

    Velocities are small, so a dense (2V+1)^2 table replaces a sort.

    >>> _velocity_groups(np.array([1, -2, 1]), np.array([0, 3, 0]))
    ([(1, 0), (-2, 3)], array([0, 1, 0]))
    """
    v = int(max(np.abs(vx).max(), np.abs(vy).max()))
    side = 2 * v + 1
    vid = (vy.astype(np.int64) + v) * side + (vx + v)
    present = np.flatnonzero(np.bincount(vid, minlength=side * side))
    index = np.full(side * side, -1, dtype=np.int64)
    index[present] = np.arange(len(present))
    return ([(int(p % side) - v, int(p // side) - v) for p in present.tolist()],
            index[vid])


def _clearance(plain: np.ndarray, cap: int) -> np.ndarray:
    """Per [layer, y, x]: the largest r <= cap such that every cell within Chebyshev
    distance r is plain and every cell within r + 1 is on the grid; -1 on a cell that is
    not plain or lies on the grid's edge. int16.

    >>> import numpy as np
    >>> g = np.ones((1, 5, 7), dtype=bool)
    >>> g[0, 2, 0] = False
    >>> _clearance(g, 9)[0].tolist()[2]
    [-1, 0, 1, 1, 1, 0, -1]
    """
    _, h, w = plain.shape
    ys, xs = np.mgrid[0:h, 0:w]
    # the ring beyond the radius must still be on the grid: r <= distance to the edge - 1
    edge = np.minimum(np.minimum(xs, w - 1 - xs), np.minimum(ys, h - 1 - ys)) - 1
    out = np.where(plain, 0, -1).astype(np.int16)
    cur = plain.copy()
    for r in range(1, cap + 1):
        nxt = np.zeros_like(cur)
        inner = cur[:, 1:-1, 1:-1]
        if inner.size == 0:
            break
        acc = inner.copy()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy or dx:
                    acc &= cur[:, 1 + dy: cur.shape[1] - 1 + dy, 1 + dx: cur.shape[2] - 1 + dx]
        nxt[:, 1:-1, 1:-1] = acc
        if not nxt.any():
            break
        out[nxt] = r
        cur = nxt
    return np.where(plain, np.minimum(out, edge[None, :, :]), -1).astype(np.int16)
