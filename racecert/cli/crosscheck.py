"""`racecert crosscheck TRACK RESULT.json`: another engine's figures next to racecert's.

Exit status: 0 when everything compared agrees, 1 on any disagreement, 2 on
bad input (a malformed track or RESULT.json: one line naming the file, the key
or position, and what is wrong; also a RESULT.json that holds no figure to
compare, such as `{}`, a file of unknown keys or a whole `racecert library`
file, which would otherwise pass with nothing checked). Unknown keys are
reported, not fatal. Every run that compares reports how many figures it
compared (the last line on stdout; on stderr with --json). The RESULT.json
schema is in docs/crosscheck.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from racecert.analysis import analyze
from racecert.certification.crosscheck import Comparison, crosscheck
from racecert.certification.result_file import ResultError, read_result_file
from racecert.certification.result_schema import OtherResult, parse_result
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
    return "\n".join(("  ".join(c.ljust(w) for c, w in zip(row[:4], widths, strict=True))
                      + "  " + row[4]).rstrip() for row in cells)


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


def nothing_to_compare(other: OtherResult) -> str | None:
    """Why `other` holds no figure to compare (one line), or None when it holds one.

    Every entry of `other.figures` becomes a compared row (agree or disagree), so a file
    without one would print "0 compared" and pass: that is refused as bad input instead.
    """
    if other.figures:
        return None
    unknown = [s.key for s in other.skipped if s.unknown]
    ignored = [s.key for s in other.skipped if not s.unknown]
    if not other.skipped:
        held = "it is empty (or every figure is null)"
    else:
        names = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        held = f"{len(unknown)} unknown key(s)" + (f" ({names})" if unknown else "") \
            + f", {len(ignored)} key(s) ignored (not figures)"
    if {"version", "tracks"} <= set(unknown):
        held += "; a `racecert library` file holds one record per track: give one record"
    return f"no figure to compare: {held}; the figures are listed in docs/crosscheck.md"


def cmd_crosscheck(args: argparse.Namespace) -> int:
    track = load_grid_track(args.track, "crosscheck")
    try:
        other = parse_result(read_result_file(args.result))
    except ResultError as exc:
        print(f"error: {args.result}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    empty = nothing_to_compare(other)
    if empty:
        print(f"error: {args.result}: {empty}", file=sys.stderr)
        return EXIT_BAD_INPUT
    bar, update = progress_bar(f"analyze {track.name}")
    try:
        analysis = analyze(track, args.mode, progress=update)
    finally:
        bar.close()
    rows = crosscheck(analysis, other)
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=2))
        print(summary(rows), file=sys.stderr)  # stdout stays one JSON document
    else:
        print(format_comparisons(rows))
        print(summary(rows))
    return EXIT_DISAGREE if any(r.verdict == "disagree" for r in rows) else 0
