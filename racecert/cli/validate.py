"""`racecert validate TRACK...`: parse and validate track files.

One line per file: ``PATH: ok — ...`` on stdout for a good file, the one-line
error on stderr for a bad one. Exit status 2 when any file is bad, else 0.
"""

from __future__ import annotations

import argparse

from racecert.cli.arguments import EXIT_BAD_INPUT, print_error
from racecert.cli.tracks import load_named_track
from racecert.model.errors import TrackError
from racecert.model.profiles import GRID, profile_of


def register(v: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    v.add_argument("tracks", nargs="+", metavar="TRACK")
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    bad = 0
    for path in args.tracks:
        try:
            t = load_named_track(path)
        except TrackError as exc:
            bad += 1
            print_error(exc)
            continue
        print(f"{path}: ok — {t.name!r}, {t.width}x{t.height}, {t.layers} layer(s)"
              f"{', opening rule' if t.opening else ''}"
              f"{'' if profile_of(t) is GRID else ', ' + profile_of(t).title}")
    return EXIT_BAD_INPUT if bad else 0
