"""The lattice rule profile (docs/rules.md, "The lattice profile"), as a `RuleProfile`.

The classic game on lattice points: a car at p with velocity v picks v' = v + a
(a in the track's acceleration set: {-1, 0, 1}^2, the Moore set, by default, or the von
Neumann set of the five with a zero component; v' = (0, 0) allowed: a car may stand
still) and moves to q = p + v'. The move is invalid when q lies outside the bounds, when its closed
segment pq touches a wall segment (a crossing, a touch at a point or a corner, landing
on a wall or running along one), or when it comes strictly inside a circle. It
finishes when pq touches the finish segment (`LatticeFinish`: plain, directed, or
laps as net crossings).

State fields (`CarState`): x, y (local lattice point), vx, vy; `layer` and `progress`
are always 0; `phase` carries the lap counter when the finish counts laps: phase =
net crossings + `deficit`, so that a car that first drives backwards over the finish
(net -1, -2, ...) stays a distinct, exactly counted state. A move that would take
the count below -`deficit` raises `LatticeLimitError` (never a silent cut). Without
laps the phase is 0. The editor's phase-less key does not apply to this profile.

`lattice_move` is the scalar reference for one move (and says *why* a move is
invalid); `LatticeRules.expand` is the vectorised form the solvers use.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.model.errors import LatticeLimitError
from racecert.model.lattice.geometry import (
    WallIndex,
    enters_disc,
    enters_disc_v,
    orient,
    orient_v,
    touches,
    touches_v,
)
from racecert.model.lattice.track import ACCELERATION_SETS, LatticeTrack, Point
from racecert.model.rules import CarState, Expansion, StateArrays, acceleration_set

LAP_DEFICIT = 4
"""How far below zero the net lap count may go (laps counted as net crossings)."""
ACCELERATIONS_BY_NAME: dict[str, tuple[tuple[int, int], ...]] = {
    "moore": acceleration_set(),
    "von-neumann": acceleration_set(von_neumann=True),
}
"""The set each name of `ACCELERATION_SETS` stands for, in `acceleration_set`'s order."""
assert tuple(ACCELERATIONS_BY_NAME) == ACCELERATION_SETS


def track_accelerations(track: LatticeTrack) -> tuple[tuple[int, int], ...]:
    """The accelerations a move on `track` may use (its ``accelerations`` set); a track
    built in code with an unknown name is a `ValueError` naming the known ones."""
    try:
        return ACCELERATIONS_BY_NAME[track.accelerations]
    except KeyError:
        raise ValueError(f"unknown acceleration set {track.accelerations!r} (known: "
                         f"{', '.join(ACCELERATION_SETS)})") from None


@dataclass(frozen=True)
class LatticeMove:
    """One move's outcome: valid or why not, the new state, whether it finishes, and the
    finish crossing (+1 forward, -1 backward, 0 none; directed finishes only)."""

    valid: bool
    reason: str
    state: CarState | None = None
    arrives: bool = False
    crossing: int = 0


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def finish_crossing(track: LatticeTrack, p: Point, q: Point) -> int:
    """+1 when p -> q crosses the directed finish forward, -1 backward, else 0.

    Forward: p strictly behind, q ahead or on the finish line, and pq touches the
    finish segment; backward: the other way round (docs/rules.md).
    """
    f = track.finish
    assert f.direction is not None
    ahead = _sign(orient(f.a, f.b, (f.a[0] + f.direction[0], f.a[1] + f.direction[1])))
    sp, sq = _sign(orient(f.a, f.b, p)) * ahead, _sign(orient(f.a, f.b, q)) * ahead
    if (sp < 0) == (sq < 0) or not touches(p, q, f.a, f.b):
        return 0
    return 1 if sp < 0 else -1


def lattice_move(track: LatticeTrack, s: CarState, accel: tuple[int, int],
                 deficit: int = LAP_DEFICIT) -> LatticeMove:
    """Apply `accel` to `s` under the lattice rules (exact scalar reference); an `accel`
    outside the track's acceleration set is a `ValueError` (no move of the profile)."""
    if accel not in track_accelerations(track):
        raise ValueError(f"acceleration {accel} is not in the track's {track.accelerations} "
                         "set")
    vx, vy = s.vx + accel[0], s.vy + accel[1]
    p, q = (s.x, s.y), (s.x + vx, s.y + vy)
    if not (0 <= q[0] < track.width and 0 <= q[1] < track.height):
        return LatticeMove(False, f"ends at {track.to_file(q)}, outside the bounds")
    for a, b in track.segments:
        if touches(p, q, a, b):
            return LatticeMove(False, f"touches the wall {track.to_file(a)}-{track.to_file(b)}")
    for c in track.circles:
        if enters_disc(p, q, c.center, c.radius):
            return LatticeMove(False, f"enters the circle around {track.to_file(c.center)}")
    f = track.finish
    crossing = 0
    phase = s.phase
    if f.direction is None:
        arrives = touches(p, q, f.a, f.b)
    else:
        crossing = finish_crossing(track, p, q)
        if f.laps is None:
            arrives = crossing == 1
        else:
            count = s.phase - deficit + crossing
            if count < -deficit:
                raise LatticeLimitError(_deficit_message(deficit))
            arrives = count == f.laps
            phase = deficit if arrives else count + deficit
    return LatticeMove(True, "ok", CarState(q[0], q[1], vx, vy, 0, 0, phase), arrives,
                       crossing)


