"""`racecert crosscheck TRACK RESULT.json`: another engine's figures next to racecert's.

Exit status: 0 when everything compared agrees, 1 on any disagreement, 2 on
bad input (a malformed track or RESULT.json: one line naming the file, the key
or position, and what is wrong). Unknown keys are reported, not fatal. The
RESULT.json schema is in docs/crosscheck.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from racecert.analysis import analyze
from racecert.certification.crosscheck import Comparison, crosscheck
from racecert.certification.result_file import ResultError, read_result_file
from racecert.certification.result_schema import parse_result
from racecert.cli.common import progress_bar
from racecert.cli.tracks import load_grid_track

EXIT_DISAGREE = 1
EXIT_BAD_INPUT = 2


def register(c: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    c.add_argument("track")
    c.add_argument("result", help="the other engine's results (docs/crosscheck.md)")
    c.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="racecert's state key to compare against (default exact)")
    c.add_argument("--json", action="store_true", help="print the comparisons as JSON")
    c.set_defaults(func=cmd_crosscheck)


def format_comparisons(rows: list[Comparison]) -> str:
    """An aligned table: figure, theirs, ours, verdict, note."""
    head = ("figure", "theirs", "racecert", "verdict", "note")
    cells = [head] + [(r.figure, _cut(r.theirs), _cut(r.ours), r.verdict, r.note) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True))
                     + ("  " + row[4] if row[4] else "") for row in cells).rstrip()


def _cut(s: str, width: int = 40) -> str:
    return s if len(s) <= width else s[: width - 3] + "..."


def summary(rows: list[Comparison]) -> str:
    """"N compared, M disagreement(s)", plus the unknown and ignored keys if any."""
    n = {v: sum(r.verdict == v for r in rows) for v in ("agree", "disagree", "unknown", "ignored")}
    out = f"{n['agree'] + n['disagree']} compared, {n['disagree']} disagreement(s)"
    if n["unknown"]:
        out += f", {n['unknown']} unknown key(s) not compared"
    if n["ignored"]:
        out += f", {n['ignored']} key(s) ignored (not figures)"
    return out


def cmd_crosscheck(args: argparse.Namespace) -> int:
    track = load_grid_track(args.track, "crosscheck")
    try:
        other = parse_result(read_result_file(args.result))
    except ResultError as exc:
        print(f"error: {args.result}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    bar, update = progress_bar(f"analyze {track.name}")
    try:
        analysis = analyze(track, args.mode, progress=update)
    finally:
        bar.close()
    rows = crosscheck(analysis, other)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(format_comparisons(rows) if rows else "nothing to compare: RESULT.json is empty")
        print(summary(rows))
    return EXIT_DISAGREE if any(r.verdict == "disagree" for r in rows) else 0
