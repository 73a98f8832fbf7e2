"""Independent truth for the lattice profile: plain enumeration of every trajectory.

Written from docs/rules.md ("The lattice profile") alone; it reads only the data of a
`LatticeTrack` and shares no code with `racecert.model.lattice.geometry` or
`lattice_rules`. The geometry is parametric, in exact rationals (integer numerators over
a common denominator, compared cross-multiplied): two segments meet
when p + t (q - p) = a + s (b - a) has a solution with t, s in [0, 1] (Cramer's rule),
or, when they are parallel, when they lie on one line and their projections overlap;
a segment enters a disc when the closest point of the segment (the clamped foot of
the perpendicular) is strictly closer than the radius. Then a depth-first
enumeration of every trajectory with iterative deepening counts the trajectories
whose first arrival is exactly their d-th move, with the accelerations of the track's
``accelerations`` set (`accelerations_of`: the nine of the Moore set, or the five of the
von Neumann set, those whose components multiply to 0). Exponential: tiny tracks only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from racecert.model.lattice.track import LatticeTrack

Point = tuple[int, int]
ACCELS = tuple((ax, ay) for ax in (-1, 0, 1) for ay in (-1, 0, 1))
"""The Moore set: every a in {-1, 0, 1}^2."""
# (x, y, vx, vy, net finish crossings)
State = tuple[int, int, int, int, int]


class WorkCap(Exception):
    """More than `max_nodes` trajectory prefixes visited."""


def _on_segment(p: Point, a: Point, b: Point) -> bool:
    """p lies on the closed segment ab (a == b allowed)."""
    if (b[0] - a[0]) * (p[1] - a[1]) != (b[1] - a[1]) * (p[0] - a[0]):
        return False
    return (min(a[0], b[0]) <= p[0] <= max(a[0], b[0])
            and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]))


def _within(num: int, den: int) -> bool:
    """0 <= num / den <= 1 for den != 0, without dividing (cross-multiplied)."""
    return 0 <= num <= den if den > 0 else den <= num <= 0


def meet(p: Point, q: Point, a: Point, b: Point) -> bool:
    """The closed segments pq and ab share a point (parametric, exact rationals kept as
    integer numerators over a common denominator)."""
    if p == q:
        return _on_segment(p, a, b)
    if a == b:
        return _on_segment(a, p, q)
    rx, ry = q[0] - p[0], q[1] - p[1]
    sx, sy = b[0] - a[0], b[1] - a[1]
    den = rx * sy - ry * sx
    wx, wy = a[0] - p[0], a[1] - p[1]
    if den == 0:  # parallel: on one line and overlapping, or nothing
        if wx * ry - wy * rx != 0:
            return False
        rr = rx * rx + ry * ry  # t0 = n0 / rr and t1 = n1 / rr, rr > 0
        n0 = wx * rx + wy * ry
        n1 = (b[0] - p[0]) * rx + (b[1] - p[1]) * ry
        return max(n0, n1) >= 0 and min(n0, n1) <= rr
    # t = (w x s) / den and s = (w x r) / den (Cramer's rule)
    return _within(wx * sy - wy * sx, den) and _within(wx * ry - wy * rx, den)


def inside_disc(p: Point, q: Point, c: Point, r: int) -> bool:
    """Some point of the closed segment pq is strictly inside the circle (c, r)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    dd = dx * dx + dy * dy
    num = (c[0] - p[0]) * dx + (c[1] - p[1]) * dy  # the foot at t = num / dd
    if dd == 0 or num <= 0:  # clamped to t = 0: p itself
        return (p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2 < r * r
    if num >= dd:  # clamped to t = 1: q itself
        return (q[0] - c[0]) ** 2 + (q[1] - c[1]) ** 2 < r * r
    # e = p + (num / dd) d - c, scaled by dd: |dd e|^2 < (dd r)^2
    ex, ey = (p[0] - c[0]) * dd + num * dx, (p[1] - c[1]) * dd + num * dy
    return ex * ex + ey * ey < (r * dd) ** 2


def _ahead(track: LatticeTrack, p: Point) -> bool:
    """p on the side the finish's direction points to, or on the finish's line."""
    f = track.finish
    assert f.direction is not None
    nx, ny = -(f.b[1] - f.a[1]), f.b[0] - f.a[0]  # a normal of the finish
    if nx * f.direction[0] + ny * f.direction[1] < 0:
        nx, ny = -nx, -ny
    return nx * (p[0] - f.a[0]) + ny * (p[1] - f.a[1]) >= 0


def accelerations_of(track: LatticeTrack) -> tuple[tuple[int, int], ...]:
    """The accelerations a move on `track` may use, from its ``accelerations`` name."""
    if track.accelerations == "moore":
        return ACCELS
    if track.accelerations == "von-neumann":
        return tuple(a for a in ACCELS if a[0] * a[1] == 0)
    raise ValueError(f"the brute force knows no acceleration set {track.accelerations!r}")


@dataclass(frozen=True)
class Step:
    """A valid move: the new state and whether it finishes."""

    state: State
    arrives: bool


def step(track: LatticeTrack, s: State, accel: tuple[int, int]) -> Step | None:
    """One move, or None when it is invalid."""
    x, y, vx, vy, net = s
    vx, vy = vx + accel[0], vy + accel[1]
    p, q = (x, y), (x + vx, y + vy)
    if not (0 <= q[0] < track.width and 0 <= q[1] < track.height):
        return None
    for line in track.polylines:
        for a, b in zip(line, line[1:], strict=False):
            if meet(p, q, a, b):
                return None
    if any(inside_disc(p, q, c.center, c.radius) for c in track.circles):
        return None
    f = track.finish
    touch = meet(p, q, f.a, f.b)
    if f.direction is None:
        return Step((q[0], q[1], vx, vy, 0), touch)
    fwd = touch and not _ahead(track, p) and _ahead(track, q)
    bwd = touch and _ahead(track, p) and not _ahead(track, q)
    if f.laps is None:
        return Step((q[0], q[1], vx, vy, 0), fwd)
    net += fwd - bwd
    return Step((q[0], q[1], vx, vy, net), net == f.laps)


@dataclass(frozen=True)
class Brute:
    """m* (None: no arrival within the cap), the count, and per final (x, y, vx, vy)."""

    m_star: int | None
    count: int
    finals: Counter


def enumerate_optimal(track: LatticeTrack, starts: list[Point], depth_cap: int,
                      max_nodes: int = 200_000) -> Brute:
    """Every trajectory from each start at rest, by increasing depth, until one arrives."""
    nodes = [0]
    accels = accelerations_of(track)
    moves: dict[tuple[State, tuple[int, int]], Step | None] = {}  # `step` is pure: each once
    for depth in range(1, depth_cap + 1):
        finals: Counter = Counter()
        for p in starts:
            _dfs(track, (p[0], p[1], 0, 0, 0), depth, finals, nodes, max_nodes, moves, accels)
        if finals:
            return Brute(depth, sum(finals.values()), finals)
    return Brute(None, 0, Counter())


def _dfs(track: LatticeTrack, s: State, left: int, finals: Counter, nodes: list[int],
         max_nodes: int, moves: dict[tuple[State, tuple[int, int]], Step | None],
         accels: tuple[tuple[int, int], ...]) -> None:
    """Count into `finals` the trajectories from `s` whose first arrival is move `left`,
    each move with one of `accels` (`moves` remembers the moves already worked out, by
    state and acceleration)."""
    for a in accels:
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise WorkCap
        if (s, a) not in moves:
            moves[s, a] = step(track, s, a)
        r = moves[s, a]
        if r is None:
            continue
        if r.arrives:
            if left == 1:
                finals[r.state[:4]] += 1
            continue  # an arrival ends the trajectory
        if left > 1:
            _dfs(track, r.state, left - 1, finals, nodes, max_nodes, moves, accels)
