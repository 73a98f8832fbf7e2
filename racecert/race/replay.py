"""What both replay pictures share: the step-by-step timeline of a race, car colours,
the cell grid, and the standings as they stand after a given step.

A step is one car's turn; steps run in race order (turn 1 of every car still
racing, in car order, then turn 2, ...), so replaying them reproduces who stood
where when each move was made.
"""

from __future__ import annotations

from dataclasses import dataclass

from racecert.analysis.svg import CELL, TOP
from racecert.model.track import Track
from racecert.race.driver import Cell
from racecert.race.engine import Event, RaceResult
from racecert.race.standings import HEADER, standings_rows

# Car colours. The analysis draws its trajectories yellow, green and blue and its
# coverage red (racecert.analysis.svg.COLORS), and the studio shows a race over an
# analysis, so no car is any of those hues: purple, charcoal, magenta, brown, slate and
# wine, each dark enough for 3:1 contrast on asphalt and on shoulders
# (tests/race/test_replay_page.py checks both). Car i gets colour i mod 6.
CAR_COLORS = ("#7b1fa2", "#212121", "#c2188f", "#5d4037", "#546e7a", "#880e4f")
GRID_STROKE = ("#606060", 0.35)  # colour and opacity: visible on asphalt and off-track
LIVE_HEADER = ("pos", "car", "driver", "moves")
RACING = "racing"


def car_color(index: int) -> str:
    """The colour of car `index` in every replay (and the studio's race view)."""
    return CAR_COLORS[index % len(CAR_COLORS)]


@dataclass(frozen=True)
class Step:
    """Car `car`'s turn `turn` in its lap `lap` (0-based): where it stands afterwards,
    from where, and what happened."""

    car: int
    turn: int
    before: Cell
    after: Cell
    events: tuple[Event, ...]
    lap: int = 0

    @property
    def moved(self) -> bool:
        return not any(e.kind == "wait" for e in self.events)


def lap_of_turn(moves_per_lap: tuple[int, ...], turn: int) -> int:
    """The lap (0-based) a car's turn `turn` (1-based) belongs to: the number of laps it
    had completed before that turn. Turns after the last completed lap (a car that did
    not finish) belong to the lap it was driving."""
    done = 0
    for lap, moves in enumerate(moves_per_lap):
        done += moves
        if turn <= done:
            return lap
    return len(moves_per_lap)


def timeline(result: RaceResult) -> tuple[Step, ...]:
    """Every car-turn of the race in the order they were played."""
    steps = []
    for turn in range(1, result.turns + 1):
        for i, car in enumerate(result.cars):
            if turn < len(car.states):
                events = tuple(e for e in car.events if e.turn == turn)
                steps.append(Step(i, turn, car.trajectory[turn - 1], car.trajectory[turn],
                                  events, lap_of_turn(car.moves_per_lap, turn)))
    return tuple(steps)


def finish_steps(result: RaceResult, steps: tuple[Step, ...] | None = None
                 ) -> dict[int, int]:
    """car index -> the index in `timeline(result)` of the step on which it finished
    (its last lap's arriving move), for the cars that finished."""
    steps = timeline(result) if steps is None else steps
    out = {}
    for k, s in enumerate(steps):
        if result.cars[s.car].finish_turn == s.turn:
            out[s.car] = k
    return out


def standings_at(result: RaceResult, played: int) -> tuple[tuple[str, ...],
                                                           tuple[tuple[str, ...], ...]]:
    """The standings table (header, rows) once `played` steps of the race are shown.

    Before the last step only the cars that have finished by then are ranked, first to
    finish first, with their position and moves; every other car is listed after them,
    in car order, as racing (position "racing", no moves): whether and where it will
    finish is not known yet. After the last step it is the final table
    (`standings_rows`, with the cars that never finished as DNF). The HTML replay's
    script builds the same table in the browser (tests compare the two).
    """
    steps = timeline(result)
    if played >= len(steps):
        return HEADER, tuple(standings_rows(result))
    done = sorted((k, car) for car, k in finish_steps(result, steps).items() if k < played)
    rows = [(str(pos), str(car), result.cars[car].driver, str(result.cars[car].moves))
            for pos, (_, car) in enumerate(done, start=1)]
    finished = {car for _, car in done}
    rows += [(RACING, str(i), c.driver, "") for i, c in enumerate(result.cars)
             if i not in finished]
    return LIVE_HEADER, tuple(rows)


def grid_lines(track: Track) -> list[str]:
    """Light lines along every cell border of `track`, in the geometry of
    `racecert.analysis.svg.track_elements` (cells of `CELL` px, the grid's top at `TOP`),
    to draw over the track so that cells and moves can be counted."""
    w, h = track.width * CELL, track.height * CELL
    color, opacity = GRID_STROKE
    out = [f'<g id="grid" stroke="{color}" stroke-opacity="{opacity}" stroke-width="0.6">']
    out += [f'<line x1="{x * CELL}" y1="{TOP}" x2="{x * CELL}" y2="{TOP + h}"/>'
            for x in range(track.width + 1)]
    out += [f'<line x1="0" y1="{TOP + y * CELL}" x2="{w}" y2="{TOP + y * CELL}"/>'
            for y in range(track.height + 1)]
    out.append("</g>")
    return out
