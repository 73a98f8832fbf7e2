"""`racecert analyze` on a lattice track: the readable report, JSON and picture.

`racecert.cli.analyze` hands lattice tracks (``rules = "lattice"``) here. Options of
the grid pipeline that have no lattice meaning (`--mode editor`, `--all-slots`) are
one-line errors; `--best-start` searches from every start position at once. A search
the profile cannot finish within its limits (`LatticeLimitError`) ends with one line
and exit status 4 (`racecert.cli.main`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.analysis.lattice.pipeline import SKIPPED, LatticeAnalysis, analyze_lattice
from racecert.analysis.lattice.svg import render_lattice_svg
from racecert.cli.arguments import print_error
from racecert.cli.common import format_table, progress_bar
from racecert.cli.output import write_text_atomic
from racecert.model.budget import StateBudget
from racecert.model.lattice_track import LatticeTrack
from racecert.model.profiles import acceleration_set_name, profile_of


def refused_option(args: argparse.Namespace) -> str | None:
    """Why an option of the grid pipeline has no lattice meaning, or None."""
    if args.mode != "exact":
        return ("--mode editor: lattice and cell-path tracks have no opening phase; only "
                "the exact key applies")
    if args.all_slots:
        return ("--all-slots: a lattice or cell-path track lists its start positions; use "
                "--best-start")
    return None


def human_report(a: LatticeAnalysis) -> str:
    """A readable table of every figure of a lattice analysis."""
    t, b = a.track, a.bfs
    lo, hi = t.bounds_in_file()
    starts = ", ".join(str(t.to_file(p)) for p in a.considered)
    rows = [
        ("track", f"{t.name}  ({profile_of(t).name}, x {lo[0]}..{hi[0]}, y {lo[1]}..{hi[1]}, "
                  f"sha256 {t.sha256[:12]})"),
        ("accelerations", acceleration_set_name(t)),
        ("starts searched", f"{starts}" + ("  (best start)" if a.best_start else "")),
        ("reachable", "yes" if b.reachable else "no"),
    ]
    if b.reachable:
        n = b.optimal_count
        rows += [
            ("m* (minimum moves)", str(b.m_star)),
            ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
            ("distinct final states", str(b.final_states)),
        ]
        for s in a.starts:
            rows.append((f"  from {t.to_file(s.position)}",
                         f"{s.optimal_count:,} optimal trajectories, {s.final_states} final "
                         "states"))
        for name, ext in (("green", a.green), ("blue", a.blue)):
            if ext is not None:
                rows.append((name, f"{ext.trajectory.moves} moves, length "
                                   f"{ext.length.to_float():.6f} = {ext.length}, "
                                   f"{ext.ties:,} tied"))
    rows += [(f"{name} (skipped)", why) for name, why in SKIPPED.items()]
    rows += [
        ("states explored", f"{b.states_explored:,}"),
        ("seconds", f"{a.seconds:.3f}  ("
         + ", ".join(f"{k} {v:.2f}" for k, v in a.timings.items()) + ")"),
    ]
    return format_table(rows)


def run_lattice(track: LatticeTrack, best_start: bool,
                budget: StateBudget | None = None) -> LatticeAnalysis:
    """The lattice analysis with BFS progress on stderr (runs longer than ~2 s only),
    bounded by `budget` (`--max-states`)."""
    bar, update = progress_bar("BFS")
    try:
        return analyze_lattice(track, best_start, progress=update, budget=budget)
    finally:
        bar.close()


MOVES_SUFFIXES = (".csv", ".jsonl")


def moves_text(result: object, suffix: str) -> str:
    """The moves table (`racecert.cli.moves_table`) of `result` for a .csv or .jsonl path."""
    from racecert.cli.moves_table import named_trajectories, to_csv, to_jsonl

    named = named_trajectories(result)
    return to_csv(named) if suffix == ".csv" else to_jsonl(named)


def cmd_analyze_lattice(args: argparse.Namespace, track: LatticeTrack,
                        outputs: list[tuple[Path, str]],
                        budget: StateBudget | None = None) -> int:
    """`racecert analyze` on a lattice track (outputs already checked; within the limits
    of `racecert.cli.limits.run_limits`, `budget` its `--max-states`)."""
    refused = refused_option(args)
    if refused is not None:
        return print_error(refused)
    result = run_lattice(track, args.best_start, budget)  # LatticeLimitError: exit 4 (cli.main)
    data = result.to_json()
    for path, suffix in outputs:
        text = (moves_text(result, suffix) if suffix in MOVES_SUFFIXES
                else json.dumps(data, indent=2) + "\n" if suffix == ".json"
                else render_lattice_svg(result))
        write_text_atomic(path, text)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(result))
    return 0
