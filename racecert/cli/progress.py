"""Progress on stderr: a tqdm bar on a terminal, plain occasional lines in a log.

A tqdm bar redraws itself with carriage returns and cursor escapes; in a
redirected stderr (a log file, a CI job) those bytes only garble the log. So
`progress` returns a tqdm bar only when the stream is a terminal, and otherwise
a `PlainProgress` that writes whole lines (ending in a newline, nothing else),
at most one every `PLAIN_INTERVAL` seconds and only once the run has lasted
`delay` seconds, so that short runs stay silent in both cases.

A long step that makes no progress calls (one CP-SAT solve, one SAT solve) would leave a
log silent for minutes; a `Heartbeat` calls a function every few seconds from a daemon
thread until stopped, so a display can print (or redraw) the running step, its elapsed
time and its estimate while the work itself reports nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any, Protocol, TextIO

from tqdm import tqdm

DELAY = 2.0
"""Seconds before any progress is shown (short runs show none)."""
PLAIN_INTERVAL = 30.0
"""Least seconds between two plain progress lines."""


class Progress(Protocol):
    """The part of tqdm's interface the subcommands use."""

    n: int

    def update(self, n: int = 1) -> Any: ...
    def set_description(self, desc: str | None = None, refresh: bool = True) -> None: ...
    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True,
                    **kwargs: Any) -> None: ...
    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None: ...
    def close(self) -> None: ...


class PlainProgress:
    """Progress as whole lines: ``desc (n/total unit; postfix)``; no ``\\r``, no escapes."""

    def __init__(self, desc: str, unit: str, total: int | None, stream: TextIO,
                 delay: float | None = None, interval: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.desc, self.unit, self.total, self.stream = desc, unit, total, stream
        self.delay = DELAY if delay is None else delay
        self.interval = PLAIN_INTERVAL if interval is None else interval
        self.clock = clock
        self.n = 0
        self.postfix = ""
        self.started = clock()
        self.last: float | None = None

    def line(self) -> str:
        """The line this progress would print now."""
        count = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        return (f"{self.desc} ({count}{self.unit}"
                + (f"; {self.postfix})" if self.postfix else ")"))

    def _maybe_print(self, force: bool = False) -> None:
        now = self.clock()
        if now - self.started < self.delay:
            return
        if not force and self.last is not None and now - self.last < self.interval:
            return
        self.last = now
        with suppress(OSError, ValueError):  # a closed or broken stderr must not stop the work
            print(self.line(), file=self.stream, flush=True)

    def update(self, n: int = 1) -> None:
        self.n += n
        self._maybe_print()

    def set_description(self, desc: str | None = None, refresh: bool = True) -> None:
        self.desc = desc or ""
        self._maybe_print()

    def set_postfix(self, ordered_dict: Any = None, refresh: bool = True, **kwargs: Any) -> None:
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v}" for k, v in items.items())

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = s

    def refresh(self) -> None:
        """Print the current line if the interval allows (as tqdm redraws on refresh)."""
        self._maybe_print()

    def print_now(self) -> None:
        """Print the current line now (once the `delay` has passed), whatever the interval:
        what a `Heartbeat` calls."""
        self._maybe_print(force=True)

    def close(self) -> None:
        """Nothing to erase: every line printed is complete."""

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is an interactive terminal (False for files, pipes, closed streams)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress(desc: str, unit: str = "", total: int | None = None,
             stream: TextIO | None = None) -> Progress:
    """A tqdm bar when `stream` (default stderr) is a terminal, else a `PlainProgress`.

    Both wait `DELAY` seconds (read at each call) before showing anything.
    """
    out = sys.stderr if stream is None else stream
    if is_terminal(out):
        return tqdm(desc=desc, unit=unit, total=total, delay=DELAY, file=out, leave=False)
    return PlainProgress(desc, unit, total, out)


class Heartbeat:
    """Call `beat()` every `interval` seconds from a daemon thread until `stop()` (or the
    end of a `with` block). A beat that raises is ignored: a display must never stop the
    work it shows."""

    def __init__(self, interval: float, beat: Callable[[], None]) -> None:
        self.interval, self.beat = interval, beat
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="progress-heartbeat",
                                        daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            with suppress(Exception):
                self.beat()

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)

    def __enter__(self) -> Heartbeat:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
