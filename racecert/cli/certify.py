"""`racecert certify TRACK`: every applicable cross-check, written as a certificate.

Exit status: 0 certified (every figure confirmed by an independent check), 1 some
check disagrees, 2 bad input (or an output that cannot be written), 3 partial (nothing
disagrees, some figure unconfirmed: the headline names it), 4 a resource limit reached
(`--max-states`, `--max-memory`, `--timeout`: `racecert.cli.limits`), 130 on Ctrl-C.

With -o/--out FILE the certificate is written atomically to FILE and the DRUP
proofs next to it: the checks write them into a hidden staging folder in FILE's
folder; once the certificate is complete each formula and proof is named by the
SHA-256 of its pair's content (`racecert.certification.proof_files`) and the
certificate records the full hashes. Every byte is written before the first rename
(the certificate to its temp file, so a full disk fails before any file is moved:
one line, exit 2); then the proofs are renamed into place and the certificate last.
A file already there under its name has that content and is kept, so a run never
changes the proofs another certificate names, and a run killed before its
certificate leaves the previous certificate beside its own proofs. The staging
folder is removed on every exit path (an error, Ctrl-C). Without --out no proof is
written at all (the checker reads it from memory).

`racecert certify --verify CERT.json` re-checks a written certificate's proof
files: each exists with its recorded SHA-256 and each proof refutes its formula
by the project's own DRUP checker. Exit status 0 when all hold, 1 with one line
per missing, changed or rejected file, 2 when the certificate is unreadable or
malformed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from racecert.certification.certificate import Judged
from racecert.certification.context import (
    DEFAULT_COUNT_LIMIT,
    DEFAULT_CPSAT_BUDGET,
    MAX_COUNT_LIMIT,
    MAX_CPSAT_BUDGET,
    MethodKind,
)
from racecert.certification.profiles import certification_profile
from racecert.certification.proof_files import (
    CertificateFormatError,
    name_proofs,
    sha256_file,
    verify_certificate,
)
from racecert.cli.arguments import integer, print_error, seconds
from racecert.cli.common import format_table
from racecert.cli.limits import add_limit_arguments, run_limits
from racecert.cli.output import (
    OutputError,
    check_output_file,
    pending_text,
    publish,
    staging_folder,
)
from racecert.cli.progress import Heartbeat, PlainProgress, Progress, progress
from racecert.cli.tracks import load_named_track
from racecert.model.budget import StateBudget
from racecert.model.profiles import AnyTrack

EXIT_STATUS = {"certified": 0, "disagree": 1, "partial": 3}
HEARTBEAT = 10.0
"""Seconds between two progress lines (or redraws) of the running step, even when the
step itself reports nothing (a long solve): a log of a long certify never falls silent."""
LEGEND = ("confirmed by: second = a second implementation, proof = a SAT model with a "
          "checked DRUP proof, model = a solver model (CP-SAT, or SAT without proof), "
          "enumeration = every solution enumerated")


def register(c: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    c.add_argument("track", nargs="?", help="the track file, or a bundled track's name "
                   "(not with --verify)")
    c.add_argument("--json", action="store_true", help="print the certificate as JSON")
    c.add_argument("-o", "--out", metavar="FILE",
                   help="write the JSON certificate to FILE and the DRUP proofs next to it")
    c.add_argument("--verify", metavar="CERT",
                   help="re-check the proof files a written certificate names (SHA-256 and "
                        "DRUP check) instead of certifying a track")
    c.add_argument("--cpsat-budget", metavar="UNITS", default=DEFAULT_CPSAT_BUDGET,
                   type=seconds(0.0, MAX_CPSAT_BUDGET, "deterministic time units"),
                   help="CP-SAT deterministic time per solve, > 0 and at most "
                        f"{MAX_CPSAT_BUDGET:g} (default {DEFAULT_CPSAT_BUDGET:g}): the same "
                        "verdicts on any machine, unlike wall seconds")
    c.add_argument("--best-start", action="store_true",
                   help="lattice tracks: certify the figures over every start position")
    c.add_argument("--count-limit", metavar="N", default=None,
                   type=integer(0, MAX_COUNT_LIMIT, "a count"),
                   help=f"grid tracks: largest optimal count enumerated by CP-SAT, 0 to "
                        f"{MAX_COUNT_LIMIT:,} (default {DEFAULT_COUNT_LIMIT})")
    add_limit_arguments(c)
    c.set_defaults(func=cmd_certify)


def _short(v: object, width: int = 28) -> str:
    s = "-" if v is None else str(v)
    return s if len(s) <= width else s[: width - 3] + "..."


def human_report(c: Judged) -> str:
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


def _headline(c: Judged) -> str:
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


def run_certify(track: AnyTrack, args: argparse.Namespace, out_dir: Path | None,
                budget: StateBudget | None = None, bar: Progress | None = None
                ) -> Judged:
    """The certificate of `track`'s profile (`racecert.certification.profiles`: one path
    for every profile) with progress on stderr (only for runs longer than ~2 s; see
    progress.py and `CertifyDisplay`), the oracle's searches bounded by `budget`."""
    profile = certification_profile(track)
    steps = profile.step_count()
    bar = bar or progress("certify", " steps done", total=steps)
    display = CertifyDisplay(bar, steps, budget)
    try:
        with Heartbeat(HEARTBEAT, display.beat):
            return profile.certify(track, best_start=args.best_start, step=display.step,
                                   progress=display.bfs, work=display.work,
                                   cpsat_budget=args.cpsat_budget,
                                   count_limit=DEFAULT_COUNT_LIMIT if args.count_limit is None
                                   else args.count_limit, out_dir=out_dir,
                                   budget=budget)
    finally:
        bar.close()


