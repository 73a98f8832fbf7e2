"""Independent truth for the core engine: plain enumeration of every trajectory.

Written from docs/rules.md alone. It shares no code with what it checks: it
does not import `racecert.model.geometry`, `rules`, `states`, `topology` or any
solver; from `racecert.model.track` it reads only the data (grid rows, lines,
car, opening rule). Geometry is re-derived differently from
`racecert.model.geometry` (which walks cell boundaries in doubled
coordinates): for every cell in the move's bounding box it clips the segment
against the cell's *open* square (Liang-Barsky slabs, exact `Fraction`s) and
orders the touched cells by their entry parameter.

The search is a depth-first enumeration of trajectories, indexed by time (the
opening rule constrains move i iff i <= K), with iterative deepening: depth d
counts the trajectories whose first arrival is exactly their d-th move. It is
exponential and meant for tiny tracks only; `max_nodes` caps the work and
raises `WorkCapExceeded` so that a test can skip (and count) the example.

>>> from fractions import Fraction as Fr
>>> [(c.x, c.y) for c in touched_cells(0, 0, 1, 1)]  # through a corner
[(0, 0), (1, 1)]
>>> [(c.x, c.y, str(c.entry)) for c in touched_cells(0, 0, 2, 1)]
[(0, 0, '0'), (1, 0, '1/4'), (1, 1, '1/2'), (2, 1, '3/4')]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from racecert.model.track import Line, Track

HALF = Fraction(1, 2)
ACCELS: tuple[tuple[int, int], ...] = tuple((ax, ay) for ax in (-1, 0, 1) for ay in (-1, 0, 1))
UNIT: dict[str, tuple[int, int]] = {"+x": (1, 0), "-x": (-1, 0), "+y": (0, 1), "-y": (0, -1)}

# A brute-force state: (x, y, vx, vy, layer, progress). The time is kept by the search.
State = tuple[int, int, int, int, int, int]
Kinematic = tuple[int, int, int, int, int]


class WorkCapExceeded(Exception):
    """The enumeration visited more than `max_nodes` trajectory prefixes."""


# -- geometry -----------------------------------------------------------------------


@dataclass(frozen=True)
class Touched:
    """A cell met by a move's open interior, with the parameters where it is entered and left."""

    x: int
    y: int
    entry: Fraction
    exit: Fraction


def _slab(p: int, v: int, c: int) -> tuple[Fraction | None, Fraction | None] | None:
    """Open t-interval where p + t*v lies in (c - 1/2, c + 1/2); None when never.

    (None, None) means "for every t" (the segment runs inside the slab).
    """
    if v == 0:
        return (None, None) if p == c else None
    a = (c - HALF - p) / Fraction(v)
    b = (c + HALF - p) / Fraction(v)
    return (min(a, b), max(a, b))


def touched_cells(px: int, py: int, vx: int, vy: int) -> list[Touched]:
    """Cells whose open interior meets the closed segment p -> p + v, by entry parameter.

    Liang-Barsky on the open square: the segment meets cell c iff the open
    intervals of t where it is inside c's x-slab and y-slab overlap, and that
    overlap meets [0, 1]. That depends on c - p only (each slab is), so the cells
    are found once per velocity, from the origin, and shifted by p.
    """
    return [Touched(c.x + px, c.y + py, c.entry, c.exit) for c in _touched_from_origin(vx, vy)]


@cache
def _touched_from_origin(vx: int, vy: int) -> tuple[Touched, ...]:
    """`touched_cells(0, 0, vx, vy)`, computed with exact Fractions."""
    px = py = 0
    qx, qy = px + vx, py + vy
    out: list[Touched] = []
    for cx in range(min(px, qx), max(px, qx) + 1):
        sx = _slab(px, vx, cx)
        if sx is None:
            continue
        for cy in range(min(py, qy), max(py, qy) + 1):
            sy = _slab(py, vy, cy)
            if sy is None:
                continue
            los = [b for b in (sx[0], sy[0]) if b is not None]
            his = [b for b in (sx[1], sy[1]) if b is not None]
            lo = max(los) if los else None
            hi = min(his) if his else None
            if lo is not None and hi is not None and lo >= hi:
                continue  # the slabs' open intervals do not overlap (e.g. only a corner)
            if (lo is not None and lo >= 1) or (hi is not None and hi <= 0):
                continue  # the overlap lies outside the segment
            entry = max(lo, Fraction(0)) if lo is not None else Fraction(0)
            leave = min(hi, Fraction(1)) if hi is not None else Fraction(1)
            out.append(Touched(cx, cy, entry, leave))
    out.sort(key=lambda c: c.entry)
    return tuple(out)


