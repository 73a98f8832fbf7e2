"""Run `racecert validate` and `racecert analyze` in-process on mutants and judge them.

The command line's contract for a track file (docs/track-format.md): exit 0
with one line on stdout, or exit 2 with exactly one line `error: ...` on
stderr and nothing on stdout; never a traceback. `analyze` must agree with
`validate` (a track that validates is analysed, exit 0, and its SVG is
well-formed XML; one that does not gives the same line and exit 2). `analyze`
runs with a modest `--max-states` (`MAX_STATES`): a valid track whose searches
need more (e.g. an opening rule of 65,536 moves multiplies the state space by
the phases) ends with exit 4 and one `error: state limit reached ...` line as
the last line on stderr (progress lines may precede it in a long run) and
nothing on stdout. A finding is any departure: an exception other than
`SystemExit` with code 0/1/2/4 ("traceback"), a run past the time budget
("hang", only when a budget is given: the test suite gives none, the big run
does), another exit code, extra output lines, a disagreement between the two
commands, a broken SVG.
"""

from __future__ import annotations

import contextlib
import io
import signal
import threading
import time
import traceback
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .mutate import Mutant, mutant

MainFn = Callable[[Sequence[str]], int]
EXITS = {"validate": {0, 2}, "analyze": {0, 2, 4}}
MAX_STATES = 200_000
"""`analyze --max-states` in the fuzzer: every bundled track needs fewer."""


class _Hang(BaseException):
    """Raised by the interval timer when a command runs past its budget."""


@dataclass(frozen=True)
class Call:
    """One command: exit code (None if it did not end normally), output, and what went
    wrong (the exception's last traceback lines, or "hang")."""

    argv: tuple[str, ...]
    code: int | None
    out: str
    err: str
    failure: str | None = None


@dataclass(frozen=True)
class Finding:
    """A mutant that broke the contract, the command and the problem."""

    mutant: Mutant
    argv: tuple[str, ...]
    problem: str
    detail: str

    def line(self) -> str:
        return (f"#{self.mutant.index} {self.mutant.base} {'+'.join(self.mutant.operators)}: "
                f"{' '.join(self.argv[:1])}: {self.problem}: {self.detail}")


@dataclass
class Summary:
    """Counts of a fuzz run."""

    mutants: int = 0
    accepted: int = 0
    rejected: int = 0
    analysed: int = 0
    skipped_large: int = 0
    limited: int = 0
    findings: list[Finding] = field(default_factory=list)
    problems: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def report(self) -> str:
        head = (f"{self.mutants} mutants in {self.seconds:.0f} s: {self.accepted} valid, "
                f"{self.rejected} rejected with one line; analyze ran on {self.analysed} "
                f"(skipped {self.skipped_large} larger than the size filter; "
                f"{self.limited} stopped at --max-states {MAX_STATES:,} with exit 4); "
                f"{len(self.findings)} finding(s)")
        return "\n".join([head, *(f"  {k}: {v}" for k, v in sorted(self.problems.items())),
                          *(f"  {f.line()}" for f in self.findings)])