def _publish_pair_files(files: dict[Path, tuple[str, str]], folder: Path) -> None:
    """Rename each staged file to its content name in `folder`, keeping a file already
    there with the same SHA-256 (the same name means the same content: another
    certificate may name it, and it is left untouched)."""
    for staged, (name, sha256) in sorted(files.items()):
        target = folder / name
        if not _holds(target, sha256):
            publish(staged, target)


def _holds(path: Path, sha256: str) -> bool:
    """Whether `path` is a regular file with SHA-256 `sha256` (an unreadable one is not:
    it is replaced by the content its name stands for)."""
    try:
        return path.is_file() and sha256_file(path) == sha256
    except OSError:
        return False


def certify_to_file(track: AnyTrack, args: argparse.Namespace, out: Path,
                    budget: StateBudget | None = None) -> tuple[Judged, dict]:
    """Certify with the proofs staged in `out`'s folder; publish them, then the certificate.

    Every byte is written before the first rename: the proofs are named by their content,
    the certificate goes to its temp file, then the proofs are renamed into place, then
    the certificate. Returns the certificate and its JSON (with the proofs' content
    names and hashes)."""
    folder = out.parent
    with staging_folder(folder) as staging:
        cert = run_certify(track, args, staging, budget)
        data = cert.to_json()
        try:
            files = name_proofs(data, staging)
        except OSError as exc:
            raise OutputError(f"{folder}: cannot read a staged proof: "
                              f"{exc.strerror or exc}") from None
        with pending_text(out, json.dumps(data, indent=2) + "\n"):
            _publish_pair_files(files, folder)
    return cert, data


def cmd_verify(args: argparse.Namespace) -> int:
    """`certify --verify CERT`: 0 when every proof file holds, 1 with one line per problem,
    2 for an unreadable or malformed certificate (or a TRACK or --out given with it)."""
    if args.track is not None or args.out is not None:
        return print_error("--verify CERT checks a written certificate: give no TRACK "
                           "and no --out with it")
    cert = Path(args.verify)
    try:
        found = verify_certificate(cert)
    except CertificateFormatError as exc:
        return print_error(exc)
    for line in found.problems:
        print(line)
    if found.ok and found.pairs == 0:
        print(f"{cert}: names no proof files (written without --out, or no SAT bound "
              "was refuted): nothing to verify")
        return 0
    if found.ok:
        print(f"{cert}: verified: {found.pairs} proofs and their formulas have their "
              "SHA-256 and every proof refutes its formula (DRUP check)")
        return 0
    n = len(found.problems)
    print(f"{cert}: NOT verified: {n} problem{'' if n == 1 else 's'} in {found.pairs} proofs")
    return 1


def cmd_certify(args: argparse.Namespace) -> int:
    if args.verify is not None:
        return cmd_verify(args)
    if args.track is None:
        return print_error("certify: give a TRACK to certify, or --verify CERT")
    out = check_output_file(args.out) if args.out else None
    with run_limits(args) as limits:  # before the track is read: --timeout counts it
        track = load_named_track(args.track)
        profile = certification_profile(track)
        refused = profile.refusal(best_start=args.best_start)
        if refused is not None:
            return print_error(f"--best-start: {refused[1]}")
        if args.count_limit is not None and profile.unused(["count_limit"]):
            return print_error(f"--count-limit: a track of the {profile.model.title} has no "
                               "enumeration of its optimal trajectories (grid tracks only)")
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
