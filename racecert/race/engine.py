"""The race engine: cars on one track, moving in turn, with occupancy.

A race (docs/races.md):

- car i starts on grid slot i (`racecert.race.grid`) at rest, progress 0, phase 0;
- each round, every car still racing takes one turn, in car order. Its driver is
  shown the nine accelerations judged by the rules (`racecert.model.rules.apply_move`,
  unchanged) and by occupancy: **a move may not end on a cell another car on the
  track occupies** (the cell (x, y), whatever the layer; passing through an occupied
  cell is allowed);
- a car with no usable move (every move invalid or blocked) **waits**: it stays
  where it is with its velocity unchanged, the turn is recorded as a `wait` event,
  and its trajectory repeats the point. A driver may also choose to wait, and a
  move the race cannot play (invalid, or ending on an occupied cell) becomes a wait;
- laps are counted as in the analysis: a move crossing F with progress 1 arrives,
  and the arrived state carries the next lap's progress; a car that completes the
  race's laps has finished and leaves the track (its cell is free from then on);
- the race ends when every car has finished (`finished`), or after `move_limit`
  rounds (`move_limit`): it can never hang.

Every random draw comes from the race's one generator (`RaceRandom(seed)`), drawn
in turn order, so the same track, drivers, laps and seed give the same result.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from racecert.model.rules import ACCELERATIONS, CarState, apply_move
from racecert.model.track import Track
from racecert.race.context import RaceContext
from racecert.race.driver import (
    Acceleration,
    CarView,
    Cell,
    Decision,
    Driver,
    Option,
    Rival,
    as_acceleration,
    as_decision,
    driver_name,
)
from racecert.race.errors import DriverError, RaceSetupError
from racecert.race.grid import GridSlot, grid_slots
from racecert.race.rng import MASK64, RaceRandom

EventKind = Literal["blocked", "replan", "wait"]
Status = Literal["finished", "move_limit"]
TURNS_PER_LAP = 250  # the default move limit is this many turns per lap


def default_move_limit(laps: int) -> int:
    """The move limit used when none is given: `TURNS_PER_LAP` turns per lap."""
    return TURNS_PER_LAP * laps


@dataclass(frozen=True)
class Event:
    """Something that happened on a car's turn (1-based): `blocked`, `replan` or `wait`.

    `cell` is the occupied cell of a blocked move, and for a wait forced by occupancy
    (every valid move blocked) the first of the occupied cells; None otherwise.
    """

    turn: int
    kind: EventKind
    detail: str
    cell: Cell | None = None

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "kind": self.kind, "detail": self.detail,
                "cell": None if self.cell is None else list(self.cell)}


@dataclass(frozen=True)
class CarResult:
    """One car's race: its states (one per turn, the start included), laps and events.

    `moves` counts the car's turns (a wait is a turn in which it did not move):
    `moves == len(trajectory) - 1 == sum(moves_per_lap)` for a finished car.
    `decision_seconds` (wall time of each call of its driver, for benchmarks) is not
    part of the JSON, which depends only on track, drivers, laps, seed and move limit.

    Attributes
    ----------
    driver : str
        The driver's name ("alonso", "amateur", or a user driver's).
    slot : GridSlot
        The grid slot it started on: ``index``, ``position`` (x, y) and ``derived`` (not
        listed in the track file).
    finished : bool
        Whether it completed every lap.
    finish_turn : int or None
        The round (1-based) in which it finished; None if it did not.
    moves_per_lap : tuple of int
        Turns spent on each completed lap (waits included).
    states : tuple of CarState
        Its state after each turn, the start first: position, velocity (cells per turn),
        layer, progress and opening phase.
    events : tuple of Event
        Blocked moves, re-plans and waits, with their turn.
    states_expanded : int
        States its driver's searches expanded (deterministic work, not time).
    decision_seconds : tuple of float
        Wall seconds of each call of its driver (machine-dependent; not compared, not in
        the JSON).
    """

    driver: str
    slot: GridSlot
    finished: bool
    finish_turn: int | None
    moves_per_lap: tuple[int, ...]
    states: tuple[CarState, ...]
    events: tuple[Event, ...]
    states_expanded: int
    decision_seconds: tuple[float, ...] = field(default=(), compare=False, repr=False)

    @property
    def trajectory(self) -> tuple[Cell, ...]:
        return tuple((s.x, s.y) for s in self.states)

    @property
    def moves(self) -> int:
        return len(self.states) - 1

    @property
    def waits(self) -> int:
        return sum(1 for e in self.events if e.kind == "wait")

    @property
    def laps_completed(self) -> int:
        return len(self.moves_per_lap)

    def to_json(self) -> dict[str, Any]:
        return {
            "driver": self.driver,
            "slot": self.slot.index,
            "slot_derived": self.slot.derived,
            "finished": self.finished,
            "finish_turn": self.finish_turn,
            "laps_completed": self.laps_completed,
            "moves": self.moves,
            "waits": self.waits,
            "moves_per_lap": list(self.moves_per_lap),
            "states_expanded": self.states_expanded,
            "trajectory": [list(p) for p in self.trajectory],
            "events": [e.to_json() for e in self.events],
        }


@dataclass(frozen=True)
class RaceResult:
    """A whole race, as `run_race` returns it (frozen). Every field depends only on the
    track, the drivers, the laps, the seed and the move limit (no wall time).

    Attributes
    ----------
    track : Track
        The track raced on.
    seed : int
        The random generator's seed.
    laps : int
        Laps each car had to complete.
    move_limit : int
        The most rounds the race could last.
    status : {"finished", "move_limit"}
        "finished" when every car completed its laps; "move_limit" when the race
        stopped after `move_limit` rounds with some car still racing.
    turns : int
        Rounds played (a round is one turn of every car still racing).
    order : tuple of int
        The finished cars' indices, first to finish first; a car that finishes earlier
        in the same round (a smaller index) ranks ahead. Unfinished cars are not listed.
    cars : tuple of CarResult
        One per car, in grid order (car i started on grid slot i).

    Examples
    --------
    >>> from racecert import load_track
    >>> from racecert.race import Alonso, run_race
    >>> r = run_race(load_track("tracks/tiny_straight.toml"), [Alonso()])
    >>> r.to_json()["status"], r.cars[0].driver, r.cars[0].trajectory
    ('finished', 'alonso', ((1, 1), (2, 1), (4, 1), (7, 1)))
    """

    track: Track
    seed: int
    laps: int
    move_limit: int
    status: Status
    turns: int
    order: tuple[int, ...]
    cars: tuple[CarResult, ...]

    def to_json(self) -> dict[str, Any]:
        """The race's JSON (docs/races.md); keys in a fixed order."""
        return {
            "track": self.track.name,
            "sha256": self.track.sha256,
            "seed": self.seed,
            "laps": self.laps,
            "status": self.status,
            "move_limit": self.move_limit,
            "turns": self.turns,
            "order": list(self.order),
            "cars": [c.to_json() for c in self.cars],
        }


