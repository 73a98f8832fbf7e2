"""Races: AI drivers on one track, moving in turn, with occupancy (docs/races.md).

`run_race(track, drivers, laps=, seed=, move_limit=)` plays a race and returns a
`RaceResult` (JSON via `to_json()`); `Alonso` and `Amateur` are the built-in drivers
and any callable with the `racecert.race.driver` interface plugs in next to them.
`render_replay_svg` / `render_replay_html` draw a result as an animated SVG or a
self-contained HTML page.

This package sits on top of the analysis and the oracle; nothing below it imports it.
"""

from racecert.race.alonso import Alonso
from racecert.race.amateur import Amateur
from racecert.race.driver import CarView, Decision, Note, Option
from racecert.race.engine import CarResult, Event, RaceResult, run_race
from racecert.race.errors import DriverError, RaceSetupError

__all__ = ["Alonso", "Amateur", "CarResult", "CarView", "Decision", "DriverError", "Event",
           "Note", "Option", "RaceResult", "RaceSetupError", "run_race"]
