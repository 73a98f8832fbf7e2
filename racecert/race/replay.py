"""What both replay pictures share: the step-by-step timeline of a race and car colours.

A step is one car's turn; steps run in race order (turn 1 of every car still
racing, in car order, then turn 2, ...), so replaying them reproduces who stood
where when each move was made.
"""

from __future__ import annotations

from dataclasses import dataclass

from racecert.race.driver import Cell
from racecert.race.engine import Event, RaceResult

CAR_COLORS = ("#d7263d", "#1b65d6", "#2a9d3c", "#f29e0c", "#8e44ad", "#00a6a6", "#b5651d",
              "#e84393")


def car_color(index: int) -> str:
    return CAR_COLORS[index % len(CAR_COLORS)]


@dataclass(frozen=True)
class Step:
    """Car `car`'s turn `turn`: where it stands afterwards, from where, and what happened."""

    car: int
    turn: int
    before: Cell
    after: Cell
    events: tuple[Event, ...]

    @property
    def moved(self) -> bool:
        return not any(e.kind == "wait" for e in self.events)


def timeline(result: RaceResult) -> tuple[Step, ...]:
    """Every car-turn of the race in the order they were played."""
    steps = []
    for turn in range(1, result.turns + 1):
        for i, car in enumerate(result.cars):
            if turn < len(car.states):
                events = tuple(e for e in car.events if e.turn == turn)
                steps.append(Step(i, turn, car.trajectory[turn - 1], car.trajectory[turn],
                                  events))
    return tuple(steps)