class _Car:
    """One car's mutable race record (the engine's private bookkeeping)."""

    def __init__(self, index: int, driver: Driver, slot: GridSlot, track: Track) -> None:
        self.index = index
        self.driver = driver
        self.name = driver_name(driver)
        self.slot = slot
        x, y = slot.position
        self.state = CarState(x, y, 0, 0, track.car.layer, 0, 0)
        self.states = [self.state]
        self.events: list[Event] = []
        self.lap = 0
        self.lap_start = 0
        self.moves_per_lap: list[int] = []
        self.finish_turn: int | None = None
        self.states_expanded = 0
        self.seconds: list[float] = []

    @property
    def cell(self) -> Cell:
        return (self.state.x, self.state.y)

    def result(self) -> CarResult:
        return CarResult(self.name, self.slot, self.finish_turn is not None, self.finish_turn,
                         tuple(self.moves_per_lap), tuple(self.states), tuple(self.events),
                         self.states_expanded, tuple(self.seconds))


def run_race(track: Track, drivers: Sequence[Driver], *, laps: int = 1, seed: int = 0,
             move_limit: int | None = None, context: RaceContext | None = None) -> RaceResult:
    """Race `drivers` (one per car, car i on grid slot i) on `track` (module docstring).

    The public entry point of races (`racecert race` calls it): the same track, drivers,
    laps, seed and move limit always give the same result (docs/races.md).

    Parameters
    ----------
    track : Track
        A validated grid track (`racecert.load_track`).
    drivers : sequence of Driver
        One driver per car, in grid order: `Alonso()`, `Amateur()` or any callable with
        the `racecert.race.driver` interface. Give each car its own driver object
        (drivers keep state); a plain function may drive several cars.
    laps : int, optional
        Laps each car must complete, at least 1; more than 1 only on a circuit.
    seed : int, optional
        The seed of the race's one random generator, in [0, 2^64); default 0.
    move_limit : int, optional
        The most rounds (turns of every car still racing) before the race stops with
        status "move_limit"; default `TURNS_PER_LAP` (250) per lap.
    context : RaceContext, optional
        Shared knowledge about the track (its analysis, computed once), to reuse between
        races on the same track; default a fresh one.

    Returns
    -------
    RaceResult
        The standings (`order`), every car's turns, laps and events; `to_json()` gives the
        JSON of `racecert race --json`.

    Raises
    ------
    RaceSetupError
        The race cannot start: no driver, one driver object for several cars, laps < 1,
        several laps of a stage, a grid with too few slots, a seed or move limit out of
        range. One line, as `racecert race` prints it.
    DriverError
        A driver raised (the message names the driver and the turn).

    Examples
    --------
    >>> from racecert import load_track
    >>> from racecert.race import Alonso, run_race
    >>> r = run_race(load_track("tracks/tiny_straight.toml"), [Alonso()], seed=1)
    >>> r.status, r.turns, r.order, r.cars[0].moves
    ('finished', 3, (0,), 3)
    """
    if not drivers:
        raise RaceSetupError("a race needs at least one driver")
    shared = [d for i, d in enumerate(drivers) if any(d is e for e in drivers[:i])
              and not inspect.isfunction(d)]
    if shared:
        raise RaceSetupError(f"driver {driver_name(shared[0])!r} is given for several cars: "
                             "give each car its own driver object (drivers keep state)")
    if laps < 1:
        raise RaceSetupError(f"laps must be at least 1, got {laps}")
    if not 0 <= seed <= MASK64:
        raise RaceSetupError(f"seed must be an integer in [0, 2^64), got {seed}")
    limit = default_move_limit(laps) if move_limit is None else move_limit
    if limit < 1:
        raise RaceSetupError(f"the move limit must be at least 1 turn, got {limit}")
    ctx = context or RaceContext(track, laps, limit)
    if laps > 1 and not ctx.circuit:
        raise RaceSetupError(f"{track.path or track.name}: {laps} laps asked, but the track "
                             "is a stage (computed): no car can drive a second lap")
    slots = grid_slots(track, len(drivers))
    cars = [_Car(i, d, s, track) for i, (d, s) in enumerate(zip(drivers, slots, strict=True))]
    rng = RaceRandom(seed)
    order: list[int] = []
    turns = 0
    for turn in range(1, limit + 1):
        turns = turn
        for car in cars:
            if car.finish_turn is None:
                _take_turn(ctx, cars, car, turn, rng)
                if car.finish_turn is not None:
                    order.append(car.index)
        if len(order) == len(cars):
            break
    status: Status = "finished" if len(order) == len(cars) else "move_limit"
    return RaceResult(track, seed, laps, limit, status, turns, tuple(order),
                      tuple(c.result() for c in cars))


