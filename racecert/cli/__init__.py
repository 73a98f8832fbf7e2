"""The command line: `racecert validate | analyze | ...`.

Each subcommand lives in its own module with a `register(subparsers)`
function listed in `SUBCOMMANDS`. Bad input ends with one line on stderr
naming the file, the place and the problem, and exit status 2; never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from racecert.cli import analyze, certify, crosscheck, explore, library, race, validate
from racecert.model.errors import TrackError

EXIT_BAD_INPUT = 2

# One entry per subcommand module (each has `register(subparsers)`).
SUBCOMMANDS = [validate, analyze, certify, library, crosscheck, explore, race]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand."""
    p = argparse.ArgumentParser(prog="racecert", description=(
        "Compute and certify the optimal trajectories of vector-race tracks."))
    sub = p.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `racecert` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except TrackError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `racecert analyze T | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
