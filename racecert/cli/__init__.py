"""The command line: `racecert validate | analyze | ...` (also `python -m racecert`).

Each subcommand lives in its own module with a `register(subparsers)`
function listed in `SUBCOMMANDS`. Conventions (README, "Exit status"):
bad input or an output path that cannot be written ends with one line on
stderr and exit status 2, checked before any work where it can be; output
files are written atomically (`racecert.cli.output`); progress appears on
stderr only as a terminal bar or plain lines (`racecert.cli.progress`); a
resource limit reached (`--max-states`, `--max-memory`, `--timeout`:
`racecert.cli.limits`; or the machine's memory running out) ends with one line
and exit status 4; Ctrl-C ends with one line and exit status 130; never a
traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from racecert.batch.runner import BatchError
from racecert.batch.store import StoreError
from racecert.cli import (
    analyze,
    batch,
    certify,
    crosscheck,
    explore,
    generate,
    importer,
    library,
    race,
    studio,
    validate,
)
from racecert.cli.arguments import Parser, print_error
from racecert.cli.limits import limit_error
from racecert.cli.output import OutputError
from racecert.model.budget import LimitReached
from racecert.model.errors import TrackError
from racecert.model.lattice_rules import LatticeLimitError

EXIT_INTERRUPTED = 130
EXIT_RESOURCE_LIMIT = 4

# One entry per subcommand module (each has `register(subparsers)`).
SUBCOMMANDS = [validate, analyze, certify, library, crosscheck, explore, race, batch, generate,
               studio, importer]


def racecert_version() -> str:
    """The installed distribution's version ("unknown" when run from a bare source tree)."""
    try:
        return version("racecert")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> Parser:
    """The argument parser with every registered subcommand."""
    p = Parser(prog="racecert", description=(
        "Compute and certify the optimal trajectories of vector-race tracks."))
    p.add_argument("--version", action="version", version=f"racecert {racecert_version()}")
    sub = p.add_subparsers(dest="command", required=True)
    for module in SUBCOMMANDS:
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `racecert` command."""
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except (TrackError, OutputError, BatchError, StoreError) as exc:
        return print_error(exc)
    except LatticeLimitError as exc:  # a lattice search past what its profile encodes
        print_error(exc)
        return EXIT_RESOURCE_LIMIT
    except LimitReached as exc:
        return limit_error(str(exc))
    except MemoryError:  # outside `run_limits` (a subcommand without --max-memory)
        return limit_error("memory limit reached: the machine's memory ran out")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `racecert analyze T | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
