"""The watchdog process of `racecert.cli.limits`: the timeout and the memory left, watched
from outside the run.

`python -I -S watchdog.py PARENT SPEC` watches the process PARENT every `SLICE` seconds:

- at SPEC's ``deadline`` (a `time.monotonic` value: the clock is the machine's, the same
  in both processes) it sends PARENT `TIMEOUT_SIGNAL`;
- when the memory available now (`room` of SPEC's ``levels``: MemAvailable and each
  cgroup level's limit less its working set) falls below SPEC's ``reserve`` bytes plus
  twice what the last slice took (`running_low`), it sends `MEMORY_SIGNAL`, so that the
  run stops with one line before the kernel's out-of-memory killer ends it (or another
  process) with SIGKILL.

Once a limit is reached it sends that signal again every `SLICE` until PARENT is gone or
ends the watch (it kills this process): the run's handler defers the stop while the
interrupted code cannot take an exception (numba compiling or loading a kernel, where
Python runs inside the compiler's native callbacks) and acts on a later signal. It exits
as soon as PARENT is gone (never signalling a process that merely reused the number). It
is a process, not a thread, because a native solve holding the interpreter lock would
keep a thread from running; and its signals are its own, not SIGINT, so that a run
started with SIGINT ignored (``nohup``, a background job of a shell without job control,
``trap "" INT``) still stops. The handlers that turn the signals into the run's one-line
limit are installed by `racecert.cli.limits.run_limits`.

This file imports only the standard library, so that the process starts in a few
milliseconds; `racecert.cli.limits` imports `room` from it, so that the run and the
watchdog measure the memory available the same way.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time

TIMEOUT_SIGNAL = signal.SIGUSR1
MEMORY_SIGNAL = signal.SIGUSR2
SLICE = 0.05
"""Seconds between two looks (a run that takes more than the reserve in one slice, after
a slower one, can still outrun it; `--max-memory`'s address-space cap bounds a single run
regardless)."""


def read(path: str) -> str | None:
    """The text of `path`, or None where it cannot be read."""
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return None


def meminfo(key: str, text: str | None) -> int | None:
    """The /proc/meminfo (or /proc/self/status) field `key` in bytes, or None."""
    m = None if text is None else re.search(rf"^{key}:\s+(\d+)\s*kB", text, re.MULTILINE)
    return None if m is None else int(m.group(1)) * 1024


def working_set(usage_file: str, stat_file: str, key: str) -> int | None:
    """A cgroup's memory in use that the kernel cannot simply drop: its usage less the
    inactive file cache (`key` in its memory.stat), as container runtimes count it; a
    cgroup's usage alone grows with the page cache up to its limit."""
    usage = read(usage_file)
    if usage is None or not usage.strip().isdigit():
        return None
    stat = read(stat_file) or ""
    m = re.search(rf"^{key} (\d+)$", stat, re.MULTILINE)
    inactive = 0 if m is None else int(m.group(1))
    return max(int(usage) - inactive, 0)


def room(levels: list[list], meminfo_file: str = "/proc/meminfo") -> tuple[int | None, str]:
    """(bytes available now, what binds): the least of MemAvailable and, for each cgroup
    level ``[limit, usage file, stat file, inactive key, folder]``, its limit less its
    working set; (None, "") where nothing can be read."""
    best, what = meminfo("MemAvailable", read(meminfo_file)), "the machine (MemAvailable)"
    for limit, usage_file, stat_file, key, folder in levels:
        used = working_set(usage_file, stat_file, key)
        if used is None:
            continue
        left = max(int(limit) - used, 0)
        if best is None or left < best:
            best, what = left, f"the cgroup {folder}"
    return best, ("" if best is None else what)


def running_low(left: int, before: int | None, reserve: int) -> bool:
    """Whether `left` bytes available (`before` one slice earlier, None at the first look)
    is too little: below the reserve plus twice what the last slice took. A run (or two
    sharing a cgroup) writing a large array can take more than the reserve in one slice,
    and a run inside a compiled kernel acts on the signal only when the kernel returns to
    Python; with the margin for that speed, two more slices like the last still leave the
    reserve, and the signal comes before the kernel's out-of-memory killer (one slice's
    margin still lost two runs in eight sharing an 800 MiB cgroup to it; two, none in 18).

    >>> running_low(100, None, 64), running_low(60, None, 64)
    (False, True)
    >>> running_low(250, 400, 64), running_low(250, 270, 64)
    (True, False)
    """
    taken = 0 if before is None else max(before - left, 0)
    return left < reserve + 2 * taken


def watch(parent: int, spec: dict) -> None:
    """Watch `parent` as the module docstring says, until it is signalled or gone."""
    deadline, reserve, levels = spec.get("deadline"), spec.get("reserve"), spec["levels"]
    fired: int | None = None
    before: int | None = None
    while os.getppid() == parent:
        now = time.monotonic()
        if fired is None and deadline is not None and now >= deadline:
            fired = TIMEOUT_SIGNAL
        if fired is None and reserve is not None:
            left, _ = room(levels)
            if left is not None and running_low(left, before, reserve):
                fired = MEMORY_SIGNAL
            before = left
        if fired is not None:
            os.kill(parent, fired)
            time.sleep(SLICE)
            continue
        time.sleep(SLICE if deadline is None else min(SLICE, max(deadline - now, 0.0)))


if __name__ == "__main__":
    watch(int(sys.argv[1]), json.loads(sys.argv[2]))
