"""Ctrl-C during a native solver: stop the search and raise KeyboardInterrupt.

Both native solvers take SIGINT away from Python:

- OR-Tools' CP-SAT, with its default parameter ``catch_sigint_signal = True``,
  installs its own SIGINT handler for the solve, stops the search quietly (the
  status then reads like a time limit) and afterwards restores the *C default*
  handler, not Python's: the next Ctrl-C kills the process without a word.
  `cpsat_solve` turns that parameter off and runs the solve in a worker thread;
  the main thread waits in short slices, so Python's own handler raises
  KeyboardInterrupt there; the search is then stopped through the solver's
  interrupt API (``stop_search``), the worker is waited for, and the
  KeyboardInterrupt goes on.
- python-sat's solvers catch SIGINT during ``solve()`` and raise their own
  ``pysolvers.error("Caught keyboard interrupt")``; `pysat_interrupts` turns it
  back into KeyboardInterrupt.

This module imports only the solver libraries: it belongs with the encodings.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

WAIT_SLICE = 0.1
"""Seconds the main thread waits at a time for the solver thread (so Ctrl-C is seen)."""


def cpsat_solve(solver: Any, model: Any, callback: Any = None) -> Any:
    """`solver.Solve(model, callback)`, stoppable by Ctrl-C (KeyboardInterrupt).

    The solver's ``catch_sigint_signal`` parameter is set to False here, whatever
    the caller set: otherwise CP-SAT swallows Ctrl-C.
    """
    solver.parameters.catch_sigint_signal = False
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["status"] = solver.Solve(model, callback)
        except BaseException as exc:  # handed to the main thread below
            outcome["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="cp-sat solve", daemon=True)
    worker.start()
    try:
        while not done.wait(WAIT_SLICE):
            pass
    except KeyboardInterrupt:
        _stop(solver, done)
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"]


def _stop(solver: Any, done: threading.Event) -> None:
    """Ask the search to stop until the worker has finished (a stop asked before the
    search began would be lost, hence the loop); a second Ctrl-C does not abandon it."""
    while not done.is_set():
        try:
            solver.stop_search()
            done.wait(WAIT_SLICE)
        except KeyboardInterrupt:
            continue


@contextmanager
def pysat_interrupts() -> Iterator[None]:
    """Within the block, python-sat's "Caught keyboard interrupt" error is KeyboardInterrupt."""
    try:
        yield
    except Exception as exc:
        if type(exc).__module__ == "pysolvers" and "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise
