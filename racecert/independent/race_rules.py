"""The race rules of the independent side, stated once (docs/rules.md §5 and §6).

Everything on the independent side that needs the opening rule or the
progress / arrival bookkeeping takes it from here: the second geometry
(`geometry.Geometry.move`), the successor function over a move table
(`table_successors`, used by the reachability-cut CNF), the cell
relaxation and the one-hot CNF (`onehot`), and the CP-SAT model (`cpsat`), which reads the
speed cap and the straight axis per move from `OpeningRule` and its arrival
constraint from `TRANSITIONS`. None of it comes from racecert.model.rules. The lattice
profile's acceleration sets (`LATTICE_ACCELS`, docs/rules.md §9) are stated here too, for
the independent lattice search, its CP-SAT model and its replay.

The opening rule (§6): during moves 1..K (counted from the very first move) the
new velocity v' obeys |v'|inf <= max_speed, and with `straight` it has no
component across the car's initial direction. The *phase* of a state reached
after t moves is min(t, K); the rule applies to the next move iff phase < K,
i.e. to move number phase + 1.

Progress and arrival (§5), for one move that crosses the start line S
(`start`), the finish line F (`finish`), and both with S first (`start_first`):

- the move arrives iff it crosses F with progress 1, or crosses S then F;
- a move that does not arrive carries progress 1 once S is crossed;
- after an arriving move, progress is the next lap's: 1 iff S was crossed after F.

A move-table row (`racecert.independent.movetable`) is

    (x, y, x2, y2, layer, layer2, start, finish, start_before_finish)

and `START`, `FINISH`, `START_FIRST` name its flag columns.

>>> arrives(0, start=1, finish=1, start_first=1), arrives(0, start=1, finish=1, start_first=0)
(True, False)
>>> OpeningRule(moves=2, max_speed=1).allows_move(2, 2, 0)
False
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from racecert.model.track import Track

Axis = Literal["x", "y"]
Row = tuple[int, ...]
"""A move-table row (x, y, x2, y2, layer, layer2, start, finish, start_before_finish)."""

State = tuple[int, int, int, int, int, int]
"""(x, y, vx, vy, layer, progress): a car state without its time / phase."""

Successors = Callable[[State, int], Sequence[tuple[State, bool]]]
"""successors(state, phase) -> [(next state, arrives)] for every valid move from `state`
made with opening phase `phase` (= min(moves made so far, K))."""

COLUMNS: tuple[str, ...] = ("x", "y", "x2", "y2", "layer", "layer2", "start", "finish",
                            "start_before_finish")
"""The columns of a move-table row."""
X, Y, X2, Y2, LAYER, LAYER2, START, FINISH, START_FIRST = range(len(COLUMNS))
"""Column indices of a move-table row."""



class RowTable(Protocol):
    """Anything with move-table rows (a `racecert.independent.movetable.MoveTable`)."""

    @property
    def rows(self) -> Sequence[Row]: ...


ACCELS: tuple[tuple[int, int], ...] = tuple((ax, ay) for ax in (-1, 0, 1) for ay in (-1, 0, 1))
"""The nine accelerations, ax major: the one list of this side (every search, table and
model here iterates it, or `RANKED_ACCELS` where the order is a tie-break)."""



def box_accels(reach: int) -> tuple[tuple[int, int], ...]:
    """{-reach..reach}^2 in the representatives' tie-break order (ay, then ax, ascending):
    the cell-path profile's set for its `max_acceleration`.

    >>> box_accels(1) == tuple(sorted(ACCELS, key=lambda a: (a[1], a[0]))), len(box_accels(2))
    (True, 25)
    """
    r = range(-reach, reach + 1)
    return tuple((ax, ay) for ay in r for ax in r)


RANKED_ACCELS = box_accels(1)
"""The nine in the representatives' tie-break order: ay, then ax, ascending."""

