"""`racecert race TRACK`: AI drivers race each other; standings, JSON and a replay.

Exit status: 0 when every car finished, 4 when the race ended at the move limit (the
JSON and the replay are still written), 2 for bad input (track, driver, options).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from racecert.cli.arguments import integer
from racecert.cli.output import check_output_file, write_text_atomic
from racecert.cli.tracks import load_grid_track
from racecert.model.track import Track
from racecert.race.engine import run_race
from racecert.race.errors import DriverError, RaceSetupError
from racecert.race.grid import grid_slots
from racecert.race.registry import make_driver
from racecert.race.replay_html import render_replay_html
from racecert.race.replay_svg import render_replay_svg
from racecert.race.standings import standings_text

EXIT_OK, EXIT_BAD_INPUT, EXIT_LIMIT = 0, 2, 4
RENDERERS = {".svg": render_replay_svg, ".html": render_replay_html}
DEFAULT_DRIVERS = ("alonso", "amateur")  # alonso alone where the grid holds one car
_INT_LIST = re.compile(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]")


def register(p: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    p.add_argument("track")
    p.add_argument("--driver", action="append", metavar="DRIVER",
                   help="one car's driver, in grid order (repeat for more cars): alonso, "
                        "amateur, MODULE:NAME or FILE.py:NAME (default: alonso and amateur, "
                        "or alonso alone where the grid holds one car)")
    p.add_argument("--laps", type=integer(1, 1000, "a number of laps"), default=1,
                   help="laps to drive, 1 to 1000 (default 1)")
    p.add_argument("--seed", type=integer(0, 2**64 - 1, "a seed"), default=0,
                   help="seed of the race's random generator (default 0)")
    p.add_argument("--move-limit", type=integer(1, 10_000_000, "a number of turns"),
                   metavar="TURNS",
                   help="end the race after this many turns (default 250 per lap)")
    p.add_argument("--json", action="store_true", help="print the race's JSON")
    p.add_argument("-o", "--out", action="append", metavar="FILE",
                   help="write the replay: FILE.svg (animated SVG) or FILE.html "
                        "(self-contained page); repeatable")
    p.set_defaults(func=cmd_race)


def check_replay_path(path: str) -> None:
    """Fail early when `path` cannot receive a replay: its suffix names the format, and
    the shared output checks (folder exists and is writable, not a folder) apply."""
    p = Path(path)
    if p.suffix.lower() not in RENDERERS:
        raise RaceSetupError(f"-o {path}: the replay is .svg or .html, not "
                             f"{p.suffix or 'a file without extension'}")
    check_output_file(path)


def format_race_json(data: dict) -> str:
    """The race's JSON text: indented, every list of integers (a point, the order, the
    moves per lap) on one line, a final newline."""
    text = json.dumps(data, indent=2)
    return _INT_LIST.sub(lambda m: "[" + ", ".join(re.split(r",\s*", m.group(1))) + "]",
                         text) + "\n"


def default_drivers(track: Track) -> tuple[str, ...]:
    """`DEFAULT_DRIVERS`, or alonso alone when the track's grid holds a single car."""
    try:
        grid_slots(track, len(DEFAULT_DRIVERS))
    except RaceSetupError:
        return DEFAULT_DRIVERS[:1]
    return DEFAULT_DRIVERS


def cmd_race(args: argparse.Namespace) -> int:
    try:
        for out in args.out or ():
            check_replay_path(out)
        track = load_grid_track(args.track, "race")
        drivers = [make_driver(spec) for spec in args.driver or default_drivers(track)]
        result = run_race(track, drivers, laps=args.laps, seed=args.seed,
                          move_limit=args.move_limit)
    except (RaceSetupError, DriverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for out in args.out or ():
        write_text_atomic(out, RENDERERS[Path(out).suffix.lower()](result))
        print(f"replay written to {out}", file=sys.stderr)
    if args.json:
        sys.stdout.write(format_race_json(result.to_json()))
    else:
        print(standings_text(result))
    if result.status == "move_limit":
        missing = [str(i) for i, c in enumerate(result.cars) if not c.finished]
        print(f"race ended at the move limit ({result.move_limit} turns): car(s) "
              f"{', '.join(missing)} did not finish", file=sys.stderr)
        return EXIT_LIMIT
    return EXIT_OK
