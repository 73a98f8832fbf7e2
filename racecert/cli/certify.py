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
import time
from collections.abc import Callable
from pathlib import Path

from racecert.certification.certificate import Certificate, certify, step_count
from racecert.certification.context import MethodKind
from racecert.certification.lattice_certificate import CHECKS as LATTICE_CHECKS
from racecert.certification.lattice_certificate import certify_lattice
from racecert.certification.lattice_checks import LatticeLimits
from racecert.cli.arguments import integer, print_error, seconds
from racecert.cli.common import format_table
from racecert.cli.limits import add_limit_arguments, run_limits
from racecert.cli.output import check_output_file, publish, staging_folder, write_text_atomic
from racecert.cli.progress import Heartbeat, PlainProgress, Progress, progress
from racecert.model.budget import StateBudget
from racecert.model.lattice_track import is_lattice
from racecert.model.parse import load_track
from racecert.model.track import Track

EXIT_STATUS = {"certified": 0, "disagree": 1, "partial": 3}
MAX_CPSAT_BUDGET = 1_000_000.0
"""Largest --cpsat-budget in deterministic time units; larger values are a typo."""
MAX_COUNT_LIMIT = 100_000_000
"""Largest --count-limit: CP-SAT enumerates one solution at a time in Python callbacks."""
HEARTBEAT = 10.0
"""Seconds between two progress lines (or redraws) of the running step, even when the
step itself reports nothing (a long solve): a log of a long certify never falls silent."""
LEGEND = ("confirmed by: second = a second implementation, proof = a SAT model with a "
          "checked DRUP proof, model = a solver model (CP-SAT, or SAT without proof), "
          "enumeration = every solution enumerated")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    c = sub.add_parser("certify", help="cross-check every figure with independent methods")
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
    rows = [("figure", "value", "verdict", "checks", "confirmed by")]
    for f in c.figures:
        agreeing = sum(r.verdict == "agree" for r in f.checks)
        rows.append((f.name, _short(f.value), f.verdict, f"{agreeing}/{len(f.checks)} agree",
                     _kinds(f.confirmed_by)))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    table = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
                      .rstrip() for row in rows)
    notes = "\n".join(
        f"- {r.figure} [{r.method}] {r.verdict}: {r.reason}"
        + (f" (work: {r.work})" if r.work else "") + f" ({r.seconds:.2f} s)"
        for r in c.results)
    arb = "\n".join(
        f"- {a.figure}: exact {a.exact}, editor {a.editor}, {a.method} {a.independent} -> "
        f"agrees with {', '.join(a.agrees_with) or 'neither key'}" for a in c.arbitrations)
    parts = [head, "", table, LEGEND, "", "checks:", notes]
    if arb:
        parts += ["", "editor vs exact key (docs/opening-limits.md):", arb]
    parts += ["", f"{_headline(c)} ({c.seconds:.1f} s)"]
    return "\n".join(parts)


def _kinds(kinds: tuple[MethodKind, ...]) -> str:
    return ", ".join(k.short for k in kinds) or "-"


def _headline(c: Certificate) -> str:
    """The certificate's own headline (`Certificate.headline`)."""
    return c.headline


def _duration(s: float) -> str:
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min"


class CertifyDisplay:
    """What `run_certify` shows: which step runs (`[i/n]` and its label), what it does
    with its budget (the check's `work` reports, the oracle BFS's layers), the done/total
    of its work with an estimate of the time left where the total is known, and the time
    spent in the step. `beat` (the `Heartbeat`) refreshes it every `HEARTBEAT` seconds, so
    a redirected stderr gets a line at least that often while a step runs.

    The estimate is the step's elapsed time scaled by the work left: done units so far
    took that long, the rest is assumed to take as long per unit.
    """

    def __init__(self, bar: Progress, steps: int, budget: StateBudget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.bar, self.steps, self.budget, self.clock = bar, steps, budget, clock
        self.index = 0
        self.started = clock()
        self.what = ""
        self.done = 0
        self.total: int | None = None

    def step(self, name: str) -> None:
        """A new step starts (the previous one is done)."""
        if self.index:
            self.bar.update(1)
        self.index += 1
        self.started = self.clock()
        self.what, self.done, self.total = "", 0, None
        self.bar.set_description(f"certify [{self.index}/{self.steps}] {name}")
        self._show()

    def work(self, what: str, done: int, total: int | None) -> None:
        """A check's report (`CertifyContext.report`)."""
        self.what, self.done, self.total = what, done, total
        self._show()

    def bfs(self, depth: int, frontier: int, states: int) -> None:
        """The oracle BFS's per-layer report."""
        cap = f" of at most {self.budget.limit:,} ({self.budget.label})" if self.budget else ""
        self.what, self.done, self.total = (
            f"BFS depth {depth}, {states:,} states{cap}, frontier {frontier:,}", 0, None)
        self._show()

    def postfix(self) -> str:
        """The running step's work, estimate and elapsed time, as one phrase."""
        spent = self.clock() - self.started
        parts = [self.what] if self.what else []
        if self.total:
            left = ""
            if self.done:
                left = f", about {_duration(spent * (self.total - self.done) / self.done)} left"
            parts.append(f"{self.done:,}/{self.total:,} done{left}")
        parts.append(f"{_duration(spent)} in this step")
        return "; ".join(parts)

    def _show(self) -> None:
        self.bar.set_postfix_str(self.postfix())  # tqdm redraws; a plain log:
        if isinstance(self.bar, PlainProgress):
            self.bar.refresh()  # a line if its interval allows

    def beat(self) -> None:
        """Refresh the postfix; a plain log gets the line now."""
        self._show()
        if isinstance(self.bar, PlainProgress):
            self.bar.print_now()


def run_certify(track: Track, args: argparse.Namespace, out_dir: Path | None,
                budget: StateBudget | None = None, bar: Progress | None = None
                ) -> Certificate:
    """`certify` with progress on stderr (only for runs longer than ~2 s; see progress.py
    and `CertifyDisplay`), the oracle's searches bounded by `budget`."""
    lattice = is_lattice(track)
    steps = 1 + len(LATTICE_CHECKS) if lattice else step_count()
    bar = bar or progress("certify", " steps done", total=steps)
    display = CertifyDisplay(bar, steps, budget)
    try:
        with Heartbeat(HEARTBEAT, display.beat):
            if lattice:
                return certify_lattice(track, best_start=args.best_start,  # type: ignore
                                       step=display.step,
                                       limits=LatticeLimits(cpsat_budget=args.cpsat_budget))
            return certify(track, step=display.step, progress=display.bfs, work=display.work,
                           cpsat_budget=args.cpsat_budget, count_limit=args.count_limit,
                           out_dir=out_dir, budget=budget)
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
