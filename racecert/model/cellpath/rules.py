"""The cell-path rule profile (docs/rules.md, "The cell-path profile"), as a `RuleProfile`.

A car on cell p with velocity v picks v' = v + a, a in {-A..A}^2 (and, under a speed
cap C, only |v'x|, |v'y| <= C). The move of d = v' is walked in n = max(|dx|, |dy|)
ticks; tick k visits p + round-half-up(k d / n) per axis, in integers
floor((2 k d + n) / (2 n)). After each tick: a cell off the grid or blocked ends the
move as a crash (invalid); a goal cell ends the run there (an arrival: its final
state is (that cell, v')). A move that meets neither ends at q = p + v'; standing
still (n = 0) visits no cell and is valid.

`cellpath_move` is the scalar reference (it says which tick crashed); `CellPathRules`
is the vectorised profile the BFS consumes: candidates state-major, acceleration-minor
in `accelerations` order, one numpy pass per tick index with the finished moves
dropped. A stored state lies on the grid with q = p + v', so |v'x| <= W-1 and
|v'y| <= H-1 and the `StateCodec` packs it; an *arrival* can stop before p + v' is
reached, so its v' may exceed that range by up to A: arrivals are never packed into
state keys (`StateCodec.kinematic`, which groups the final states, widens its velocity
digits to the data).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.model.cellpath.track import BLOCKED, GOAL, CellPathTrack
from racecert.model.rules import CarState, Expansion, StateArrays, acceleration_set

_FREE, _BLOCKED, _GOAL = 0, 1, 2


@dataclass(frozen=True)
class CellPathMove:
    """One move: valid or not (and why), the state it ends in, whether it arrives."""

    valid: bool
    reason: str
    state: CarState | None = None
    arrives: bool = False


def tick_cell(p: tuple[int, int], d: tuple[int, int], k: int) -> tuple[int, int]:
    """The cell tick k (1..n) of the move of velocity d from p visits.

    >>> [tick_cell((0, 0), (3, 1), k) for k in (1, 2, 3)]
    [(1, 0), (2, 1), (3, 1)]
    """
    n = max(abs(d[0]), abs(d[1]))
    return (p[0] + (2 * k * d[0] + n) // (2 * n), p[1] + (2 * k * d[1] + n) // (2 * n))


def cellpath_move(track: CellPathTrack, s: CarState, accel: tuple[int, int]) -> CellPathMove:
    """Apply acceleration `accel` to state `s` (the scalar reference of the profile).

    >>> t = CellPathTrack("t", 4, 1, ("s.xg",), ((0, 0),))
    >>> cellpath_move(t, CarState(0, 0), (1, 0)).state
    CarState(x=1, y=0, vx=1, vy=0, layer=0, progress=0, phase=0)
    >>> cellpath_move(t, CarState(1, 0, 1, 0), (1, 0)).reason
    'tick 1 of 2: cell (2, 0) is blocked'
    """
    a = track.max_acceleration
    if max(abs(accel[0]), abs(accel[1])) > a:
        raise ValueError(f"acceleration {accel} beyond max_acceleration {a}")
    dx, dy = s.vx + accel[0], s.vy + accel[1]
    cap = track.speed_cap
    if cap is not None and max(abs(dx), abs(dy)) > cap:
        return CellPathMove(False, f"velocity ({dx}, {dy}) beyond the speed cap {cap}")
    n = max(abs(dx), abs(dy))
    for k in range(1, n + 1):
        cx, cy = tick_cell((s.x, s.y), (dx, dy), k)
        where = f"tick {k} of {n}: cell ({cx}, {cy})"
        if not (0 <= cx < track.width and 0 <= cy < track.height):
            return CellPathMove(False, f"{where} is off the grid")
        c = track.cell(cx, cy)
        if c == BLOCKED:
            return CellPathMove(False, f"{where} is blocked")
        if c == GOAL:
            return CellPathMove(True, f"arrives at tick {k} of {n}",
                                CarState(cx, cy, dx, dy), True)
    return CellPathMove(True, "ok", CarState(s.x + dx, s.y + dy, dx, dy))


class CellPathRules:
    """The cell-path profile over batches of states (a `RuleProfile`; module docstring).

    Every state's layer, progress and phase are 0; `phase_limit` is 0.
    """

    def __init__(self, track: CellPathTrack) -> None:
        self.track = track
        self.phase_limit = 0
        self.accelerations = acceleration_set(track.max_acceleration)
        self._ax = np.array([a[0] for a in self.accelerations], dtype=np.int64)
        self._ay = np.array([a[1] for a in self.accelerations], dtype=np.int64)
        code = {BLOCKED: _BLOCKED, GOAL: _GOAL}
        self._cells = np.array([[code.get(c, _FREE) for c in r] for r in track.rows],
                               dtype=np.uint8).reshape(track.height, track.width).ravel()

    def state_at(self, p: tuple[int, int]) -> CarState:
        """The car at rest on cell p."""
        return CarState(p[0], p[1], 0, 0, 0, 0, 0)

    def initial_state(self) -> CarState:
        return self.state_at(self.track.start)

    def start_states(self) -> list[CarState]:
        """Every start cell at rest, in row-major order."""
        return [self.state_at(p) for p in self.track.starts]

    def expand(self, batch: StateArrays) -> Expansion:
        """All valid moves from every state of `batch`: successors and arrivals apart,
        each state-major, acceleration-minor."""
        t = self.track
        na = len(self.accelerations)
        vx = (batch.vx.astype(np.int64)[:, None] + self._ax).ravel()
        vy = (batch.vy.astype(np.int64)[:, None] + self._ay).ravel()
        idx = np.arange(len(vx), dtype=np.int64)
        if t.speed_cap is not None:
            idx = np.flatnonzero((np.abs(vx) <= t.speed_cap) & (np.abs(vy) <= t.speed_cap))
            vx, vy = vx[idx], vy[idx]
        src = idx // na
        px, py = batch.x.astype(np.int64)[src], batch.y.astype(np.int64)[src]
        n = np.maximum(np.abs(vx), np.abs(vy))
        ok = np.ones(len(n), dtype=bool)       # not crashed
        arrived = np.zeros(len(n), dtype=bool)
        gx, gy = px + vx, py + vy              # where the move ends
        act = np.flatnonzero(n > 0)            # still walking
        k = 0
        while len(act):
            k += 1
            nn = n[act]
            cx = px[act] + (2 * k * vx[act] + nn) // (2 * nn)
            cy = py[act] + (2 * k * vy[act] + nn) // (2 * nn)
            on = (cx >= 0) & (cx < t.width) & (cy >= 0) & (cy < t.height)
            code = np.full(len(act), _BLOCKED, dtype=np.uint8)
            code[on] = self._cells[cy[on] * t.width + cx[on]]
            ok[act[code == _BLOCKED]] = False
            goal = code == _GOAL
            hit = act[goal]
            arrived[hit] = True
            gx[hit], gy[hit] = cx[goal], cy[goal]
            act = act[(code == _FREE) & (nn > k)]
        keep = np.flatnonzero(ok & ~arrived)
        arr = np.flatnonzero(arrived)

        def states(rows: np.ndarray) -> StateArrays:
            zero = np.zeros(len(rows), dtype=np.int32)
            return StateArrays(gx[rows].astype(np.int32), gy[rows].astype(np.int32),
                               vx[rows].astype(np.int32), vy[rows].astype(np.int32), zero,
                               zero.copy(), zero.copy())

        return Expansion(src[keep], states(keep), src[arr], states(arr))
