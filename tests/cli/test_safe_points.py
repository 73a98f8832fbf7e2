"""The limits' stop is never raised where it would be lost (`racecert.cli.safe_points`):
inside numba's compiler, whose native callbacks drop exceptions, or a `__del__` method.
Before this, a `--timeout` that fell while numba compiled a kernel (a fresh install) was
printed as "Exception ignored" and the run went on to exit 0, or crashed."""

from __future__ import annotations

import os
import sys
import time
from types import FrameType

import numba
import pytest

from racecert.cli.limits import LimitInterrupt, Watchdog
from racecert.cli.safe_points import interrupt_would_be_lost


def frame_in(filename: str) -> FrameType:
    """A frame (with this test's frames below it) of code that claims to be `filename`."""
    space: dict[str, object] = {}
    exec(compile("import sys\nframe = sys._getframe()", filename, "exec"), space)
    frame = space["frame"]
    assert isinstance(frame, FrameType)
    return frame


def test_ordinary_code_can_take_the_stop() -> None:
    assert not interrupt_would_be_lost(sys._getframe())
    assert not interrupt_would_be_lost(frame_in(os.path.join(os.getcwd(), "work.py")))
    assert not interrupt_would_be_lost(None)


def test_numbas_compiler_cannot() -> None:
    folder = os.path.dirname(os.path.abspath(numba.__file__))
    assert interrupt_would_be_lost(frame_in(os.path.join(folder, "core", "compiler.py")))


def test_a_finalizer_below_on_the_stack_cannot() -> None:
    seen: list[bool] = []

    class Finalized:
        def __del__(self) -> None:
            seen.append(interrupt_would_be_lost(sys._getframe()))

    Finalized()
    assert seen == [True]


def test_a_weak_reference_callback_cannot() -> None:
    """The import system's module-lock callback (where a stop was once dropped, and the
    run exited 0) and a `weakref.finalize` callback, both run by the garbage collector."""
    import weakref

    space: dict[str, object] = {}
    exec(compile("import sys\ndef cb():\n    return sys._getframe()\n",
                 "<frozen importlib._bootstrap>", "exec"), space)
    assert interrupt_would_be_lost(space["cb"]())  # type: ignore[operator]
    seen: list[bool] = []

    class Referent:
        pass

    r = Referent()
    weakref.finalize(r, lambda: seen.append(interrupt_would_be_lost(sys._getframe())))
    del r
    assert seen == [True]
    assert not interrupt_would_be_lost(frame_in("<frozen importlib._bootstrap>"))


def test_the_stop_waits_until_the_compiler_has_returned() -> None:
    """The timeout falls while fragile code runs (a `__del__` here, as in llvmlite's
    finalizers): nothing is raised there; the watchdog's next signal, once that code has
    returned, stops the run."""
    finished_inside: list[bool] = []

    class Fragile:
        def __del__(self) -> None:
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                time.sleep(0.01)
            finished_inside.append(True)

    dog = Watchdog(time.monotonic() + 0.2, None, [])
    with pytest.raises(LimitInterrupt), dog:
        Fragile()
        for _ in range(200):
            time.sleep(0.05)
    assert finished_inside == [True]
    assert dog.fired == "timeout"


def test_a_ctrl_c_inside_fragile_code_waits_until_it_has_returned() -> None:
    """Ctrl-C (SIGINT) while fragile code runs: nothing is raised there; SIGINT comes
    again a moment later and stops the run once that code has returned."""
    import signal

    from racecert.cli.safe_points import DeferredCtrlC

    finished_inside: list[bool] = []

    class Fragile:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            end = time.monotonic() + 0.5
            while time.monotonic() < end:
                time.sleep(0.01)
            finished_inside.append(True)

    with pytest.raises(KeyboardInterrupt), DeferredCtrlC():
        Fragile()
        for _ in range(200):
            time.sleep(0.05)
    assert finished_inside == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_the_guard_the_ctrl_c_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The corruption the guard prevents: with Python's own handler, the KeyboardInterrupt
    raised inside the finalizer is dropped ("Exception ignored") and the run goes on."""
    import signal

    dropped: list[type[BaseException]] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))

    class Fragile:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    Fragile()
    time.sleep(0.1)
    went_on = True  # reached: the Ctrl-C did not stop the run
    assert went_on and dropped == [KeyboardInterrupt]