LATTICE_ACCELS: dict[str, tuple[tuple[int, int], ...]] = {
    "moore": ACCELS,
    "von-neumann": tuple(a for a in ACCELS if abs(a[0]) + abs(a[1]) <= 1),
}
"""The acceleration sets a lattice track may name (docs/rules.md §9, its
``accelerations`` key), each ax major: all nine, or the five of taxicab length at most 1
(stand, or change one component of the velocity by 1)."""


def lattice_accels(name: str) -> tuple[tuple[int, int], ...]:
    """The accelerations of the lattice set called `name` (a `LatticeTrack`'s
    ``accelerations``); any other name is a `ValueError` naming the known ones."""
    if name not in LATTICE_ACCELS:
        raise ValueError(f"unknown lattice acceleration set {name!r}; the independent side "
                         f"knows {', '.join(LATTICE_ACCELS)}")
    return LATTICE_ACCELS[name]


def row_velocity(row: Row) -> tuple[int, int]:
    """The new velocity v' of a move-table row (its displacement)."""
    return row[X2] - row[X], row[Y2] - row[Y]


def initial_state(track: Track) -> State:
    """The configured car at rest, before the start line: (x0, y0, 0, 0, layer0, 0)."""
    x, y = track.car.position
    return (x, y, 0, 0, track.car.layer, 0)


# -- the opening rule ----------------------------------------------------------------------


def phase_after(phase: int, limit: int) -> int:
    """The opening phase after one more move: min(phase + 1, K) for K = `limit`."""
    return min(phase + 1, limit)


def phase_at(moves_made: int, limit: int) -> int:
    """The opening phase after `moves_made` moves from the initial state: min(t, K)."""
    return min(moves_made, limit)


def straight_axis(track: Track) -> Axis:
    """The axis of the car's initial direction: a `straight` opening keeps v' on it."""
    return "x" if track.car.direction in ("+x", "-x") else "y"


@dataclass(frozen=True)
class OpeningRule:
    """The opening rule of docs/rules.md §6: K moves, a speed cap, a straight axis.

    `moves` = K is also the phase limit (0: no opening rule, every phase is 0).
    `straight_axis` is the axis v' must stay on during the opening (None: free).

    >>> r = OpeningRule(moves=3, max_speed=2, straight_axis="x")
    >>> r.allows(0, 2, 0), r.allows(0, 1, 1), r.allows(3, 5, 5), r.phase_after(2)
    (True, False, True, 3)
    """

    moves: int = 0
    max_speed: int | None = None
    straight_axis: Axis | None = None

    @classmethod
    def of(cls, track: Track) -> OpeningRule:
        """The rule of `track` (never None: a track without one gets K = 0)."""
        op = track.opening
        if op is None:
            return cls()
        return cls(op.moves, op.max_speed, straight_axis(track) if op.straight else None)

    # phases: the rule binds the move made from phase < K
    def active(self, phase: int) -> bool:
        """Whether the move made from opening phase `phase` is restricted."""
        return phase < self.moves

    def active_for_move(self, move: int) -> bool:
        """Whether move number `move` (1-based, from the initial state) is restricted."""
        return self.active(move - 1)

    def phase_after(self, phase: int) -> int:
        """The phase after one more move: min(phase + 1, K)."""
        return phase_after(phase, self.moves)

    def phase_at(self, moves_made: int) -> int:
        """The phase after `moves_made` moves from the initial state: min(t, K)."""
        return phase_at(moves_made, self.moves)

    # what the rule asks of v'
    def speed_cap(self, phase: int) -> int | None:
        """The bound on |v'|inf for the move from `phase`, or None when there is none."""
        return self.max_speed if self.active(phase) else None

    def zero_axis(self, phase: int) -> Axis | None:
        """The axis whose component of v' must be 0 for the move from `phase` (or None)."""
        if self.straight_axis is None or not self.active(phase):
            return None
        return "y" if self.straight_axis == "x" else "x"

    def allows(self, phase: int, vx: int, vy: int) -> bool:
        """Whether v' = (vx, vy) is allowed for the move made from opening phase `phase`."""
        cap = self.speed_cap(phase)
        if cap is not None and max(abs(vx), abs(vy)) > cap:
            return False
        zero = self.zero_axis(phase)
        return zero is None or (vx if zero == "x" else vy) == 0

    def allows_move(self, move: int, vx: int, vy: int) -> bool:
        """Whether v' = (vx, vy) is allowed as move number `move` (1-based)."""
        return self.allows(move - 1, vx, vy)


