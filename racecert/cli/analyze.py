"""`racecert analyze TRACK`: the full analysis as a table, JSON and an SVG picture."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.analysis import Analysis, analyze
from racecert.analysis.slots import SlotAnalysis, analyze_slots
from racecert.analysis.svg import render_svg
from racecert.cli.common import format_table, progress_bar
from racecert.cli.output import OutputError, check_output_file, write_text_atomic
from racecert.cli.progress import progress
from racecert.model.parse import load_track
from racecert.model.track import Track

STEPS = ("yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    a = sub.add_parser("analyze", help="the full analysis: yellow, m*, counts, continuity, "
                                       "green/blue, coverage, score")
    a.add_argument("track")
    a.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="state key: 'exact' includes the opening phase (default), "
                        "'editor' leaves it out as the editor does")
    a.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    a.add_argument("-o", "--out", metavar="PATH", action="append", default=[],
                   help="also write PATH, chosen by its suffix: .json the JSON report, "
                        ".svg the picture of the track and trajectories (repeatable)")
    a.add_argument("--all-slots", action="store_true",
                   help="also analyse from every grid slot of [car].slots (same direction "
                        "and layer): a row per slot, JSON key 'slots'")
    a.set_defaults(func=cmd_analyze)


def human_report(a: Analysis) -> str:
    """A readable table of every figure of the analysis."""
    j = a.to_json()
    rows = [
        ("track", f"{j['track']}  ({a.track.width}x{a.track.height}, sha256 {j['sha256'][:12]})"),
        ("mode", j["mode"]),
        ("kind (computed)", f"{j['kind']}" + ("" if j["kind_matches_declared"] else
                                              f"  (declared {j['kind_declared']}!)")),
        ("reachable", "yes" if j["reachable"] else "no"),
    ]
    if j["reachable"]:
        n = int(j["optimal_count"])
        b = j["bound"]
        rows += [
            ("m* (minimum moves)", str(j["m_star"])),
            ("bound", f"yellow {b['yellow_moves']} moves, pruner {b['pruner']}, "
                      + ("protection rerun (bounded search found nothing)"
                         if b["protection_rerun"] else "bounded search sufficed")),
            ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
            ("distinct final states", str(j["final_states"])),
        ]
        rows += _opening_rows(j)
        if j["continuity_applicable"] is False:
            rows += [("continuable", "not applicable (a stage: no second lap)")]
        elif j["continuable_count"] is not None:
            rows += [
                ("continuable (race rule)", f"{int(j['continuable_count']):,}  "
                                            f"({j['continuable_percent']:.2f} %)"),
                ("continuable (editor)", f"{int(j['continuable_count_editor']):,}"),
                ("m_cont", _m_cont_cell(j)),
            ]
        for name in ("yellow", "green", "blue"):
            d = j[name]
            if d:
                ties = f", {int(d['ties']):,} tied" if "ties" in d else ""
                rows.append((name, f"{d['moves']} moves, length {d['length']:.6f} = "
                                   f"{d['length_exact']}{ties}"))
        if j["coverage"]:
            c = j["coverage"]
            rows.append(("red coverage", f"{c['touched_cells']}/{c['drivable_cells']} cells "
                                         f"= {c['red_float'] * 100:.2f} %"))
        s = j["score"]
        if s:
            rows.append(("score", f"{s['total']:.2f}  ({s['band']})"
                         + (f", capped from {s['raw']:.2f}" if s["capped"] else "")
                         + f", corrector {s['corrector']:.4f}"))
            for name, comp in s["components"].items():
                if comp is None:
                    rows.append((f"  {name}", "n/a (stage)"))
                    continue
                extra = ""
                if name == "diversity":
                    extra = (f"  (euclid_sep {comp['euclid_sep']:.4f}, "
                             f"spatial_sep {comp['spatial_sep']:.4f})")
                rows.append((f"  {name}", f"{comp['value']:.4f} x weight {comp['weight']}"
                                          f"{extra}"))
    rows += [
        ("states explored", f"{j['states_explored']:,}"),
        ("seconds", f"{j['seconds']:.3f}  ("
         + ", ".join(f"{k} {v:.2f}" for k, v in j["timings"].items()) + ")"),
    ]
    return format_table(rows)


def _opening_rows(j: dict) -> list[tuple[str, str]]:
    """A row when the opening rule is still active at the optimal arrivals (m* < K)."""
    after = j["opening_moves_after_arrival"]
    if not after:
        return []
    m = j["m_star"]
    moves = f"move {m + 1}" if after == 1 else f"moves {m + 1}..{m + after}"
    return [("opening at arrival", f"still active (K = {m + after} > m* = {m}): {moves}, the "
                                   "first after the arrival, still obey it")]


def _m_cont_cell(j: dict) -> str:
    """m_cont, or why there is none where that is not plain."""
    if j["m_cont"] is not None:
        return str(j["m_cont"])
    if j["m_cont_null_reason"] == "editor-key-finds-none":
        return (f"none found by the editor key (exact key: {j['m_cont_exact']}): each "
                "continuable first lap passes a state it reached earlier under the opening rule")
    return "-"


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


def run_analysis(track: Track, mode: str) -> Analysis:
    """`analyze` with progress on stderr (only for runs longer than ~2 s; see progress.py)."""
    steps = progress(f"analyze {track.name}", " step", total=len(STEPS))
    bar, update = progress_bar("BFS")

    def step(name: str) -> None:
        steps.set_postfix_str(name, refresh=False)
        if steps.n < len(STEPS):
            steps.update(1)

    try:
        return analyze(track, mode, progress=update, step=step)
    finally:
        bar.close()
        steps.close()


OUTPUT_KINDS = {".json": "the JSON report", ".svg": "the picture"}


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
    track = load_track(args.track)
    result = run_analysis(track, args.mode)
    data = result.to_json()
    slots = None
    if args.all_slots:
        slots = analyze_slots(track, args.mode, configured=result, run=run_analysis)
        data["slots"] = [s.to_json() for s in slots]
    for path, suffix in outputs:
        text = json.dumps(data, indent=2) + "\n" if suffix == ".json" else render_svg(result)
        write_text_atomic(path, text)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(result))
        if slots is not None:
            print()
            print(slots_report(slots))
    return 0