def crossing(line: Line, px: int, py: int, vx: int, vy: int) -> Fraction | None:
    """Exact t at which the segment p -> p + v meets `line` (closed span), or None.

    A line on axis "x" is the vertical segment X = k + 1/2, Y in [lo - 1/2, hi + 1/2].
    Decided in integers, in doubled coordinates: t = (2k + 1 - 2p) / (2v) =: num / den
    with den > 0, so 0 <= t <= 1 is 0 <= num <= den, and the other coordinate at t,
    doubled and times den, is 2 p' den + 2 num v' against (2 lo - 1) den and
    (2 hi + 1) den; only a crossing is made a `Fraction`.
    """
    p_f, v_f, p_s, v_s = (px, vx, py, vy) if line.axis == "x" else (py, vy, px, vx)
    if v_f == 0:
        return None
    num, den = 2 * line.k + 1 - 2 * p_f, 2 * v_f
    if den < 0:
        num, den = -num, -den
    if not 0 <= num <= den:
        return None
    other = 2 * p_s * den + 2 * num * v_s  # 2 den (p' + t v')
    if not (2 * line.lo - 1) * den <= other <= (2 * line.hi + 1) * den:
        return None
    return Fraction(num, den)


# -- surfaces (read from the raw grid rows) -----------------------------------------


def _char(track: Track, layer: int, x: int, y: int) -> str:
    rows = track.ground if layer == 0 else (track.elevated or ())
    if x < 0 or y < 0 or y >= len(rows) or x >= len(rows[y]):
        return "#"
    return rows[y][x]


def drivable(track: Track, layer: int, x: int, y: int) -> bool:
    """Passable in `layer`: asphalt, shoulder or ramp of that layer's grid."""
    return _char(track, layer, x, y) in ((".", ":", "/") if layer == 0 else ("=", ":", "/"))


def endable(track: Track, layer: int, x: int, y: int) -> bool:
    """A move may end here in `layer`: asphalt or ramp (not a shoulder)."""
    return _char(track, layer, x, y) in ((".", "/") if layer == 0 else ("=", "/"))


def ramp(track: Track, x: int, y: int) -> bool:
    """A ramp cell ('/' in the ground grid; the parser checks both grids agree)."""
    return _char(track, 0, x, y) == "/"


# -- one move -----------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """A valid move: the new state and whether it arrives (then `state` is not continued)."""

    state: State
    arrives: bool

    @property
    def kinematic(self) -> Kinematic:
        return self.state[:5]  # type: ignore[return-value]


def move(track: Track, s: State, accel: tuple[int, int], opening_active: bool) -> Outcome | None:
    """One move by docs/rules.md, or None when it is invalid."""
    x, y, vx0, vy0, layer, progress = s
    vx, vy = vx0 + accel[0], vy0 + accel[1]
    if vx == 0 and vy == 0:
        return None
    op = track.opening
    if opening_active and op is not None:
        if op.max_speed is not None and (abs(vx) > op.max_speed or abs(vy) > op.max_speed):
            return None
        dx, dy = UNIT[track.car.direction]
        if op.straight and (vx * dy - vy * dx) != 0:  # a component perpendicular to d0
            return None
    cells = _touched_from_origin(vx, vy)  # relative to p: cell c is (x + c.x, y + c.y)
    assert (cells[0].x, cells[0].y) == (0, 0) and (cells[-1].x, cells[-1].y) == (vx, vy)
    layers: list[int] = []
    cur = layer
    for i, c in enumerate(cells):
        if not drivable(track, cur, x + c.x, y + c.y):
            before = cells[i - 1] if i else None
            if before is not None and ramp(track, x + before.x, y + before.y) and drivable(
                track, 1 - cur, x + c.x, y + c.y
            ):
                cur = 1 - cur
            else:
                return None
        layers.append(cur)
    if not endable(track, cur, x + vx, y + vy):
        return None
    events: list[tuple[Fraction, str]] = []
    for name, line in (("S", track.start), ("F", track.finish)):
        t = crossing(line, x, y, vx, vy)
        if t is None:
            continue
        # the cell entered at the crossing: the one occupied just after t
        at = next(layers[i] for i, c in enumerate(cells) if c.entry <= t < c.exit)
        if at != line.layer:
            continue  # a bridge over (or a tunnel under) the line
        ux, uy = UNIT[line.direction]
        if vx * ux + vy * uy < 0:
            return None  # wrong way
        events.append((t, name))
    arrives = False
    for _, name in sorted(events):
        if name == "S":
            progress = 1
        elif progress == 1:
            arrives = True
            break
    return Outcome((x + vx, y + vy, vx, vy, cur, progress), arrives)


# -- the enumeration ----------------------------------------------------------------


def initial_state(track: Track) -> State:
    """P0 with zero velocity, the car's layer, start line not yet crossed."""
    x, y = track.car.position
    return (x, y, 0, 0, track.car.layer, 0)


