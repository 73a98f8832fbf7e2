"""Ctrl-C (SIGINT) during a native solver: exit 130, one line, no traceback, no files left.

Each test starts `tests/cli/children.py` in a subprocess, waits for its READY line
(printed just before a solve that would run for hours), sends SIGINT and expects
the process to end with status 130. There is no timing assertion: the only
timeout is a generous safety net that turns a hang into a failure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAFETY_TIMEOUT = 300  # seconds; a hang fails the test instead of blocking the suite


def run_and_interrupt(mode: str, out: str, tmpdir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))
    proc = subprocess.Popen([sys.executable, "-m", "tests.cli.children", mode, out],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "READY", (line, proc.stderr.read() if proc.poll() else "")
        # let the solve begin (an earlier SIGINT must work as well): READY comes just before
        # it, after the model is built (milliseconds from the native call, tens of them on a
        # loaded machine), so 0.15 s is well inside the native call; the child's solver burns
        # CPU until the signal
        time.sleep(0.15)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=SAFETY_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def assert_interrupted(res: subprocess.CompletedProcess) -> None:
    assert res.returncode == 130, res.stderr
    assert "Traceback" not in res.stderr and "Error" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines()[-1] == "interrupted"
    assert res.stdout.strip() == ""  # no certificate table printed


@pytest.mark.parametrize("mode", ["cpsat", "sat"])
def test_ctrl_c_during_solver_with_out(mode: str, tmp_path: Path) -> None:
    """With -o: no certificate, no proof, no staging folder is left in the output folder."""
    out_dir, tmpdir = tmp_path / "out", tmp_path / "tmp"
    out_dir.mkdir()
    tmpdir.mkdir()
    res = run_and_interrupt(mode, str(out_dir / "cert.json"), tmpdir)
    assert_interrupted(res)
    assert list(out_dir.iterdir()) == []
    assert list(tmpdir.iterdir()) == []


@pytest.mark.parametrize("mode", ["sat", "drup"])
def test_ctrl_c_during_solver_without_out(mode: str, tmp_path: Path) -> None:
    """Without -o: nothing is left in the temp folder (no sat-* proof folders: the SAT
    check writes its proof there when there is no output folder). "drup": the DRUP
    checker's compiled passes return to Python between calls of bounded work, so a Ctrl-C
    stops a check that would run for hours. (CP-SAT writes no file with or without -o:
    its Ctrl-C, and the empty temp folder after it, are the -o test's.)"""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    res = run_and_interrupt(mode, "-", tmpdir)
    assert_interrupted(res)
    assert list(tmpdir.iterdir()) == []


def test_cpsat_solve_turns_off_cpsat_sigint_handler() -> None:
    """cpsat_solve sets catch_sigint_signal = False (else CP-SAT swallows Ctrl-C and then
    leaves SIGINT at the C default, which kills the process silently)."""
    from ortools.sat.python import cp_model

    from racecert.independent.cpsat_core import solver as _solver
    from racecert.independent.interrupt import cpsat_solve

    md = cp_model.CpModel()
    x = md.NewIntVar(0, 5, "x")
    md.Add(x >= 3)
    solver = _solver(10.0, 1)
    assert solver.parameters.catch_sigint_signal  # OR-Tools' default, turned off below
    assert cpsat_solve(solver, md) == cp_model.OPTIMAL and solver.Value(x) >= 3
    assert solver.parameters.catch_sigint_signal is False
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_pysat_interrupts_maps_only_the_interrupt_error() -> None:
    """python-sat's own 'Caught keyboard interrupt' error becomes KeyboardInterrupt; other
    errors pass through unchanged."""
    import pysolvers

    from racecert.independent.interrupt import pysat_interrupts

    with pytest.raises(KeyboardInterrupt), pysat_interrupts():
        raise pysolvers.error("Caught keyboard interrupt")
    with pytest.raises(pysolvers.error), pysat_interrupts():
        raise pysolvers.error("something else")
    with pytest.raises(ValueError), pysat_interrupts():
        raise ValueError("keyboard interrupt")