# -- progress and arrival ------------------------------------------------------------------


def arrives(progress: int, start: int, finish: int, start_first: int) -> bool:
    """A move arrives when it crosses F with progress 1, or crosses S and then F."""
    return bool(finish) and bool(progress or start_first)


def racing_progress(progress: int, start: int) -> int:
    """The progress a move that does not arrive carries on: 1 once S has been crossed."""
    return 1 if start else progress


def next_lap_progress(start: int, start_first: int) -> int:
    """The progress after an arriving move (the next lap's): 1 iff S was crossed after F."""
    return 1 if start and not start_first else 0


def move_outcome(progress: int, start: int, finish: int, start_first: int) -> tuple[bool, int]:
    """(arrives, progress after the move) for one move from `progress` with these crossings."""
    if arrives(progress, start, finish, start_first):
        return True, next_lap_progress(start, start_first)
    return False, racing_progress(progress, start)


def row_outcome(progress: int, row: Row) -> tuple[bool, int]:
    """`move_outcome` for a move-table row."""
    return move_outcome(progress, row[START], row[FINISH], row[START_FIRST])


def row_arrives(progress: int, row: Row) -> bool:
    """`arrives` for a move-table row."""
    return arrives(progress, row[START], row[FINISH], row[START_FIRST])


CROSSINGS: tuple[tuple[int, int, int], ...] = ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0),
                                               (1, 1, 1))
"""Every consistent (start, finish, start_first): start_first only when both are crossed."""

TRANSITIONS: tuple[tuple[int, int, int, int, int, int], ...] = tuple(
    (p, s, f, sf, int(arrives(p, s, f, sf)), racing_progress(p, s))
    for p in (0, 1) for s, f, sf in CROSSINGS)
"""The truth table (progress, start, finish, start_first, arrives, racing progress) of
one move, for encodings that state the rule as a table constraint."""


# -- the successor function over a move table ----------------------------------------------


def table_successors(table: RowTable, track: Track) -> Successors:
    """The successor function of the race rules over an allowed-move table.

    A row is one geometrically valid move. From state (x, y, vx, vy, layer, progress)
    with opening phase `phase`, acceleration a gives v' = v + a, and the move is
    allowed iff v' != 0, the row from (x, y, layer) to (x, y) + v' exists, and the
    opening rule allows v' from `phase`; `row_outcome` gives arrival and progress.
    Results are cached per (state, phase).

    >>> # succ = table_successors(build_move_table(track, 5), track)
    """
    by_source: dict[tuple[int, int, int], dict[tuple[int, int], Row]] = {}
    for r in table.rows:
        by_source.setdefault((r[X], r[Y], r[LAYER]), {})[(r[X2], r[Y2])] = r
    rule = OpeningRule.of(track)
    cache: dict[tuple[State, int], list[tuple[State, bool]]] = {}

    def successors(s: State, phase: int) -> Sequence[tuple[State, bool]]:
        hit = cache.get((s, phase))
        if hit is not None:
            return hit
        x, y, vx, vy, layer, progress = s
        moves = by_source.get((x, y, layer), {})
        out: list[tuple[State, bool]] = []
        for ax, ay in ACCELS:
            nvx, nvy = vx + ax, vy + ay
            if (nvx, nvy) == (0, 0) or not rule.allows(phase, nvx, nvy):
                continue
            row = moves.get((x + nvx, y + nvy))
            if row is None:
                continue
            done, nprog = row_outcome(progress, row)
            out.append(((x + nvx, y + nvy, nvx, nvy, row[LAYER2], nprog), done))
        cache[(s, phase)] = out
        return out

    return successors
