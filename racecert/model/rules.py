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

from racecert.model.expand_kernel import expand_moves
from racecert.model.geometry import line_crossing, touched_offsets
from racecert.model.track import DIRECTION_VECTORS, Line, Track


def acceleration_set(reach: int = 1, von_neumann: bool = False) -> tuple[tuple[int, int], ...]:
    """The accelerations of a rule set, in the one order every layer uses (ay, then ax,
    ascending): {-reach..reach}^2 (the Moore set), or with `von_neumann` only those with
    one component zero.

    >>> len(acceleration_set()), len(acceleration_set(von_neumann=True)), len(acceleration_set(2))
    (9, 5, 25)
    """
    r = range(-reach, reach + 1)
    return tuple((ax, ay) for ay in r for ax in r if not von_neumann or ax == 0 or ay == 0)


ACCELERATIONS: tuple[tuple[int, int], ...] = acceleration_set()
"""The Moore set {-1, 0, 1}^2 of the grid rules (and of lattice tracks by default)."""
_ACC_X = np.array([a[0] for a in ACCELERATIONS], dtype=np.int64)
_ACC_Y = np.array([a[1] for a in ACCELERATIONS], dtype=np.int64)


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

    def positions(self, idx: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """x and y of the rows at `idx` (as `racecert.model.packed`'s forms give them)."""
        return self.x[idx], self.y[idx]

    def velocities(self, idx: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """vx and vy of the rows at `idx`."""
        return self.vx[idx], self.vy[idx]

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
    arrival ends the trajectory, so it is never expanded further. Both come
    state-major: `src` and `arrive_src` ascend (the BFS relies on it).
    """

    src: np.ndarray
    succ: StateArrays
    arrive_src: np.ndarray
    arrive_state: StateArrays


class RuleProfile(Protocol):
    """What a solver needs from a rule set.

    Contract the BFS relies on (its backward pass recomputes moves from predecessors):
    a move from (p, v) with acceleration a ends at q = p + v' with v' = v + a, and it
    changes `phase` by at most one (the opening phase min(t, K); a lattice lap counter).
    """

    track: Track
    phase_limit: int
    accelerations: tuple[tuple[int, int], ...]
    """Every acceleration a move may use (`acceleration_set`'s order): the BFS's backward
    pass looks for a move's sources through them."""

    def initial_state(self) -> CarState: ...

    def expand(self, batch: StateArrays) -> Expansion: ...


class VectorRaceRules:
    """racecert's rules (docs/rules.md) over batches of states, compiled
    (`model.expand_kernel`): one integer pass per candidate move.

    Most moves need no walk over their touched cells: every touched cell of a move lies
    in the square of radius s = max(|v'x|, |v'y|) around p, and the only touched cell on
    that square's outer ring is q itself (the last boundary crossing along the dominant
    axis happens within half a cell of q's row, or exactly at a corner, which steps
    straight into q). So if the square of radius s - 1 is all plain cells (drivable in the
    car's layer, not a ramp) and q is asphalt in that layer, the walk is valid and the
    layer stays. `_clearance` holds the largest such radius per cell, capped so that the
    next ring is still on the grid (so q is too); the other moves are walked.
    """

    _CLEARANCE_CAP = 64  # largest clearance radius computed; faster moves are walked

    def __init__(self, track: Track) -> None:
        self.track = track
        self.phase_limit = track.opening.moves if track.opening else 0
        self.accelerations = ACCELERATIONS
        sa = track.surface_arrays
        self._drivable = np.ascontiguousarray(sa.drivable).ravel()
        self._endable = np.ascontiguousarray(sa.endable).ravel()
        self._ramp = np.ascontiguousarray(sa.ramp).ravel()
        plain = sa.drivable & ~sa.ramp[None, :, :]
        self._clearance = _clearance(plain, self._CLEARANCE_CAP).ravel()
        sat = np.zeros((2, track.height + 1, track.width + 1), dtype=np.int64)
        sat[:, 1:, 1:] = plain.astype(np.int64).cumsum(1).cumsum(2)
        self._plain_sat = sat.ravel()  # plain cells in [0, y) x [0, x) of a layer
        op = track.opening
        self._op_moves = op.moves if op is not None else 0
        self._op_speed = op.max_speed if op is not None and op.max_speed is not None else -1
        perp = -1
        if op is not None and op.straight:
            perp = 1 if DIRECTION_VECTORS[track.car.direction][0] else 0
        self._op_perp = perp
        self._lines = np.array([_line_row(track.start), _line_row(track.finish)],
                               dtype=np.int64)

    def initial_state(self) -> CarState:
        x, y = self.track.car.position
        return CarState(x, y, 0, 0, self.track.car.layer, 0, 0)

    def expand(self, batch: StateArrays) -> Expansion:
        """All legal moves from every state of `batch` (opening rule by each state's phase).

        Successors and arrivals come state-major, acceleration-minor (the order of
        `ACCELERATIONS`); an arrival ends the trajectory, so it is no successor, and an
        arrived state's progress is the *next* lap's (the race rule of
        docs/continuity.md).
        """
        succ, arrivals, n_s, n_a = self._run(batch, 0, None)
        succ = [c[:n_s] for c in succ]
        return Expansion(succ[0], StateArrays(*succ[1:]), arrivals[0][:n_a],
                         StateArrays(*(c[:n_a] for c in arrivals[1:])))

    def expand_keys(self, batch: StateArrays, keep_phase: bool, out: np.ndarray
                    ) -> tuple[int, np.ndarray, StateArrays]:
        """`expand` for the BFS: the successors' `StateCodec` keys (phase kept or not)
        written to `out` (room for 9 per state), and the arrivals as in `expand`.

        Returns (successors written, arrive_src, arrive_state).
        """
        _, arrivals, n_s, n_a = self._run(batch, 1 if keep_phase else 2, out)
        return n_s, arrivals[0][:n_a], StateArrays(*(c[:n_a] for c in arrivals[1:]))

    def kernel_args(self) -> tuple:
        """The rules as `expand_kernel.expand_moves` takes them (after the batch, up to
        `lines`): for compiled searches that expand one state at a time (yellow)."""
        t = self.track
        return (_ACC_X, _ACC_Y, t.width, t.height, self._drivable, self._endable, self._ramp,
                self._clearance, self._plain_sat, self._op_moves, self._op_speed,
                self._op_perp, self.phase_limit, self._lines)

    def _run(self, batch: StateArrays, key_mode: int, keys: np.ndarray | None
             ) -> tuple[list[np.ndarray], list[np.ndarray], int, int]:
        """Call the kernel: (successor columns, arrival columns, how many of each)."""
        cap = len(ACCELERATIONS) * len(batch)
        succ = [np.empty(0 if key_mode else cap, dtype=np.int32) for _ in range(8)]
        arrivals = [np.empty(cap, dtype=np.int32) for _ in range(8)]
        n_s, n_a = expand_moves(
            *(np.ascontiguousarray(a, dtype=np.int32) for a in batch.fields()),
            *self.kernel_args(), key_mode,
            np.empty(0, dtype=np.int64) if keys is None else keys, *succ, *arrivals)
        return succ, arrivals, n_s, n_a


def _line_row(line: Line) -> tuple[int, int, int, int, int, int]:
    """A line as the kernel's integer row (`expand_kernel.L_*`)."""
    return (0 if line.axis == "x" else 1, line.k, line.lo, line.hi, line.sign, line.layer)


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
