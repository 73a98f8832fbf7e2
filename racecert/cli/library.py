"""`racecert library TRACKS... -o library.json`: trai / troi / tray per track for AI drivers."""

from __future__ import annotations

import argparse
import json
import sys

from racecert.analysis.library import build_library
from racecert.cli.analyze import run_analysis
from racecert.cli.output import check_output_file, write_text_atomic
from racecert.cli.tracks import load_grid_track


def register(p: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    p.add_argument("tracks", nargs="+", metavar="TRACK")
    p.add_argument("-o", "--out", metavar="FILE", help="write the library to FILE "
                                                       "(default: standard output)")
    p.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="state key of the analysis (default exact)")
    p.set_defaults(func=cmd_library)


def cmd_library(args: argparse.Namespace) -> int:
    out = check_output_file(args.out) if args.out else None  # fail early on a bad path
    tracks = [load_grid_track(path, "library") for path in args.tracks]  # and on a bad file
    analyses = [run_analysis(t, args.mode) for t in tracks]
    text = json.dumps(build_library(analyses), indent=2) + "\n"
    if out is not None:
        write_text_atomic(out, text)
        print(f"library of {len(analyses)} track(s) written to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
