"""`racecert analyze TRACK`: the full analysis as a table, JSON and an SVG picture."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.analysis import Analysis, analyze
from racecert.analysis.score import WEIGHTS
from racecert.analysis.slots import SlotAnalysis, analyze_slots
from racecert.analysis.svg import render_svg
from racecert.cli.arguments import print_error
from racecert.cli.common import format_table, progress_bar, yellow_progress_bar
from racecert.cli.lattice_analyze import MOVES_SUFFIXES, cmd_analyze_lattice, moves_text
from racecert.cli.limits import add_limit_arguments, run_limits
from racecert.cli.output import OutputError, check_output_file, write_text_atomic
from racecert.cli.progress import progress
from racecert.cli.tracks import load_named_track
from racecert.model.budget import StateBudget
from racecert.model.profiles import profile_of
from racecert.model.track import Track

STEPS = ("yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score")


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


def human_report(a: Analysis) -> str:
    """A readable table of every figure of the analysis (read from the typed result)."""
    t = a.track
    declared = "" if t.kind in (None, a.kind) else f"  (declared {t.kind}!)"
    rows = [
        ("track", f"{t.name}  ({t.width}x{t.height}, sha256 {t.sha256[:12]})"),
        ("mode", a.mode),
        ("kind (computed)", f"{a.kind}{declared}"),
        ("reachable", "yes" if a.bfs.reachable else "no"),
    ]
    if a.bfs.reachable:
        rows += _search_rows(a) + _opening_rows(a) + _continuity_rows(a)
        rows += _trajectory_rows(a) + _coverage_rows(a) + _score_rows(a)
    rows += [
        ("states explored", f"{a.bfs.states_explored:,}"),
        ("seconds", f"{a.seconds:.3f}  ("
         + ", ".join(f"{k} {v:.2f}" for k, v in a.timings.items()) + ")"),
    ]
    return format_table(rows)


Rows = list[tuple[str, str]]


def _search_rows(a: Analysis) -> Rows:
    b, n = a.bound, a.bfs.optimal_count
    return [
        ("m* (minimum moves)", str(a.bfs.m_star)),
        ("bound", f"yellow {b.yellow_moves} moves, pruner {b.pruner}, "
                  + ("protection rerun (bounded search found nothing)"
                     if b.protection_rerun else "bounded search sufficed")),
        ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
        ("distinct final states", str(a.bfs.final_states)),
    ]


def _opening_rows(a: Analysis) -> Rows:
    """A row when the opening rule is still active at the optimal arrivals (m* < K)."""
    after = a.opening_moves_after_arrival
    if not after:
        return []
    m = a.bfs.m_star
    assert m is not None
    moves = f"move {m + 1}" if after == 1 else f"moves {m + 1}..{m + after}"
    return [("opening at arrival", f"still active (K = {m + after} > m* = {m}): {moves}, the "
                                   "first after the arrival, still obey it")]


def _continuity_rows(a: Analysis) -> Rows:
    c = a.continuity
    if c is None or not c.applicable:
        return [("continuable", "not applicable (a stage: no second lap)")]
    return [
        ("continuable (race rule)", f"{c.continuable_count:,}  "
                                    f"({float(100 * c.percent):.2f} %)"),
        ("continuable (editor)", f"{c.continuable_count_editor:,}"),
        ("m_cont", _m_cont_cell(a)),
    ]


def _m_cont_cell(a: Analysis) -> str:
    """m_cont, or why there is none where that is not plain."""
    c = a.continuity
    assert c is not None
    if c.m_cont is not None:
        return str(c.m_cont)
    if c.m_cont_null_reason == "editor-key-finds-none":
        return (f"none found by the editor key (exact key: {c.m_cont_exact}): each "
                "continuable first lap passes a state it reached earlier under the opening rule")
    return "-"


def _trajectory_rows(a: Analysis) -> Rows:
    rows: Rows = []
    y = a.yellow
    if y.reachable and y.length is not None:
        rows.append(("yellow", f"{y.moves} moves, length {y.length.to_float():.6f} = {y.length}"))
    r = a.representatives
    if r is not None:
        for name, ext in (("green", r.green), ("blue", r.blue)):
            rows.append((name, f"{ext.trajectory.moves} moves, length {ext.length.to_float():.6f}"
                               f" = {ext.length}, {ext.ties:,} tied"))
    return rows


def _coverage_rows(a: Analysis) -> Rows:
    c = a.coverage
    if c is None:
        return []
    return [("red coverage", f"{len(c.cells)}/{c.drivable} cells = "
                             f"{float(100 * c.fraction):.2f} %")]


def _score_rows(a: Analysis) -> Rows:
    s = a.score
    if s is None:
        return []
    rows = [("score", f"{s.total:.2f}  ({s.band})"
             + (f", capped from {s.raw:.2f}" if s.capped else "")
             + f", corrector {float(s.corrector):.4f}")]
    for name, weight in WEIGHTS.items():
        if name == "continuity" and not s.circuit:
            rows.append((f"  {name}", "n/a (stage)"))
            continue
        extra = ""
        if name == "diversity":
            extra = (f"  (euclid_sep {s.euclid.value:.4f}, "
                     f"spatial_sep {float(s.spatial_sep):.4f})")
        rows.append((f"  {name}", f"{float(s.components[name]):.4f} x weight {weight}{extra}"))
    return rows


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


def run_analysis(track: Track, mode: str, budget: StateBudget | None = None) -> Analysis:
    """`analyze` with progress on stderr (only for runs longer than ~2 s; see progress.py),
    every search bounded by `budget`."""
    steps = progress(f"analyze {track.name}", " step", total=len(STEPS))
    yellow_bar, yellow_update = yellow_progress_bar()
    bar, update = progress_bar("BFS")

    def step(name: str) -> None:
        steps.set_postfix_str(name, refresh=False)
        if steps.n < len(STEPS):
            steps.update(1)

    try:
        return analyze(track, mode, progress=update, step=step, budget=budget,
                       yellow_progress=yellow_update)
    finally:
        bar.close()
        yellow_bar.close()
        steps.close()


OUTPUT_KINDS = {".json": "the JSON report", ".svg": "the picture",
                ".csv": "the moves as CSV", ".jsonl": "the moves as JSON Lines"}


def output_paths(values: list[str]) -> list[tuple[Path, str]]:
    """(path, suffix) of each -o/--out, checked before any work (one-line OutputError)."""
    out: list[tuple[Path, str]] = []
    for value in values:
        path = check_output_file(value)
        suffix = path.suffix.lower()
        if suffix not in OUTPUT_KINDS:
            kinds = ", ".join(f"{k} for {v}" for k, v in OUTPUT_KINDS.items())
            raise OutputError(f"-o/--out {' '.join(value.split())}: unknown suffix "
                              f"{suffix or '(none)'!r}; use {kinds}")
        if any(path.resolve() == p.resolve() for p, _ in out):
            raise OutputError(f"-o/--out {' '.join(value.split())}: given twice")
        out.append((path, suffix))
    return out


def cmd_analyze(args: argparse.Namespace) -> int:
    outputs = output_paths(args.out)
    with run_limits(args) as limits:  # before the track is read: --timeout counts it
        track = load_named_track(args.track)
        if profile_of(track).multi_start:
            return cmd_analyze_lattice(args, track, outputs, limits.budget)
        if args.best_start:
            return print_error("--best-start: a grid track has one car; use --all-slots")

        def run(t: Track, mode: str) -> Analysis:
            return run_analysis(t, mode, limits.budget)

        result = run(track, args.mode)
        data = result.to_json()
        slots = None
        if args.all_slots:
            slots = analyze_slots(track, args.mode, configured=result, run=run)
            data["slots"] = [s.to_json() for s in slots]
        for path, suffix in outputs:
            text = (moves_text(result, suffix) if suffix in MOVES_SUFFIXES
                    else json.dumps(data, indent=2) + "\n" if suffix == ".json"
                    else render_svg(result))
            write_text_atomic(path, text)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(result))
        if slots is not None:
            print()
            print(slots_report(slots))
    return 0
