"""Where an asynchronous stop may be raised: `interrupt_would_be_lost(frame)`.

A Python signal handler runs in whatever Python code the main thread is executing, and
an exception it raises there is not always the exception the run sees:

- numba compiles a kernel on its first call (and links a cached one on later runs)
  through llvmlite, whose native code calls back into Python (ctypes callbacks, the
  object cache, finalizers); an exception raised inside such a callback is printed as
  "Exception ignored" and dropped, or leaves the compiler half done (a `RuntimeError`
  "no compiled object yet" later, or a crash);
- an exception raised inside a `__del__` method is dropped the same way.

The limits' handler (`racecert.cli.limits.Watchdog`) asks this module first and, where
the stop would be lost, waits for the watchdog's next signal, a few hundredths of a
second later, which lands once the compiler has returned.

>>> import sys
>>> interrupt_would_be_lost(sys._getframe())
False
"""

from __future__ import annotations

import os
import sys
from types import FrameType

FRAGILE_PACKAGES = ("numba", "llvmlite")
"""Packages whose Python code runs inside native callbacks that drop exceptions."""


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
    some frame of the stack is code of numba or llvmlite, or a `__del__` method."""
    folders = _fragile_folders()
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (folders and code.co_filename.startswith(folders)):
            return True
        frame = frame.f_back
    return False
