"""`racecert validate TRACK`: parse and validate a track file."""

from __future__ import annotations

import argparse

from racecert.model.parse import load_track


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    v = sub.add_parser("validate", help="parse and validate a track file")
    v.add_argument("track")
    v.set_defaults(func=cmd_validate)


def cmd_validate(args: argparse.Namespace) -> int:
    t = load_track(args.track)
    print(f"{args.track}: ok — {t.name!r}, {t.width}x{t.height}, {t.layers} layer(s)"
          f"{', opening rule' if t.opening else ''}")
    return 0