@contextlib.contextmanager
def _budget(seconds: float | None) -> Iterator[None]:
    """Raise `_Hang` after `seconds` of wall time (main thread only; None: no budget)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def alarm(signum: int, frame: object) -> None:
        raise _Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def call(main: MainFn, argv: Sequence[str], budget: float | None = None) -> Call:
    """Run `main(argv)` with stdout and stderr captured."""
    out, err = io.StringIO(), io.StringIO()
    code: int | None = None
    failure = None
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _budget(budget):
            code = main(list(argv))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except _Hang:
        failure = "hang"
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - every other exception is a finding
        frames = traceback.extract_tb(exc.__traceback__)
        where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
        failure = f"{type(exc).__name__}: {str(exc)[:200]}{where}"
    return Call(tuple(argv), code, out.getvalue(), err.getvalue(), failure)


def _judge_exit(m: Mutant, c: Call, command: str) -> list[Finding]:
    if c.failure is not None:
        problem = "hang" if c.failure == "hang" else "traceback"
        return [Finding(m, c.argv, problem, c.failure)]
    if c.code not in EXITS[command]:
        return [Finding(m, c.argv, "exit code", f"{c.code}; stderr {c.err[-200:]!r}")]
    if c.code == 2 and (c.out or not _one_error_line(c.err)):
        return [Finding(m, c.argv, "output", f"stdout {c.out[:100]!r}, stderr "
                        f"{c.err[:300]!r}")]
    if c.code == 4 and (c.out or not _ends_with_limit_line(c.err)):
        return [Finding(m, c.argv, "output", f"stdout {c.out[:100]!r}, stderr "
                        f"{c.err[-300:]!r}")]
    return []


def _one_error_line(err: str) -> bool:
    return err.startswith("error: ") and err.endswith("\n") and len(err.splitlines()) == 1


def _ends_with_limit_line(err: str) -> bool:
    """The last line says which limit was reached; no other line is an error."""
    lines = err.splitlines()
    return (err.endswith("\n") and bool(lines) and "limit reached: " in lines[-1]
            and lines[-1].startswith("error: ")
            and not any(line.startswith(("error", "Traceback")) for line in lines[:-1]))


def check(m: Mutant, workdir: Path, main: MainFn, analyze_cells: int | None,
          budget: float | None, summary: Summary) -> list[Finding]:
    """Validate the mutant, then analyse it (refused files always; valid ones when their
    grid has at most `analyze_cells` cells, None for all)."""
    path = workdir / "mutant.toml"
    path.write_bytes(m.data)
    v = call(main, ["validate", str(path)], budget)
    found = _judge_exit(m, v, "validate")
    if found:
        return found
    if v.code == 0 and len(v.out.splitlines()) != 1:
        return [Finding(m, v.argv, "output", f"stdout {v.out[:300]!r}")]
    summary.accepted += v.code == 0
    summary.rejected += v.code == 2
    if v.code == 0 and analyze_cells is not None and _cells(path) > analyze_cells:
        summary.skipped_large += 1
        return []
    svg = workdir / "mutant.svg"
    svg.unlink(missing_ok=True)
    a = call(main, ["analyze", str(path), "-o", str(svg), "--max-states", str(MAX_STATES)],
             budget)
    summary.analysed += 1
    found = _judge_exit(m, a, "analyze")
    if found:
        return found
    if a.code == 4 and v.code == 0:
        summary.limited += 1
        return []
    if a.code != v.code:
        return [Finding(m, a.argv, "inconsistent", f"validate exit {v.code}, analyze exit "
                        f"{a.code}: {a.err.strip()[:200]!r}")]
    if a.code == 2 and a.err != v.err:
        return [Finding(m, a.argv, "inconsistent", f"{v.err!r} vs {a.err!r}")]
    if a.code == 0:
        try:
            ET.parse(svg)
        except (ET.ParseError, OSError) as exc:
            return [Finding(m, a.argv, "svg", str(exc)[:200])]
    return []


def _cells(path: Path) -> int:
    from racecert.model.parse import load_track
    t = load_track(path)
    return t.width * t.height * t.layers


def load_bases(tracks: Path) -> dict[str, bytes]:
    """The bundled tracks the mutants start from (tracks/*.toml and tracks/limits/*.toml)."""
    files = sorted(tracks.glob("*.toml")) + sorted(tracks.glob("limits/*.toml"))
    return {str(f.relative_to(tracks)): f.read_bytes() for f in files}


def fuzz(count: int, seed: int, tracks: Path, workdir: Path, main: MainFn | None = None,
         analyze_cells: int | None = None, budget: float | None = None,
         progress: Callable[[int, Summary], None] | None = None) -> Summary:
    """Run `count` seeded mutants of the bundled tracks through validate and analyze."""
    if main is None:
        from racecert.cli import main
    bases = load_bases(tracks)
    summary = Summary()
    t0 = time.perf_counter()
    for i in range(count):
        m = mutant(i, bases, seed)
        found = check(m, workdir, main, analyze_cells, budget, summary)
        summary.mutants += 1
        summary.findings += found
        summary.problems.update(f.problem for f in found)
        if progress is not None:
            progress(i, summary)
    summary.seconds = time.perf_counter() - t0
    return summary
