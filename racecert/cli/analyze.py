"""`racecert analyze TRACK`: the full analysis as a table or JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.analysis import Analysis, analyze
from racecert.cli.common import format_table, progress_bar
from racecert.model.parse import load_track


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    a = sub.add_parser("analyze", help="minimum moves, optimal trajectories, exact counts")
    a.add_argument("track")
    a.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="state key: 'exact' includes the opening phase (default), "
                        "'editor' leaves it out as the editor does")
    a.add_argument("--json", action="store_true", help="print the JSON report")
    a.add_argument("--json-out", metavar="FILE", help="also write the JSON report to FILE")
    a.set_defaults(func=cmd_analyze)


def human_report(a: Analysis) -> str:
    """A short readable table of the analysis."""
    j = a.to_json()
    rows = [
        ("track", f"{j['track']}  ({a.track.width}x{a.track.height}, sha256 {j['sha256'][:12]})"),
        ("mode", j["mode"]),
        ("reachable", "yes" if j["reachable"] else "no"),
    ]
    if j["reachable"]:
        n = int(j["optimal_count"])
        rows += [
            ("m* (minimum moves)", str(j["m_star"])),
            ("optimal trajectories", f"{n:,}" + (f"  (~{n:.3e})" if n >= 10**6 else "")),
            ("distinct final states", str(j["final_states"])),
        ]
    rows += [
        ("states explored", f"{j['states_explored']:,}"),
        ("seconds", f"{j['seconds']:.3f}"),
    ]
    return format_table(rows)


def cmd_analyze(args: argparse.Namespace) -> int:
    track = load_track(args.track)
    bar, update = progress_bar(f"BFS {track.name}")
    try:
        result = analyze(track, args.mode, progress=update)
    finally:
        bar.close()
    data = result.to_json()
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(data, indent=2) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(result))
    return 0
