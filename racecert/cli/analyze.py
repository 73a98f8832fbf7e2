"""`racecert analyze TRACK`: the full analysis as a table, JSON and an SVG picture.

One code path for every rule profile: the track's `AnalysisProfile`
(`racecert.analysis.profiles`) runs its pipeline, refuses the options it has no meaning
for (one line, exit status 2), draws its picture and gives its report rows and moves;
this module only formats them. `--max-states`, `--max-memory` and `--timeout` bound
every profile alike (`racecert.cli.limits`); a search past them is exit status 4.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.analysis.base import AnalysisProfile, BaseAnalysis
from racecert.analysis.profiles import analysis_profile
from racecert.analysis.slots import SlotAnalysis, analyze_slots
from racecert.cli.arguments import print_error
from racecert.cli.common import format_table, progress_bar, yellow_progress_bar
from racecert.cli.limits import add_limit_arguments, run_limits
from racecert.cli.moves_table import moves_text
from racecert.cli.output import OutputError, check_output_suffix, write_text_atomic
from racecert.cli.progress import progress
from racecert.cli.tracks import load_named_track
from racecert.model.budget import StateBudget
from racecert.model.profiles import AnyTrack


def register(a: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    a.add_argument("track")
    a.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="state key: 'exact' includes the opening phase (default), "
                        "'editor' leaves it out as the editor does")
    a.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    a.add_argument("-o", "--out", metavar="PATH", action="append", default=[],
                   help="also write PATH, chosen by its suffix: .json the JSON report, "
                        ".svg the picture of the track and trajectories, .csv or .jsonl one "
                        "row per move of yellow, green and blue (repeatable)")
    a.add_argument("--best-start", action="store_true",
                   help="lattice tracks: search from every start position at once (the "
                        "least m* and which starts give it)")
    a.add_argument("--all-slots", action="store_true",
                   help="also analyse from every grid slot of [car].slots (same direction "
                        "and layer): a row per slot, JSON key 'slots'")
    add_limit_arguments(a)
    a.set_defaults(func=cmd_analyze)


def human_report(a: BaseAnalysis) -> str:
    """A readable table of every figure of the analysis: its profile's report rows
    (`AnalysisProfile.report_rows`), aligned."""
    return format_table(analysis_profile(a.track).report_rows(a))


def slots_report(slots: tuple[SlotAnalysis, ...]) -> str:
    """A table with one row per grid slot: position, m*, optimal trajectories."""
    head = ("slot", "position", "m*", "optimal trajectories")
    rows = [head]
    for s in slots:
        b = s.analysis.bfs
        rows.append(("car" if s.index == 0 else str(s.index), f"({s.position[0]}, "
                     f"{s.position[1]})", str(b.m_star) if b.reachable else "unreachable",
                     f"{b.optimal_count:,}"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in rows]
    return "\n".join(["grid slots (same direction and layer; car = the configured car)",
                      *lines])


def run_analysis(track: AnyTrack, mode: str = "exact", budget: StateBudget | None = None,
                 best_start: bool = False) -> BaseAnalysis:
    """The analysis of `track`'s profile (`racecert.analysis.profiles`) with progress on
    stderr (only for runs longer than ~2 s; see progress.py), every search bounded by
    `budget`."""
    profile = analysis_profile(track)
    steps = progress(f"analyze {track.name}", " step", total=len(profile.steps))
    yellow_bar, yellow_update = yellow_progress_bar()
    bar, update = progress_bar("BFS")

    def step(name: str) -> None:
        steps.set_postfix_str(name, refresh=False)
        if steps.n < len(profile.steps):
            steps.update(1)

    try:
        return profile.analyze(track, mode=mode, best_start=best_start,  # type: ignore[arg-type]
                               progress=update, step=step, budget=budget,
                               yellow_progress=yellow_update)
    finally:
        bar.close()
        yellow_bar.close()
        steps.close()


MOVES_SUFFIXES = (".csv", ".jsonl")
OUTPUT_KINDS = {".json": "the JSON report", ".svg": "the picture",
                ".csv": "the moves as CSV", ".jsonl": "the moves as JSON Lines"}


def output_paths(values: list[str]) -> list[tuple[Path, str]]:
    """(path, suffix) of each -o/--out, checked before any work (one-line OutputError)."""
    out: list[tuple[Path, str]] = []
    for value in values:
        path, suffix = check_output_suffix(value, OUTPUT_KINDS)
        if any(path.resolve() == p.resolve() for p, _ in out):
            raise OutputError(f"-o/--out {' '.join(value.split())}: given twice")
        out.append((path, suffix))
    return out


def refused_option(profile: AnalysisProfile, args: argparse.Namespace) -> str | None:
    """The one-line error for an option the track's profile refuses (`--mode editor`,
    `--all-slots` on start-list tracks, `--best-start` on grid tracks), or None."""
    refused = profile.refusal(mode=args.mode, best_start=args.best_start,
                              all_slots=args.all_slots)
    if refused is None:
        return None
    option, why = refused
    flag = f"--mode {args.mode}" if option == "mode" else "--" + option.replace("_", "-")
    return f"{flag}: {why}"


def output_text(profile: AnalysisProfile, result: BaseAnalysis, data: dict,
                suffix: str) -> str:
    """What an -o/--out path with `suffix` receives: the moves table, the JSON report
    `data` or the picture."""
    if suffix in MOVES_SUFFIXES:
        return moves_text(profile.trajectories(result), suffix)
    if suffix == ".json":
        return json.dumps(data, indent=2) + "\n"
    return profile.render_svg(result)


def cmd_analyze(args: argparse.Namespace) -> int:
    """`racecert analyze`: one code path for every profile, its parts from the registry
    (a search past its limits: exit status 4, `racecert.cli.main`)."""
    outputs = output_paths(args.out)
    with run_limits(args) as limits:  # before the track is read: --timeout counts it
        track = load_named_track(args.track)
        profile = analysis_profile(track)
        refused = refused_option(profile, args)
        if refused is not None:
            return print_error(refused)

        def run(t: AnyTrack, mode: str) -> BaseAnalysis:
            return run_analysis(t, mode, limits.budget, args.best_start)

        result = run(track, args.mode)
        data = result.to_json()
        slots = None
        if args.all_slots:  # grid slots: refused by the profiles that have none
            slots = analyze_slots(track, args.mode, configured=result,  # type: ignore[arg-type]
                                  run=run)
            data["slots"] = [s.to_json() for s in slots]
        for path, suffix in outputs:
            write_text_atomic(path, output_text(profile, result, data, suffix))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(result))
        if slots is not None:
            print()
            print(slots_report(slots))
    return 0