def _deficit_message(deficit: int) -> str:
    return (f"the net lap count would fall below -{deficit} (a car driving backwards over "
            "the finish more often than the lattice profile encodes); the search stops "
            "rather than drop such states")


class LatticeRules:
    """The lattice profile, vectorised over batches of states (a `RuleProfile`).

    Per candidate move, in order: the bounds; the walls through `WallIndex` (a
    bounding-box filter, then exact orientation tests); the circles; then the finish.
    Candidates are laid out state-major, acceleration-minor (`accelerations`: the
    track's set, `track_accelerations`), and arrivals are reported apart, in the same
    order, as `VectorRaceRules` does.
    """

    def __init__(self, track: LatticeTrack, deficit: int = LAP_DEFICIT) -> None:
        self.track = track
        laps = track.finish.laps
        self.deficit = deficit if laps is not None else 0
        self.phase_limit = self.deficit + laps - 1 if laps is not None else 0
        self.accelerations = track_accelerations(track)
        self._ax = np.array([a[0] for a in self.accelerations], dtype=np.int64)
        self._ay = np.array([a[1] for a in self.accelerations], dtype=np.int64)
        self.walls = WallIndex(track.segments, track.width, track.height)
        f = track.finish
        self._fin = tuple(np.int64(v) for v in (*f.a, *f.b))
        if f.direction is not None:
            ahead = orient(f.a, f.b, (f.a[0] + f.direction[0], f.a[1] + f.direction[1]))
            self._ahead = 1 if ahead > 0 else -1

    def state_at(self, p: Point) -> CarState:
        """The car at rest at local point p (net lap count 0)."""
        return CarState(p[0], p[1], 0, 0, 0, 0, self.deficit)

    def initial_state(self) -> CarState:
        return self.state_at(self.track.start)

    def start_states(self) -> list[CarState]:
        """Every start position at rest, in the file's order."""
        return [self.state_at(p) for p in self.track.starts]

    def expand(self, batch: StateArrays) -> Expansion:
        """All legal moves from every state of `batch`."""
        t = self.track
        n = len(self.accelerations)
        vx = (batch.vx.astype(np.int64)[:, None] + self._ax).ravel()
        vy = (batch.vy.astype(np.int64)[:, None] + self._ay).ravel()
        px = np.repeat(batch.x.astype(np.int64), n)
        py = np.repeat(batch.y.astype(np.int64), n)
        qx, qy = px + vx, py + vy
        idx = np.flatnonzero((qx >= 0) & (qx < t.width) & (qy >= 0) & (qy < t.height))
        px, py, qx, qy, vx, vy = px[idx], py[idx], qx[idx], qy[idx], vx[idx], vy[idx]
        bad = self.walls.blocked(px, py, qx, qy)
        for c in t.circles:
            bad |= enters_disc_v(px, py, qx, qy, c.center[0], c.center[1], c.radius)
        ok = np.flatnonzero(~bad)
        idx, px, py, qx, qy, vx, vy = (a[ok] for a in (idx, px, py, qx, qy, vx, vy))
        src_all = idx // n
        phase = batch.phase.astype(np.int64)[src_all]
        arrive, phase = self._finish(px, py, qx, qy, phase)
        keep, arr = np.flatnonzero(~arrive), np.flatnonzero(arrive)

        def states(rows: np.ndarray, ph: np.ndarray) -> StateArrays:
            zero = np.zeros(len(rows), dtype=np.int32)
            return StateArrays(qx[rows].astype(np.int32), qy[rows].astype(np.int32),
                               vx[rows].astype(np.int32), vy[rows].astype(np.int32), zero,
                               zero.copy(), ph.astype(np.int32))

        arrived_phase = np.full(len(arr), self.deficit, dtype=np.int64)
        return Expansion(src_all[keep], states(keep, phase[keep]), src_all[arr],
                         states(arr, arrived_phase))

    def _finish(self, px: np.ndarray, py: np.ndarray, qx: np.ndarray, qy: np.ndarray,
                phase: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(arrives, next phase) of valid moves p -> q from states with `phase`."""
        ax, ay, bx, by = self._fin
        meets = touches_v(px, py, qx, qy, ax, ay, bx, by)
        f = self.track.finish
        if f.direction is None:
            return meets, phase
        behind_p = np.sign(orient_v(ax, ay, bx, by, px, py)) * self._ahead < 0
        behind_q = np.sign(orient_v(ax, ay, bx, by, qx, qy)) * self._ahead < 0
        forward = meets & behind_p & ~behind_q
        if f.laps is None:
            return forward, phase
        backward = meets & ~behind_p & behind_q
        count = phase - self.deficit + forward.astype(np.int64) - backward.astype(np.int64)
        if len(count) and int(count.min()) < -self.deficit:
            raise LatticeLimitError(_deficit_message(self.deficit))
        return count == f.laps, count + self.deficit
