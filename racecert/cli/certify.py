"""`racecert certify TRACK`: every applicable cross-check, written as a certificate.

Exit status: 0 certified (every figure confirmed), 1 some check disagrees, 2 bad input,
3 partial (nothing disagrees, some figure unconfirmed).
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

EXIT_STATUS = {"certified": 0, "disagree": 1, "partial": 3}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    c = sub.add_parser("certify", help="cross-check every figure with independent methods")
    c.add_argument("track")
    c.add_argument("--json", action="store_true", help="print the certificate as JSON")
    c.add_argument("--out", metavar="FILE", help="write the JSON certificate to FILE")
    c.add_argument("--cpsat-budget", metavar="UNITS", type=float, default=60.0,
                   help="CP-SAT deterministic time per solve (default 60; the same verdicts "
                        "on any machine, unlike wall seconds)")
    c.add_argument("--count-limit", metavar="N", type=int, default=20_000,
                   help="largest optimal count enumerated by CP-SAT (default 20000)")
    c.set_defaults(func=cmd_certify)


def _short(v: object, width: int = 28) -> str:
    s = "-" if v is None else str(v)
    return s if len(s) <= width else s[: width - 3] + "..."


def human_report(c: Certificate) -> str:
    """The headline first (naming every unconfirmed figure), then one row per figure with
    its value and verdict, then each check: method, verdict, reason and work spent."""
    t = c.track
    head = format_table([
        ("track", f"{t.name}  ({t.width}x{t.height}, sha256 {t.sha256[:12]})"),
        ("status", _headline(c)),
    ])
    rows = [("figure", "value", "verdict", "checks")]
    for f in c.figures:
        agreeing = sum(r.verdict == "agree" for r in f.checks)
        rows.append((f.name, _short(f.value), f.verdict, f"{agreeing}/{len(f.checks)} agree"))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    table = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                      .rstrip() for row in rows)
    notes = "\n".join(
        f"- {r.figure} [{r.method}] {r.verdict}: {r.reason}"
        + (f" (work: {r.work})" if r.work else "") + f" ({r.seconds:.2f} s)"
        for r in c.results)
    arb = "\n".join(
        f"- {a.figure}: exact {a.exact}, editor {a.editor}, {a.method} {a.independent} -> "
        f"agrees with {', '.join(a.agrees_with) or 'neither key'}" for a in c.arbitrations)
    parts = [head, "", table, "", "checks:", notes]
    if arb:
        parts += ["", "editor vs exact key (docs/opening-limits.md):", arb]
    parts += ["", f"{_headline(c)} ({c.seconds:.1f} s)"]
    return "\n".join(parts)


def _headline(c: Certificate) -> str:
    if c.status == "disagree":
        bad = [f.name for f in c.figures if f.verdict == "disagree"]
        return f"DISAGREEMENT on {', '.join(bad) or 'a check'}: see the table"
    if c.status == "certified":
        return "CERTIFIED: every figure confirmed by an independent check"
    return f"PARTIAL: not confirmed: {', '.join(c.unconfirmed)} (nothing disagrees)"


def cmd_certify(args: argparse.Namespace) -> int:
    track = load_track(args.track)
    bar = tqdm(desc="certify", unit=" step", delay=2.0, file=sys.stderr, leave=False)

    def step(name: str) -> None:
        bar.update(1)
        bar.set_description(f"certify: {name}")

    try:
        cert = certify(track, step=step, cpsat_budget=args.cpsat_budget,
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
    return EXIT_STATUS[cert.status]
