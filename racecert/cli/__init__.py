"""The command line: `racecert validate | analyze | ...` (also `python -m racecert`).

Each subcommand lives in its own module with a `register(parser)` function
(its arguments and handler), listed in `SUBCOMMANDS` with its help line.
Conventions (README, "Exit status"): bad input or an output path that cannot be
written ends with one line on stderr and exit status 2, checked before any work
where it can be; output files are written atomically (`racecert.cli.output`);
progress appears on stderr only as a terminal bar or plain lines
(`racecert.cli.progress`); a resource limit reached (`--max-states`,
`--max-memory`, `--timeout`: `racecert.cli.limits`; or the machine's memory
running out) ends with one line and exit status 4; Ctrl-C ends with one line and
exit status 130; never a traceback.

Start-up stays light (issue #18): the subcommands' modules import what their work
needs (the analysis, the solvers, Dask, Starlette...), so `main` imports only the
module of the subcommand it runs; the others appear in the parser by name and help
line alone (`SUBCOMMANDS`). `racecert --version` and `racecert --help` import none.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from racecert.cli.arguments import Parser, print_error
from racecert.cli.limits import limit_error
from racecert.cli.output import OutputError
from racecert.collector import collect_less
from racecert.model.budget import LimitReached
from racecert.model.errors import LatticeLimitError, TrackError

EXIT_INTERRUPTED = 130
EXIT_RESOURCE_LIMIT = 4

# Subcommand -> (its module in racecert.cli, which has `register(parser)`; its help line).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tracks": ("list_tracks", "list the bundled tracks (every TRACK argument also takes "
                              "their names, e.g. `racecert analyze ocho`)"),
    "validate": ("validate", "parse and validate one or more track files"),
    "analyze": ("analyze", "the full analysis: yellow, m*, counts, continuity, green/blue, "
                           "coverage, score"),
    "certify": ("certify", "cross-check every figure with independent methods"),
    "library": ("library", "build the trajectory library (trai, troi, tray) of one or more "
                           "tracks"),
    "crosscheck": ("crosscheck", "compare another engine's RESULT.json with racecert"),
    "explore": ("explore", "search the formal limits of the method"),
    "race": ("race", "race AI drivers on a track (occupancy, laps, a seed) and draw a replay"),
    "batch": ("batch", "analyse (or certify) many tracks as Dask tasks; results in a DuckDB "
                       "database, resumable"),
    "generate": ("generate", "write random valid tracks (stages and circuits, shoulders, "
                             "ramps, opening rules), reproducible by seed"),
    "studio": ("studio", "a local web page to draw a track, analyse, certify and save it"),
    "import": ("importer", "convert a track of another format (bekos: the XML of Bekos et "
                           "al.'s RaceTrack; ascii: a #/./S/F map) to a track file"),
    "export": ("exporter", "write a track file in another format (ascii: a #/./S/F map)"),
}

# Other spellings a subcommand answers to -> its name in `SUBCOMMANDS`.
ALIASES: dict[str, str] = {"analyse": "analyze"}


def racecert_version() -> str:
    """The installed distribution's version ("unknown" when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("racecert")
    except PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """`--version`: print ``racecert VERSION`` on stdout and exit 0, as argparse's own
    action does, but read the version (importlib.metadata, about a third of a bare
    start-up) only when the option is given, not in every command."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS,
                 help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"racecert {racecert_version()}")
        parser.exit()


def build_parser(only: str | None = None) -> Parser:
    """The argument parser: every subcommand's arguments, or with `only` just that one's.

    With `only`, the other subcommands are still choices with their help line (so
    `--help` and an unknown name read the same) but without arguments, and their
    modules are not imported.
    """
    p = Parser(prog="racecert", description=(
        "Compute and certify the optimal trajectories of vector-race tracks."))
    p.add_argument("--version", action=VersionAction)
    sub = p.add_subparsers(dest="command", required=True)
    for name, (module, help_line) in SUBCOMMANDS.items():
        aliases = [alias for alias, target in ALIASES.items() if target == name]
        parser = sub.add_parser(name, help=help_line, aliases=aliases)
        if only is None or name == only:
            import_module(f"racecert.cli.{module}").register(parser)
    return p


def chosen_command(argv: Sequence[str]) -> str:
    """The subcommand that `argv` names: its first word not starting with ``-`` (the
    top-level options, --help and --version, take no value), or "" when there is none.
    An alias (`ALIASES`) gives the subcommand it stands for."""
    word = next((a for a in argv if not a.startswith("-")), "")
    return ALIASES.get(word, word)


def did_you_mean(word: str) -> str:
    """For a word that names no subcommand, the hint "did you mean 'NAME'?" with the
    closest names (difflib), or "" when it names one or none is close."""
    from difflib import get_close_matches

    names = [*SUBCOMMANDS, *ALIASES]
    if not word or word in names:
        return ""
    close = dict.fromkeys(ALIASES.get(c, c) for c in get_close_matches(word, names, cutoff=0.6))
    return "did you mean " + " or ".join(f"'{c}'" for c in list(close)[:2]) + "?" if close else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `racecert` command."""
    collect_less()  # racecert.collector: fewer full collections of a growing heap
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        command = chosen_command(argv)
        parser = build_parser(only=command)
        parser.hint = did_you_mean(command)
        args = parser.parse_args(argv)
        return int(args.func(args))
    except (TrackError, OutputError) as exc:
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