def _occupancy(cars: list[_Car], me: _Car) -> dict[Cell, int]:
    """Cells of the other cars still on the track -> car index."""
    return {c.cell: c.index for c in cars if c is not me and c.finish_turn is None}


def _options(track: Track, state: CarState, occupied: dict[Cell, int]) -> tuple[Option, ...]:
    out = []
    for a in ACCELERATIONS:
        r = apply_move(track, state, a)
        occupant = None if r.state is None else occupied.get((r.state.x, r.state.y))
        out.append(Option(a, r, occupant))
    return tuple(out)


def _forced_wait(car: _Car, turn: int, options: tuple[Option, ...]) -> None:
    """Record the wait of a car with no usable move (its `cell`: the first blocked one)."""
    blocked = [o for o in options if o.valid and not o.usable]
    if not blocked:
        _wait(car, turn, "no valid move")
        return
    where = ", ".join(f"{o.end} by car {o.occupant}" for o in blocked)
    _wait(car, turn, f"no usable move: {len(blocked)} valid move(s), all blocked ({where})",
          blocked[0].end)


def _take_turn(ctx: RaceContext, cars: list[_Car], car: _Car, turn: int,
               rng: RaceRandom) -> None:
    occupied = _occupancy(cars, car)
    options = _options(ctx.track, car.state, occupied)
    if not any(o.usable for o in options):
        _forced_wait(car, turn, options)
        return
    rivals = tuple(Rival(c.index, c.state, c.lap) for c in cars
                   if c is not car and c.finish_turn is None)
    view = CarView(ctx, car.index, car.state, car.lap, turn, rivals, occupied, options, rng)
    t0 = time.perf_counter()
    try:
        answer = car.driver(view)
    except Exception as exc:
        raise DriverError(f"car {car.index} ({car.name}), turn {turn}: the driver raised "
                          f"{type(exc).__name__}: {exc}") from exc
    car.seconds.append(time.perf_counter() - t0)
    decision = as_decision(answer)
    car.states_expanded += decision.states_expanded
    car.events.extend(Event(turn, n.kind, n.detail, n.cell) for n in decision.notes)
    _play(car, turn, decision, options, ctx.laps)


def _play(car: _Car, turn: int, decision: Decision, options: tuple[Option, ...],
          laps: int) -> None:
    """Play the decided acceleration, or record why the car waits."""
    if decision.acceleration is None:
        _wait(car, turn, decision.wait_reason or "the driver chose to wait")
        return
    a: Acceleration | None = as_acceleration(decision.acceleration)
    if a is None:
        _wait(car, turn, f"the driver returned {decision.acceleration!r}, not an acceleration")
        return
    option = options[ACCELERATIONS.index(a)]
    if not option.valid:
        _wait(car, turn, f"acceleration {a} is invalid: {option.result.reason}")
        return
    if option.occupant is not None:
        car.events.append(Event(turn, "blocked", f"acceleration {a} ends on {option.end}, "
                                f"occupied by car {option.occupant}", option.end))
        _wait(car, turn, "its move was blocked")
        return
    new = option.result.state
    assert new is not None  # a valid move has a state
    car.state = new
    car.states.append(new)
    if option.result.arrives:
        car.moves_per_lap.append(turn - car.lap_start)
        car.lap += 1
        car.lap_start = turn
        if car.lap == laps:
            car.finish_turn = turn


def _wait(car: _Car, turn: int, reason: str, cell: Cell | None = None) -> None:
    car.events.append(Event(turn, "wait", reason, cell))
    car.states.append(car.state)
