"""The driver interface: what a driver sees and what it answers.

A driver is any callable `driver(view) -> answer`, called once per turn of its car
(a class with `__call__`, or a plain function). `view` is a `CarView`: the track and
the shared race knowledge (`view.context`), the race state (every other car on the
track and the cells they occupy), the car's own state, lap and turn, the race's
random generator, and the nine accelerations already judged (`view.options`). The
answer is one of:

- an acceleration `(ax, ay)` with ax, ay in {-1, 0, 1} (a tuple or list of integers);
- `None`: the car waits this turn;
- a `Decision`, which adds notes for the race's event log (`blocked`, `replan`),
  the number of search states the decision expanded, and why the car waits.

A driver is only asked when its car has at least one usable option (a valid move
that does not end on an occupied cell); otherwise the race records a wait without
asking. A driver keeps whatever state it likes between turns; give each car its own
driver object. Every random draw must come from `view.rng` so that the race stays
reproducible by its seed. The name shown for a driver is its `name` attribute, else
its class or function name.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Union

from racecert.model.rules import ACCELERATIONS, CarState, MoveResult
from racecert.model.track import Track
from racecert.race.rng import RaceRandom

if TYPE_CHECKING:
    from racecert.race.context import RaceContext

Acceleration = tuple[int, int]
Cell = tuple[int, int]
NoteKind = Literal["blocked", "replan"]


@dataclass(frozen=True)
class Option:
    """One of the nine accelerations from the car's state, judged by the rules.

    `result` is `racecert.model.rules.apply_move`'s exact outcome; `occupant` is the
    car standing on the cell the move would end on (None when free or invalid).
    """

    acceleration: Acceleration
    result: MoveResult
    occupant: int | None

    @property
    def valid(self) -> bool:
        return self.result.valid

    @property
    def usable(self) -> bool:
        """Valid and ending on a free cell: the race would play it."""
        return self.result.valid and self.occupant is None

    @property
    def end(self) -> Cell | None:
        s = self.result.state
        return None if s is None else (s.x, s.y)


@dataclass(frozen=True)
class Rival:
    """Another car on the track, as every driver sees it."""

    index: int
    state: CarState
    lap: int


@dataclass(frozen=True)
class CarView:
    """What a driver sees on its turn (see the module docstring)."""

    context: RaceContext
    index: int
    state: CarState
    lap: int
    turn: int
    rivals: tuple[Rival, ...]
    occupied: Mapping[Cell, int]
    options: tuple[Option, ...]
    rng: RaceRandom

    @property
    def track(self) -> Track:
        return self.context.track

    @property
    def laps(self) -> int:
        """Laps of the race."""
        return self.context.laps

    @property
    def turns_left(self) -> int:
        """Turns this car has left before the move limit, this one included."""
        return self.context.move_limit - self.turn + 1

    def option(self, acceleration: Acceleration) -> Option:
        """The judged option of `acceleration`."""
        return self.options[ACCELERATIONS.index(acceleration)]

    @property
    def usable(self) -> tuple[Option, ...]:
        """The options the race would play (valid, ending on a free cell)."""
        return tuple(o for o in self.options if o.usable)


@dataclass(frozen=True)
class Note:
    """An event a driver reports: its plan was `blocked`, or it made a new plan (`replan`).

    `cell` is the occupied cell of a blocked move.
    """

    kind: NoteKind
    detail: str
    cell: Cell | None = None


@dataclass(frozen=True)
class Decision:
    """A driver's full answer: the acceleration (None: wait), notes, search effort."""

    acceleration: Acceleration | None
    notes: tuple[Note, ...] = ()
    states_expanded: int = 0
    wait_reason: str = ""


Answer = Union[Acceleration, Decision, None]  # noqa: UP007 (a runtime alias)
Driver = Callable[[CarView], Answer]


def driver_name(driver: object) -> str:
    """The name a race shows for `driver`."""
    name = getattr(driver, "name", None)
    if isinstance(name, str) and name:
        return name
    if hasattr(driver, "__name__"):
        return str(driver.__name__)
    return type(driver).__name__


def as_decision(answer: object) -> Decision:
    """Normalise a driver's answer; anything that is not an acceleration becomes a wait
    with the reason saying what was returned."""
    if isinstance(answer, Decision):
        return answer
    if answer is None:
        return Decision(None, wait_reason="the driver chose to wait")
    accel = as_acceleration(answer)
    if accel is not None:
        return Decision(accel)
    return Decision(None, wait_reason=f"the driver returned {answer!r}, not an acceleration")


def as_acceleration(value: object) -> Acceleration | None:
    """(ax, ay) as Python ints when `value` is a pair of integers in {-1, 0, 1} (numpy
    integers included, booleans not), else None."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        return None
    if not all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in value):
        return None
    accel = (int(value[0]), int(value[1]))
    return accel if accel in ACCELERATIONS else None
