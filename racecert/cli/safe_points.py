"""Where an asynchronous stop may be raised: `interrupt_would_be_lost(frame)`.

A Python signal handler runs in whatever Python code the main thread is executing, and
an exception it raises there is not always the exception the run sees:

- numba compiles a kernel on its first call (and links a cached one on later runs)
  through llvmlite, whose native code calls back into Python (ctypes callbacks, the
  object cache, finalizers); an exception raised inside such a callback is printed as
  "Exception ignored" and dropped, or leaves the compiler half done (a `RuntimeError`
  "no compiled object yet" later, or a crash);
- an exception raised inside a `__del__` method is dropped the same way, and so is one
  raised inside a weak reference's callback, which the interpreter runs wherever the
  garbage collector happens to free the referent: the import system's module-lock
  callback (`_get_module_lock`'s `cb`, run as an import finishes) and
  `weakref.finalize` callbacks (seen: a `--timeout` stop printed as "Exception ignored
  in: <function _get_module_lock.<locals>.cb>", and the run went on to exit 0).

The limits' handler (`racecert.cli.limits.Watchdog`) asks this module first and, where
the stop would be lost, waits for the watchdog's next signal, a few hundredths of a
second later, which lands once the compiler has returned; `DeferredCtrlC` does the same
for Ctrl-C, sending SIGINT again itself.

>>> import sys
>>> interrupt_would_be_lost(sys._getframe())
False
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

FRAGILE_PACKAGES = ("numba", "llvmlite")
"""Packages whose Python code runs inside native callbacks that drop exceptions."""

CALLBACKS = {("<frozen importlib._bootstrap>", "cb"), ("weakref.py", "__call__")}
"""(file name, function) of weak-reference callbacks the garbage collector may run at
any point (the file name's last component, or the frozen module's name)."""


def _fragile_folders() -> tuple[str, ...]:
    """The folders of the fragile packages that are imported (code of a package that is
    not imported cannot be on the stack)."""
    folders = []
    for name in FRAGILE_PACKAGES:
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if path:
            folders.append(os.path.dirname(os.path.abspath(path)) + os.sep)
    return tuple(folders)


def interrupt_would_be_lost(frame: FrameType | None) -> bool:
    """Whether an exception raised in `frame` could be dropped before it reaches the run:
    some frame of the stack is code of numba or llvmlite, a `__del__` method, or a weak
    reference's callback (`CALLBACKS`)."""
    folders = _fragile_folders()
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (folders and code.co_filename.startswith(folders)):
            return True
        if (os.path.basename(code.co_filename), code.co_name) in CALLBACKS \
                or (code.co_filename, code.co_name) in CALLBACKS:
            return True
        frame = frame.f_back
    return False


RESEND_SECONDS = 0.05
"""How soon a Ctrl-C that fell where it would be lost is delivered again."""


class DeferredCtrlC:
    """Within the block, a Ctrl-C (SIGINT) that falls where a KeyboardInterrupt would be
    lost (`interrupt_would_be_lost`: numba compiling a kernel, a `__del__`) is not raised
    there: SIGINT is sent again `RESEND_SECONDS` later, until it lands where the run sees
    it, so one Ctrl-C always stops the run (the limits' own signals wait the same way).
    Only where SIGINT has Python's default handler and in the main thread; elsewhere (a
    run started with SIGINT ignored, a handler of the caller's) nothing changes."""

    def __init__(self) -> None:
        self._previous: object = None
        self._active = False
        self._timer: threading.Timer | None = None

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if not interrupt_would_be_lost(frame):
            raise KeyboardInterrupt
        if self._timer is None or not self._timer.is_alive():
            self._timer = threading.Timer(RESEND_SECONDS, self._resend)
            self._timer.daemon = True
            self._timer.start()

    def _resend(self) -> None:
        if self._active:  # from the timer's thread: the signal goes to the process
            os.kill(os.getpid(), signal.SIGINT)

    def __enter__(self) -> DeferredCtrlC:
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._handler)
            self._active = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._active:
            self._active = False
            signal.signal(signal.SIGINT, self._previous)  # type: ignore[arg-type]
