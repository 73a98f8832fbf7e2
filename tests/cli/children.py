"""Child processes for the signal tests: `python -m tests.cli.children MODE ARGS...`.

Each mode prints ``READY`` on stdout (flushed) at the moment the parent should
strike, then does something long that only a signal ends:

- ``cpsat OUT|-``: `racecert certify` whose only check is a CP-SAT solve of a
  pigeonhole problem (hours for CP-SAT without symmetry reasoning), run through the
  same solver set-up (`cpsat_core.solver`) and helper (`cpsat_solve`) as the real checks;
- ``sat OUT|-``: `racecert certify` whose only check is a proof-logging python-sat
  solve (`sat.run_with_proof`, the helper of both real SAT checks) of a pigeonhole
  CNF, writing its proof into the certify output folder as the real checks do;
- ``drup OUT|-``: `racecert certify` whose only check is a forward DRUP check
  (`racecert.independent.drup.check_drup`, its compiled passes) of a proof that takes
  hours, READY printed at its first progress report;
- ``write PATH``: `write_text_atomic(PATH, ...)` stopped between writing the temp
  file and renaming it (for kill -9).

OUT is passed as ``certify -o OUT``; ``-`` runs certify without an output file.
The modes ``cpsat-timeout`` and ``sat-timeout`` run the same solves with
``--timeout`` of the seconds since the process started plus 0.6, rounded up to a tenth
(printed first on stderr as ``timeout N``: the limit counts from the start of the
process, imports included, which take seconds on a loaded machine; the solver's imports
and the oracle's kernels are loaded before it is counted): no signal from the parent, the
watchdog must stop them.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from racecert.cli.limits import seconds_since_start

if TYPE_CHECKING:  # imported where a check runs: the ``write`` mode needs none of it
    from racecert.certification.certificate import CertifyContext, CheckResult

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "tracks" / "tiny_straight.toml")


def ready() -> None:
    print("READY", flush=True)


def pigeonhole_cpsat(ctx: CertifyContext) -> list[CheckResult]:
    """A CP-SAT solve that runs far longer than the test."""
    from ortools.sat.python import cp_model

    from racecert.certification.certificate import CheckResult
    from racecert.independent.cpsat_core import solver as _solver
    from racecert.independent.interrupt import cpsat_solve

    n = 14
    md = cp_model.CpModel()
    x = [[md.NewBoolVar(f"p{p}h{h}") for h in range(n)] for p in range(n + 1)]
    for p in range(n + 1):
        md.AddBoolOr(x[p])
    for h in range(n):
        for p in range(n + 1):
            for q in range(p + 1, n + 1):
                md.AddBoolOr([x[p][h].Not(), x[q][h].Not()])
    solver = _solver(3600.0, 1)
    solver.parameters.symmetry_level = 0
    ready()
    status = cpsat_solve(solver, md)
    return [CheckResult("m*", 0, "pigeonhole", solver.StatusName(status), "not-applicable",
                        "the solve ended without an interrupt", 0.0)]


def pigeonhole_sat(ctx: CertifyContext) -> list[CheckResult]:
    """A proof-logging SAT solve that runs far longer than the test, its proof in out_dir."""
    from pysat.examples.genhard import PHP

    from racecert.certification.certificate import CheckResult
    from racecert.independent.sat import run_with_proof

    proof = None if ctx.out_dir is None else Path(ctx.out_dir) / "pigeonhole.drup"
    clauses = [list(c) for c in PHP(12).clauses]
    ready()
    run = run_with_proof(clauses, "glucose4", proof)
    return [CheckResult("m*", 0, "pigeonhole", str(run.sat), "not-applicable",
                        "the solve ended without an interrupt", 0.0)]


def long_drup_check(ctx: CertifyContext) -> list[CheckResult]:
    """A forward DRUP check that runs far longer than the test: a chain of implications
    x1 -> x2 -> ... -> xN -> y and the lemmas (-xi y), each RUP only along the chain (some
    N unit propagations each, in the checker's compiled passes). READY comes with the first
    progress report of the forward pass, just before the compiled passes start."""
    from racecert.certification.certificate import CheckResult
    from racecert.independent.drup import check_drup

    n, lemmas = 30_000, 200_000  # some 0.3 ms a lemma: a minute in all
    chain = [[-i, i + 1] for i in range(1, n + 1)]
    proof = "".join(f"-{i} {n + 1} 0\n" for i in range(1, lemmas + 1))
    check_drup([[1, 2], [-1]], ["2 0", "-2 0", "0"])  # numba's cached code loaded first

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "forward" and done == 0:
            ready()

    res = check_drup(chain, proof, mode="forward", progress=progress)
    return [CheckResult("m*", 0, "drup", str(res.verified), "not-applicable",
                        "the check ended without an interrupt", 0.0)]


def certify_with(check, out: str, *extra: str) -> int:
    from racecert.certification import certificate
    from racecert.cli import main

    certificate.default_checks = lambda: [check]
    return main(["certify", TINY, *([] if out == "-" else ["-o", out]), *extra])


def slow_write(path: str) -> None:
    """Write PATH atomically, but stop for good after the data is in the temp file."""
    from racecert.cli import output as output_module

    def stall(fd: int) -> None:
        ready()
        time.sleep(3600)

    output_module.os.fsync = stall  # the module's `os` is the os module: patched for all
    output_module.write_text_atomic(path, "new content\n" * 10_000)


def _preload_solver(mode: str) -> None:
    """Import what certify and the `mode` check import, and load the oracle's compiled
    kernels that certify's two runs on TINY use (from numba's cache: a few tenths of a
    second), before its --timeout is counted out."""
    from racecert.analysis import analyze
    from racecert.model.parse import load_track
    from racecert.oracle.bfs import layered_bfs

    track = load_track(TINY)
    analyze(track, "exact")
    layered_bfs(track, "editor")
    import racecert.certification.certificate  # noqa: F401
    import racecert.cli.certify  # noqa: F401

    if mode == "cpsat":
        import ortools.sat.python.cp_model  # noqa: F401

        import racecert.independent.cpsat  # noqa: F401
        import racecert.independent.interrupt  # noqa: F401
    else:
        import pysat.examples.genhard  # noqa: F401

        import racecert.independent.sat  # noqa: F401


if __name__ == "__main__":
    mode, arg = sys.argv[1], sys.argv[2]
    if mode == "write":
        slow_write(arg)
        sys.exit(0)
    checks = {"cpsat": pigeonhole_cpsat, "sat": pigeonhole_sat, "drup": long_drup_check}
    if mode.endswith("-timeout"):
        # counted from the start of the process: the imports (the solver's own too, done
        # here first, and the oracle's kernels loaded) already took their share (seconds on
        # a loaded machine), so leave the solve 0.6 s beyond them (rounded up to a tenth),
        # where what comes before the solve (certify's set-up of tiny_straight, the
        # watchdog process started, the oracle's two runs with their kernels loaded) takes
        # 0.02 to 0.05 s under a load average of 3.5 on two cores (0.6 s with the kernels
        # still to load, when the solve was left 1.5 s)
        _preload_solver(mode.removesuffix("-timeout"))
        limit = f"{math.ceil((seconds_since_start() + 0.6) * 10) / 10:g}"
        print(f"timeout {limit}", file=sys.stderr, flush=True)
        sys.exit(certify_with(checks[mode.removesuffix("-timeout")], arg, "--timeout", limit))
    sys.exit(certify_with(checks[mode], arg))
