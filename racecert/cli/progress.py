"""Progress on stderr: a tqdm bar on a terminal, plain occasional lines in a log.

A tqdm bar redraws itself with carriage returns and cursor escapes; in a
redirected stderr (a log file, a CI job) those bytes only garble the log. So
`progress` returns a tqdm bar only when the stream is a terminal, and otherwise
a `PlainProgress` that writes whole lines (ending in a newline, nothing else),
at most one every `PLAIN_INTERVAL` seconds and only once the run has lasted
`delay` seconds, so that short runs stay silent in both cases.
"""

from __future__ import annotations

import sys
import time
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
                 delay: float | None = None, interval: float | None = None) -> None:
        self.desc, self.unit, self.total, self.stream = desc, unit, total, stream
        self.delay = DELAY if delay is None else delay
        self.interval = PLAIN_INTERVAL if interval is None else interval
        self.n = 0
        self.postfix = ""
        self.started = time.monotonic()
        self.last: float | None = None

    def line(self) -> str:
        """The line this progress would print now."""
        count = f"{self.n}/{self.total}" if self.total is not None else str(self.n)
        return (f"{self.desc} ({count}{self.unit}"
                + (f"; {self.postfix})" if self.postfix else ")"))

    def _maybe_print(self) -> None:
        now = time.monotonic()
        if now - self.started < self.delay:
            return
        if self.last is not None and now - self.last < self.interval:
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
