"""`racecert certify TRACK`: every applicable cross-check, written as a certificate.

Exit status: 0 certified (every figure confirmed by an independent check), 1 some
check disagrees, 2 bad input (or an output that cannot be written), 3 partial (nothing
disagrees, some figure unconfirmed: the headline names it), 4 a resource limit reached
(`--max-states`, `--max-memory`, `--timeout`: `racecert.cli.limits`), 130 on Ctrl-C.

With -o/--out FILE the certificate is written atomically to FILE and the DRUP
proofs next to it: the checks write them into a hidden staging folder in FILE's
folder, from where each is renamed into place once the certificate is complete;
the staging folder is removed on every exit path (an error, Ctrl-C). Without
--out no proof is written at all (the checker reads it from memory).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from racecert.certification.certificate import Certificate, certify
from racecert.certification.lattice_certificate import certify_lattice
from racecert.certification.lattice_checks import LatticeLimits
from racecert.cli.arguments import integer, print_error, seconds
from racecert.cli.common import format_table
from racecert.cli.limits import add_limit_arguments, run_limits
from racecert.cli.output import check_output_file, publish, staging_folder, write_text_atomic
from racecert.cli.progress import progress
from racecert.model.budget import StateBudget
from racecert.model.lattice_track import is_lattice
from racecert.model.parse import load_track
from racecert.model.track import Track

EXIT_STATUS = {"certified": 0, "disagree": 1, "partial": 3}
MAX_CPSAT_BUDGET = 1_000_000.0
"""Largest --cpsat-budget in deterministic time units; larger values are a typo."""
MAX_COUNT_LIMIT = 100_000_000
"""Largest --count-limit: CP-SAT enumerates one solution at a time in Python callbacks."""


def register(c: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    c.add_argument("track")
    c.add_argument("--json", action="store_true", help="print the certificate as JSON")
    c.add_argument("-o", "--out", metavar="FILE",
                   help="write the JSON certificate to FILE and the DRUP proofs next to it")
    c.add_argument("--cpsat-budget", metavar="UNITS", default=60.0,
                   type=seconds(0.0, MAX_CPSAT_BUDGET, "deterministic time units"),
                   help="CP-SAT deterministic time per solve, > 0 and at most "
                        f"{MAX_CPSAT_BUDGET:g} (default 60): the same verdicts on any "
                        "machine, unlike wall seconds")
    c.add_argument("--best-start", action="store_true",
                   help="lattice tracks: certify the figures over every start position")
    c.add_argument("--count-limit", metavar="N", default=20_000,
                   type=integer(0, MAX_COUNT_LIMIT, "a count"),
                   help=f"largest optimal count enumerated by CP-SAT, 0 to "
                        f"{MAX_COUNT_LIMIT:,} (default 20000)")
    add_limit_arguments(c)
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
        bad += [r.figure for r in c.other_checks if r.verdict == "disagree"]
        return f"DISAGREEMENT on {', '.join(bad) or 'a check'}: see the table"
    if c.status == "certified":
        return "CERTIFIED: every figure confirmed by an independent check"
    return f"PARTIAL: not confirmed: {', '.join(c.unconfirmed)} (nothing disagrees)"


def run_certify(track: Track, args: argparse.Namespace, out_dir: Path | None,
                budget: StateBudget | None = None) -> Certificate:
    """`certify` with progress on stderr (only for runs longer than ~2 s; see progress.py),
    the oracle's searches bounded by `budget`."""
    bar = progress("certify", " step")

    def step(name: str) -> None:
        bar.set_description(f"certify: {name}")
        bar.update(1)

    try:
        if is_lattice(track):
            return certify_lattice(track, best_start=args.best_start, step=step,  # type: ignore
                                   limits=LatticeLimits(cpsat_budget=args.cpsat_budget))
        return certify(track, step=step, cpsat_budget=args.cpsat_budget,
                       count_limit=args.count_limit, out_dir=out_dir, budget=budget)
    finally:
        bar.close()


def _moved_proofs(data: dict, staging: Path, folder: Path) -> dict:
    """The certificate JSON with each staged proof path ("proof", "proof 1", ...) replaced
    by its final path."""
    for check in (c for f in data["figures"].values() for c in f["checks"]):
        arte = check["artefacts"]
        for key, proof in arte.items():
            if key.startswith("proof") and isinstance(proof, str) and proof \
                    and Path(proof).parent == staging:
                arte[key] = str(folder / Path(proof).name)
    return data


def certify_to_file(track: Track, args: argparse.Namespace, out: Path,
                    budget: StateBudget | None = None) -> tuple[Certificate, dict]:
    """Certify with the proofs staged in `out`'s folder; write them and the certificate.

    Returns the certificate and its JSON (with the proofs' final paths)."""
    folder = out.parent
    with staging_folder(folder) as staging:
        cert = run_certify(track, args, staging, budget)
        data = _moved_proofs(cert.to_json(), staging, folder)
        for staged in sorted(staging.iterdir()):
            publish(staged, folder / staged.name)
        write_text_atomic(out, json.dumps(data, indent=2) + "\n")
    return cert, data


def cmd_certify(args: argparse.Namespace) -> int:
    out = check_output_file(args.out) if args.out else None
    track = load_track(args.track)
    if args.best_start and not is_lattice(track):
        return print_error("--best-start: a grid track has one car (lattice tracks only)")
    with run_limits(args) as limits:
        if out is None:
            cert = run_certify(track, args, None, limits.budget)
            data = cert.to_json()
        else:
            cert, data = certify_to_file(track, args, out, limits.budget)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(human_report(cert))
    return EXIT_STATUS[cert.status]
