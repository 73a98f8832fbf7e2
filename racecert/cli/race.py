"""`racecert race TRACK`: AI drivers race each other; standings, JSON and a replay.

Exit status: 0 when every car finished, 4 when the race ended at the move limit (the
JSON and the replay are still written), 2 for bad input (track, driver, options).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from racecert.model.parse import load_track
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


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    p = sub.add_parser("race", help="race AI drivers on a track (occupancy, laps, a seed) "
                                    "and draw a replay")
    p.add_argument("track")
    p.add_argument("--driver", action="append", metavar="SPEC",
                   help="one car's driver, in grid order (repeat for more cars): alonso, "
                        "amateur, MODULE:NAME or FILE.py:NAME (default: alonso and amateur, "
                        "or alonso alone where the grid holds one car)")
    p.add_argument("--laps", type=int, default=1, help="laps to drive (default 1)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the race's random generator (default 0)")
    p.add_argument("--move-limit", type=int, metavar="TURNS",
                   help="end the race after this many turns (default 250 per lap)")
    p.add_argument("--json", action="store_true", help="print the race's JSON")
    p.add_argument("-o", "--out", action="append", metavar="FILE",
                   help="write the replay: FILE.svg (animated SVG) or FILE.html "
                        "(self-contained page); repeatable")
    p.set_defaults(func=cmd_race)


# Output files: checked before any work, written atomically. (A shared helper for every
# subcommand is planned; this is the race's own small version of it.)


def check_output_path(path: str) -> None:
    """Fail early (RaceSetupError) when `path` cannot receive a replay."""
    p = Path(path)
    if p.suffix.lower() not in RENDERERS:
        raise RaceSetupError(f"-o {path}: the replay is .svg or .html, not "
                             f"{p.suffix or 'a file without extension'}")
    if p.is_dir():
        raise RaceSetupError(f"-o {path}: is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise RaceSetupError(f"-o {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise RaceSetupError(f"-o {path}: folder {parent} is not writable")


def write_atomic(path: str, text: str) -> None:
    """Write `text` to a temporary file in the target folder, then rename it over `path`;
    the temporary file is removed on any failure, Ctrl-C included."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                               dir=target.parent if str(target.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
            check_output_path(out)
        track = load_track(args.track)
        drivers = [make_driver(spec) for spec in args.driver or default_drivers(track)]
        result = run_race(track, drivers, laps=args.laps, seed=args.seed,
                          move_limit=args.move_limit)
    except (RaceSetupError, DriverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for out in args.out or ():
        write_atomic(out, RENDERERS[Path(out).suffix.lower()](result))
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
