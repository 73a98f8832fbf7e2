"""Races in the studio, when the race package is installed: built-in drivers only.

The page chooses among the built-in drivers by name (never code of its own: the
server runs nothing but the engine's calls), the laps and the seed; the worker
runs `racecert.race.run_race` and sends the page a replay: each car's colour
and trajectory, every car-turn of the race in the order it was played
(`racecert.race.replay.timeline`), who finished on which step, and the final
standings rows, so that the page reveals the standings as cars finish, as the
replay page of `racecert race -o race.html` does (the same `replay_data`). The
colours are the replay's (`racecert.race.replay.CAR_COLORS`, one home), which
avoid every colour of the analysis the page may show under the race.

The race package is imported only here and only when a race is asked for, so
the studio works the same without it (the page then hides its Race panel).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from racecert.model.track import Track

MAX_CARS = 8
MAX_LAPS = 100
MAX_SEED = 2**64 - 1


class RaceOptionError(ValueError):
    """Race options the page sent that the studio refuses; the message is one line."""


def race_available() -> bool:
    """Whether the race package (`racecert.race`) is installed."""
    return importlib.util.find_spec("racecert.race") is not None


def builtin_drivers() -> list[str]:
    """The driver names the page may choose (empty without the race package)."""
    if not race_available():
        return []
    from racecert.race.registry import BUILTIN

    return sorted(BUILTIN)


def car_palette() -> list[str]:
    """The cars' colours, car i taking colour i mod len (empty without the race package)."""
    if not race_available():
        return []
    from racecert.race.replay import CAR_COLORS

    return list(CAR_COLORS)


def race_options(body: dict[str, Any]) -> dict[str, Any]:
    """The checked race options of a request: drivers (built-in names), laps, seed."""
    names = builtin_drivers()
    drivers = body.get("drivers")
    if not names:
        raise RaceOptionError("races need the racecert.race package, which is not installed")
    if not isinstance(drivers, list) or not 1 <= len(drivers) <= MAX_CARS \
            or any(d not in names for d in drivers):
        raise RaceOptionError(f"drivers: a list of 1 to {MAX_CARS} of {', '.join(names)}")
    laps, seed = body.get("laps", 1), body.get("seed", 0)
    for key, value, hi in (("laps", laps, MAX_LAPS), ("seed", seed, MAX_SEED)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= hi:
            raise RaceOptionError(f"{key}: an integer from {1 if key == 'laps' else 0} to {hi}")
    if laps < 1:
        raise RaceOptionError(f"laps: an integer from 1 to {MAX_LAPS}")
    return {"drivers": drivers, "laps": laps, "seed": seed}


def race_payload(track: Track, options: dict[str, Any]) -> dict[str, Any]:
    """Run the race; the replay the page plays (see the module docstring)."""
    from racecert.race.engine import run_race
    from racecert.race.registry import BUILTIN
    from racecert.race.replay import car_color
    from racecert.race.replay_html import replay_data

    result = run_race(track, [BUILTIN[d]() for d in options["drivers"]],
                      laps=options["laps"], seed=options["seed"])
    data = replay_data(result)
    return {
        "race": result.to_json(),
        "colors": [car_color(i) for i in range(len(result.cars))],
        "steps": data["steps"],
        "finishers": data["finishers"],
        "standings": data["final"],
    }


def race_error_types() -> tuple[type[Exception], ...]:
    """The race package's one-line errors (bad setup, a driver that raised)."""
    if not race_available():
        return ()
    from racecert.race.errors import DriverError, RaceSetupError

    return (RaceSetupError, DriverError)
