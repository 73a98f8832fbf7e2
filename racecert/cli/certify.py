"""`racecert certify TRACK`: every applicable cross-check, written as a certificate.

Exit status: 0 when no check disagrees, 1 when one does, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tqdm import tqdm

from racecert.certification.certificate import Certificate, certify
from racecert.cli.common import format_table
from racecert.model.parse import load_track

EXIT_DISAGREE = 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    c = sub.add_parser("certify", help="cross-check every figure with independent methods")
    c.add_argument("track")
    c.add_argument("--json", action="store_true", help="print the certificate as JSON")
    c.add_argument("--out", metavar="FILE", help="write the JSON certificate to FILE")
    c.add_argument("--time-limit", metavar="S", type=float, default=30.0,
                   help="time limit per solver call in seconds (default 30)")
    c.add_argument("--count-limit", metavar="N", type=int, default=20_000,
                   help="largest optimal count enumerated by CP-SAT (default 20000)")
    c.set_defaults(func=cmd_certify)


def _short(v: object, width: int = 28) -> str:
    s = "-" if v is None else str(v)
    return s if len(s) <= width else s[: width - 3] + "..."


def human_report(c: Certificate) -> str:
    """A table: figure, BFS value, independent value, verdict, seconds; then the reasons."""
    t = c.track
    head = format_table([
        ("track", f"{t.name}  ({t.width}x{t.height}, sha256 {t.sha256[:12]})"),
        ("m* (exact key)", str(c.exact.m_star)),
        ("optimal trajectories", f"{c.exact.optimal_count:,}"),
    ])
    rows = [("figure", "bfs", "independent", "verdict", "s")]
    for r in c.results:
        rows.append((r.figure, _short(r.bfs_value), _short(r.method_value), r.verdict,
                     f"{r.seconds:.2f}"))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    table = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                      .rstrip() for row in rows)
    notes = "\n".join(f"- {r.figure} [{r.method}]: {r.reason}" for r in c.results)
    arb = "\n".join(
        f"- {a.figure}: exact {a.exact}, editor {a.editor}, {a.method} {a.independent} -> "
        f"agrees with {', '.join(a.agrees_with) or 'neither key'}" for a in c.arbitrations)
    if not c.ok:
        verdict = "DISAGREEMENT: see the table"
    elif c.certified:
        verdict = "CERTIFIED: no check disagrees"
    else:
        verdict = "NOT CERTIFIED: nothing disagrees, but no independent check applied"
    parts = [head, "", table, "", notes]
    if arb:
        parts += ["", "editor vs exact key (docs/opening-limits.md):", arb]
    parts += ["", f"{verdict} ({c.seconds:.1f} s)"]
    return "\n".join(parts)


def cmd_certify(args: argparse.Namespace) -> int:
    track = load_track(args.track)
    bar = tqdm(desc="certify", unit=" step", delay=2.0, file=sys.stderr, leave=False)

    def step(name: str) -> None:
        bar.update(1)
        bar.set_description(f"certify: {name}")

    try:
        cert = certify(track, step=step, time_limit=args.time_limit,
                       count_limit=args.count_limit,
                       out_dir=Path(args.out).parent if args.out else None)
    finally:
        bar.close()
    data = cert.to_json()
    if args.out:
        Path(args.out).write_text(json.dumps(data, indent=2) + "\n")
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(cert))
    return 0 if cert.ok else EXIT_DISAGREE
