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
  back into KeyboardInterrupt. A budgeted solve (`pysat_solve_limited`) runs in a
  worker thread with ``expect_interrupt=True`` instead, like CP-SAT above: a
  SIGINT that lands just before the native call (where the solver's own handler
  is not yet installed) would otherwise only be seen when the budget runs out.

This module imports only the solver libraries: it belongs with the encodings.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

WAIT_SLICE = 0.1
"""Seconds the main thread waits at a time for the solver thread (so Ctrl-C is seen)."""


def _stoppable(call: Callable[[], Any], stop: Callable[[], None], name: str) -> Any:
    """Run `call()` in a worker thread; on KeyboardInterrupt in the main thread, call
    `stop()` until the worker has finished (a stop asked before the search began would be
    lost, hence the loop; a second Ctrl-C does not abandon it), then re-raise."""
    done = threading.Event()
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the main thread below
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name=name, daemon=True).start()
    try:
        while not done.wait(WAIT_SLICE):
            continue
    except KeyboardInterrupt:
        while not done.is_set():
            try:
                stop()
                done.wait(WAIT_SLICE)
            except KeyboardInterrupt:
                continue
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def cpsat_solve(solver: Any, model: Any, callback: Any = None) -> Any:
    """`solver.Solve(model, callback)`, stoppable by Ctrl-C (KeyboardInterrupt).

    The solver's ``catch_sigint_signal`` parameter is set to False here, whatever
    the caller set: otherwise CP-SAT swallows Ctrl-C.
    """
    solver.parameters.catch_sigint_signal = False
    return _stoppable(lambda: solver.Solve(model, callback), solver.stop_search, "cp-sat solve")


def pysat_solve_limited(solver: Any) -> bool | None:
    """`solver.solve_limited()` (its conflict budget set by the caller), stoppable by
    Ctrl-C through ``solver.interrupt()``."""
    return _stoppable(lambda: solver.solve_limited(expect_interrupt=True), solver.interrupt,
                      "sat solve")


@contextmanager
def pysat_interrupts() -> Iterator[None]:
    """Within the block, python-sat's "Caught keyboard interrupt" error is KeyboardInterrupt."""
    try:
        yield
    except Exception as exc:
        if type(exc).__module__ == "pysolvers" and "keyboard interrupt" in str(exc).lower():
            raise KeyboardInterrupt from None
        raise