class _Moves:
    """Memo of the pure function `move` (same answers, fewer Fraction computations)."""

    def __init__(self, track: Track) -> None:
        self.track = track
        self.k = track.opening.moves if track.opening else 0
        self.memo: dict[tuple[State, bool], list[Outcome]] = {}

    def after(self, s: State, t: int) -> list[Outcome]:
        """Valid moves from state s after t moves (the next move has time index t + 1)."""
        active = t < self.k
        key = (s, active)
        got = self.memo.get(key)
        if got is None:
            got = [o for a in ACCELS if (o := move(self.track, s, a, active)) is not None]
            self.memo[key] = got
        return got


@dataclass(frozen=True)
class BruteResult:
    """m* (None if no arrival within `depth_cap`), counts, and where optimal trajectories go.

    `per_final` maps each final kinematic state (x, y, vx, vy, layer) to the
    number of optimal trajectories ending there. `optimal_visits` holds every
    (state, t) lying on some optimal trajectory (t = 0..m*-1), `optimal_moves`
    every (state at t, t, state at t + 1) of a non-arriving move on one.
    """

    m_star: int | None
    total: int
    per_final: dict[Kinematic, int]
    optimal_visits: frozenset[tuple[State, int]]
    optimal_moves: frozenset[tuple[State, int, State]]
    depth_cap: int
    nodes: int


class _Deepening:
    """One iteration of the iterative deepening: every trajectory of at most `depth` moves."""

    def __init__(self, moves: _Moves, depth: int, nodes: int, max_nodes: int) -> None:
        self.moves, self.depth, self.nodes, self.max_nodes = moves, depth, nodes, max_nodes
        self.per_final: dict[Kinematic, int] = {}
        self.visits: set[tuple[State, int]] = set()
        self.steps: set[tuple[State, int, State]] = set()

    def run(self, path: list[State]) -> None:
        """Extend the trajectory prefix `path` (its states at times 0..len - 1) in every way."""
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise WorkCapExceeded(f"more than {self.max_nodes} nodes at depth {self.depth}")
        t = len(path) - 1
        for o in self.moves.after(path[-1], t):
            if o.arrives:
                if t + 1 == self.depth:
                    self.per_final[o.kinematic] = self.per_final.get(o.kinematic, 0) + 1
                    self.visits.update((p, i) for i, p in enumerate(path))
                    self.steps.update((path[i], i, path[i + 1]) for i in range(t))
                continue  # an arrival ends the trajectory (earlier ones: a shorter depth)
            if t + 1 < self.depth:
                path.append(o.state)
                self.run(path)
                path.pop()


def enumerate_optimal(track: Track, depth_cap: int = 10, max_nodes: int = 200_000) -> BruteResult:
    """Iterative-deepening DFS over every trajectory; raises `WorkCapExceeded` past max_nodes.

    Depth d counts the trajectories whose d-th move is their first arrival;
    the first depth with any gives m*.
    """
    moves = _Moves(track)
    nodes = 0
    for depth in range(1, depth_cap + 1):
        it = _Deepening(moves, depth, nodes, max_nodes)
        it.run([initial_state(track)])
        nodes = it.nodes
        if it.per_final:
            return BruteResult(depth, sum(it.per_final.values()), it.per_final,
                               frozenset(it.visits), frozenset(it.steps), depth_cap, nodes)
    return BruteResult(None, 0, {}, frozenset(), frozenset(), depth_cap, nodes)


def states_by_time(track: Track, horizon: int) -> list[set[State]]:
    """R[t] = states reachable after exactly t moves without having arrived, t = 0..horizon."""
    moves = _Moves(track)
    layers = [{initial_state(track)}]
    for t in range(horizon):
        layers.append({o.state for s in layers[t] for o in moves.after(s, t) if not o.arrives})
    return layers


def can_arrive(track: Track) -> bool:
    """Exhaustive closure over (state, min(t, K)): does any trajectory arrive at all?"""
    moves = _Moves(track)
    k = moves.k
    seen = {(initial_state(track), 0)}
    stack = list(seen)
    while stack:
        s, phase = stack.pop()
        for o in moves.after(s, phase):
            if o.arrives:
                return True
            nxt = (o.state, min(phase + 1, k))
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def shadow_witnesses(track: Track, result: BruteResult) -> Iterator[tuple[State, int, int]]:
    """(state, t1, t2): an optimal trajectory passes `state` at t2, also reachable at t1 < t2,
    with t1 < K (the opening rule still active after t1 moves).

    When the editor's phase-less key loses optimal trajectories, such a
    witness must exist: otherwise every state of every optimal trajectory is
    first reached at its own time, or first reached at t1 >= K where the future
    no longer depends on time, which would give a shorter arrival.
    """
    if track.opening is None or result.m_star is None:
        return
    k = track.opening.moves
    reach = states_by_time(track, result.m_star)
    for s, t2 in sorted(result.optimal_visits):
        for t1 in range(min(t2, k)):
            if s in reach[t1]:
                yield (s, t1, t2)
