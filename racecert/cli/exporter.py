"""`racecert export ascii TRACK.toml -o MAP.txt`: a track file in another format.

The ASCII map (`#` `.` `S` `F`, `racecert.model.ascii_grid`) of a one-layer grid track;
a track the format cannot represent (an elevated layer, shoulders, ramps, an opening
rule, car cells other than the cells behind the start line, lines the import rule would
read back otherwise) is one line on stderr and exit status 2. The map is checked to
import back as the same track before it is written (atomically). Without -o the map
goes to stdout; with -o one line on stderr says what was written.
"""

from __future__ import annotations

import argparse

from racecert.cli.output import check_output_file, emit_text
from racecert.cli.tracks import load_named_track
from racecert.model.ascii_grid import to_ascii
from racecert.model.errors import TrackError
from racecert.model.profiles import profile_of
from racecert.model.track import Track

FORMATS = ("ascii",)


def register(e: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    e.add_argument("format", choices=FORMATS, help="the output format")
    e.add_argument("track", metavar="TRACK.toml",
                   help="the track file, or a bundled track's name (`racecert tracks`)")
    e.add_argument("-o", "--out", metavar="MAP.txt",
                   help="write the map here (atomically); default: stdout")
    e.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    out = check_output_file(args.out) if args.out else None
    track = load_named_track(args.track)
    if not isinstance(track, Track):
        raise TrackError(args.track, "", "cannot be written as an ASCII map: it is a track "
                         f"of the {profile_of(track).title} (the format is a grid track's "
                         "cells and lines)")
    text = to_ascii(track)
    emit_text(text, out, f"the {args.format} map of {args.track}")
    return 0
