"""Resource limits of `analyze` and `certify`: `--max-states`, `--max-memory`, `--timeout`.

A run that reaches a limit stops with one line naming the limit and what was reached,
and exit status 4 (`EXIT_LIMIT`), never an out-of-memory kill or a traceback:

- `--max-states N` is a `StateBudget` that every search of the oracle checks after each
  layer or round (`racecert.model.budget`): deterministic, the same track stops at the
  same place on any machine.
- `--max-memory SIZE` caps the process's address space (`RLIMIT_AS`), so an allocation
  past it fails inside the process (numpy's `MemoryError`) instead of drawing the
  kernel's out-of-memory killer. The default lets the run grow by 75 % of the memory
  available when it starts: the least of `MemAvailable` in /proc/meminfo and, at every
  level of the process's own memory cgroup up to the mount's root (v2 or v1, from
  /proc/self/cgroup and /proc/self/mounts), the limit less the working set there.
  Address space counts a little more than resident memory.
- Since several runs (or other programs) can each count on the same free memory, the
  watchdog process also watches the memory available now and stops the run, with one
  line, when less than `reserve` is left; a run that starts with less than that does
  not start. Both are exit status 4, not the out-of-memory killer's 137.
- `--timeout S` is a wall-clock limit for the person waiting, counted from the start of
  the process (its start time in /proc/self/stat; where that cannot be read, from the
  moment this module was imported): the watchdog process sends its own signal
  (`racecert.cli.watchdog`, again every few hundredths of a second until the run ends),
  whose handler raises `LimitInterrupt`, a KeyboardInterrupt, once, where it cannot be
  lost (not while numba compiles a kernel: `racecert.cli.safe_points`),
  so that it stops the run the way Ctrl-C does (also inside a CP-SAT or SAT solve),
  whatever SIGINT's disposition (a run started with SIGINT ignored still stops). It is
  allowed beside the deterministic budgets because it never changes a figure: it only
  ends the run, with no output written.

`run_limits(args)` applies the memory cap and the watchdog around the work and turns
what they cause (`MemoryError`, the watchdog's signals) into `LimitReached`, whose
message the top level prints (`racecert.cli.main`). The previous address-space limit and
signal handlers are restored afterwards, so the limits of one in-process call do not
outlive it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

try:
    import resource
except ImportError:  # not on Windows: no memory cap there
    resource = None  # type: ignore[assignment]

from racecert.cli import watchdog as watchdog_script
from racecert.cli.safe_points import DeferredCtrlC, interrupt_would_be_lost
from racecert.model.budget import LimitReached, StateBudget

IMPORTED = time.monotonic()
"""When this module was imported: the start of the run where the process's own start
time cannot be read."""

EXIT_LIMIT = 4
MEMORY_DEFERRALS = 4
"""Watchdog signals (one per `watchdog.SLICE`, 50 ms) that the memory limit's stop waits for
fragile code to return before it is raised anyway (`Watchdog._handler`)."""
MAX_STATES = 10**11
"""Largest --max-states: beyond the memory of any machine (some 100 bytes per state)."""
MIN_MEMORY, MAX_MEMORY = 64 * 2**20, 2**50
"""--max-memory from 64 MiB to 1 PiB."""
MAX_TIMEOUT = 10**7
"""Largest --timeout in seconds (some 116 days)."""
DEFAULT_SHARE = 0.75
"""Share of the available memory the default --max-memory lets the run add."""
MIN_RESERVE, MAX_RESERVE = 64 * 2**20, 256 * 2**20
"""The memory the watchdog keeps free: 4 % of the tightest limit (the machine's memory or
a cgroup's), at least 64 MiB and at most 256 MiB (two runs sharing a 1.2 GiB cgroup came
within 7 MiB of its limit with a reserve of 32 MiB)."""

UNITS = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50}


def memory_size(text: str) -> int:
    """An argparse type: a size in bytes from ``2G``, ``512M``, ``1.5GiB``, ``100000000``
    (K, M, G, T, P are powers of 1024), from `MIN_MEMORY` to `MAX_MEMORY`."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*", text.lower())
    if m is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 2G, 512M, 1.5GiB)")
    size = int(float(m.group(1)) * UNITS[m.group(2)])
    if not MIN_MEMORY <= size <= MAX_MEMORY:
        raise argparse.ArgumentTypeError(
            f"{text} is out of range: a size from {format_bytes(MIN_MEMORY)} to "
            f"{format_bytes(MAX_MEMORY)}")
    return size


def format_bytes(n: float) -> str:
    """``1.5 GiB``, ``512 MiB``, ``64 KiB``: binary units, at most one decimal."""
    for unit, size in (("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20),
                       ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + f" {unit}"
    return f"{int(n)} bytes"


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add --max-states, --max-memory and --timeout (each with its allowed range)."""
    from racecert.cli.arguments import integer, seconds

    parser.add_argument("--max-states", metavar="N", type=integer(1, MAX_STATES,
                                                                  "a number of states"),
                        help="stop (exit 4) when a search stores more than N states: a "
                             "deterministic limit, the same on any machine (default: none)")
    parser.add_argument("--max-memory", metavar="SIZE", type=memory_size,
                        help="stop (exit 4) when the process needs more address space than "
                             "SIZE, e.g. 2G or 512M (default: what it holds plus 75 %% of "
                             "the memory available when it starts)")
    parser.add_argument("--timeout", metavar="S", type=seconds(0.0, MAX_TIMEOUT),
                        help="stop (exit 4) S seconds of wall time after the process started "
                             "(loading included); it only ends the run, never changes a "
                             "figure (default: none)")


# -- what the machine has --------------------------------------------------------------------


def _read(path: str) -> str | None:
    """The text of `path`, or None (the watchdog's reader: one way of reading for both)."""
    return watchdog_script.read(path)


def _meminfo(key: str, text: str) -> int | None:
    """The /proc/meminfo or /proc/self/status field `key` in bytes, or None."""
    return watchdog_script.meminfo(key, text)


V2_FILES = ("memory.max", "memory.current", "memory.stat", "inactive_file")
V1_FILES = ("memory.limit_in_bytes", "memory.usage_in_bytes", "memory.stat",
            "total_inactive_file")
NO_LIMIT = 2**60
"""At or above this a cgroup limit means none (v1 writes 9223372036854771712)."""


def cgroup_mounts(mounts: str) -> tuple[str | None, str | None]:
    """(cgroup v2 mount point, cgroup v1 memory controller's mount point) from the text
    of /proc/self/mounts; None for one not mounted."""
    v2 = v1 = None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        point, fstype, options = fields[1], fields[2], fields[3].split(",")
        if fstype == "cgroup2" and v2 is None:
            v2 = point
        elif fstype == "cgroup" and "memory" in options and v1 is None:
            v1 = point
    return v2, v1


def cgroup_levels(cgroup: str, mounts: str) -> list[list]:
    """The memory limits over this process, one ``[limit, usage file, stat file, inactive
    key, folder]`` per level that has one, from its own cgroup up to the mount's root:
    the process's cgroups from the text of /proc/self/cgroup (v2 ``0::/path``, v1
    ``N:memory:/path``), their folders under the mount points in `mounts` (the text of
    /proc/self/mounts). A cgroup may be limited by an ancestor only, and the tightest
    level need not be the innermost: every level is kept, `watchdog.room` takes the
    least room. A level whose folder is missing (a path of another cgroup namespace) is
    skipped; the walk still reaches the mount's root, which is then the container's."""
    v2_root, v1_root = cgroup_mounts(mounts)
    levels: list[list] = []
    for line in cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "" and v2_root is not None:
            root, files = v2_root, V2_FILES
        elif "memory" in controllers.split(",") and v1_root is not None:
            root, files = v1_root, V1_FILES
        else:
            continue
        folder = Path(root, path.strip().lstrip("/"))
        while True:
            limit = _read(str(folder / files[0]))
            if limit is not None and limit.strip().isdigit() and int(limit) < NO_LIMIT:
                levels.append([int(limit), str(folder / files[1]), str(folder / files[2]),
                               files[3], str(folder)])
            if folder == Path(root) or folder.parent == folder:
                break
            folder = folder.parent
    return levels


def own_cgroup_levels() -> list[list]:
    """`cgroup_levels` of this process ([] where /proc cannot be read)."""
    cgroup, mounts = _read("/proc/self/cgroup"), _read("/proc/self/mounts")
    return [] if cgroup is None or mounts is None else cgroup_levels(cgroup, mounts)


def memory_now(levels: list[list] | None = None) -> tuple[int | None, str]:
    """(bytes available now, what binds: the machine or a cgroup folder), or (None, "")
    where neither can be read; `levels` defaults to this process's own cgroups."""
    return watchdog_script.room(own_cgroup_levels() if levels is None else levels)


def available_memory() -> int | None:
    """Bytes this process can still be given: the least of MemAvailable and the room of
    each level of its own memory cgroups (`memory_now`); None where neither is known."""
    return memory_now()[0]


def reserve(levels: list[list]) -> int:
    """The memory the watchdog keeps free (`MIN_RESERVE`, `MAX_RESERVE`)."""
    total = _meminfo("MemTotal", _read("/proc/meminfo") or "")
    limits = [lvl[0] for lvl in levels] + ([] if total is None else [total])
    tightest = min(limits) if limits else MAX_RESERVE * 50
    return max(MIN_RESERVE, min(MAX_RESERVE, tightest // 25))


def seconds_since_start() -> float:
    """Seconds since this process started: /proc/uptime less its start time in
    /proc/self/stat (both since boot), else since this module was imported."""
    stat, uptime = _read("/proc/self/stat"), _read("/proc/uptime")
    try:
        ticks = int(stat.rsplit(")", 1)[1].split()[19])  # type: ignore[union-attr]
        since = float(uptime.split()[0]) - ticks / os.sysconf("SC_CLK_TCK")  # type: ignore
    except (AttributeError, IndexError, ValueError, OSError):
        return time.monotonic() - IMPORTED
    return since if 0 <= since < 10**9 else time.monotonic() - IMPORTED


def address_space() -> int | None:
    """This process's address space now (VmSize), or None where it cannot be read."""
    text = _read("/proc/self/status")
    return None if text is None else _meminfo("VmSize", text)


def peak_resident() -> int | None:
    """This process's peak resident memory in bytes (VmHWM), or None."""
    text = _read("/proc/self/status")
    return None if text is None else _meminfo("VmHWM", text)


# -- the limits of one run -------------------------------------------------------------------


@dataclass(frozen=True)
class RunLimits:
    """The limits of one run: the state budget, the address-space cap (with how it was
    chosen, for the message) and the timeout."""

    budget: StateBudget | None
    memory: int | None
    memory_origin: str
    timeout: float | None

    @staticmethod
    def from_args(args: argparse.Namespace) -> RunLimits:
        """The limits the arguments ask for (the memory default computed now)."""
        states = getattr(args, "max_states", None)
        budget = None if states is None else StateBudget(states, "--max-states")
        memory = getattr(args, "max_memory", None)
        origin = "" if memory is None else f"--max-memory {format_bytes(memory)}"
        if memory is None:
            memory, origin = default_memory()
        memory, origin = _within_outer_limit(memory, origin, explicit=origin.startswith("--"))
        return RunLimits(budget, memory, origin, getattr(args, "timeout", None))


def default_memory() -> tuple[int | None, str]:
    """(address-space cap, how it was chosen): what the process holds plus 75 % of the
    memory available now (`memory_now`: the machine's or the tightest level of the
    process's own cgroups); (None, "") where either cannot be read."""
    held, (avail, what) = address_space(), memory_now()
    if held is None or avail is None or resource is None:
        return None, ""
    cap = held + int(DEFAULT_SHARE * avail)
    return cap, (f"the default --max-memory {format_bytes(cap)}: {format_bytes(held)} held "
                 f"+ 75 % of the {format_bytes(avail)} available in {what}")


def _within_outer_limit(memory: int | None, origin: str, explicit: bool
                        ) -> tuple[int | None, str]:
    """`memory` lowered to an address-space limit set outside racecert (``ulimit -v``):
    always to the hard limit, and to a lower soft limit unless --max-memory asks for
    more explicitly."""
    if resource is None:
        return None, ""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    outer = hard if explicit or soft == resource.RLIM_INFINITY else soft
    if outer != resource.RLIM_INFINITY and (memory is None or outer < memory):
        return outer, (f"the address-space limit of {format_bytes(outer)} set outside "
                       "racecert, e.g. by ulimit -v")
    return memory, origin


@contextmanager
def memory_cap(limit: int | None, origin: str) -> Iterator[None]:
    """Set the soft RLIMIT_AS to `limit` within the block (at most the hard limit); the
    previous soft limit is restored afterwards."""
    if limit is None or resource is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    held = address_space()
    if held is not None and limit <= held:  # the run cannot start: a limit reached (4)
        raise LimitReached(f"memory limit reached: {origin} is below the "
                           f"{format_bytes(held)} of address space the process already "
                           "holds before any work; allow more")
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


class LimitInterrupt(KeyboardInterrupt):
    """Raised in the main thread by the watchdog's signals: a KeyboardInterrupt, so that
    everything Ctrl-C stops (a CP-SAT or SAT solve through `racecert.independent.interrupt`,
    a search, a write) stops the same way; `run_limits` turns it into `LimitReached`."""


class Watchdog:
    """The watchdog process (`racecert.cli.watchdog`) and the handlers of its signals
    within the block: after the `deadline` (a `time.monotonic` value) or when less than
    `keep_free` bytes are available in `levels` (and the machine), the handler records
    which (`fired`: "timeout" or "memory") and raises `LimitInterrupt`. It needs the main
    thread (signals are handled there); the previous handlers are restored after the
    process is gone."""

    SIGNALS = {watchdog_script.TIMEOUT_SIGNAL: "timeout", watchdog_script.MEMORY_SIGNAL: "memory"}

    def __init__(self, deadline: float | None, keep_free: int | None,
                 levels: list[list]) -> None:
        self.deadline, self.keep_free, self.levels = deadline, keep_free, levels
        self.fired: str | None = None
        self._raised = False
        self._deferred = 0
        self._closing = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._previous: dict[int, object] = {}

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        """Record the limit and stop the run, once; once the block has ended (a signal
        sent as the work finished) nothing is raised: the work is done. Where the stop
        would be lost (numba compiling a kernel: `racecert.cli.safe_points`) it waits for
        the watchdog's next signal, which comes every `SLICE` seconds after a limit; the
        memory limit waits `MEMORY_DEFERRALS` signals at most (memory cannot wait for a
        compiler that keeps allocating: past that the stop is raised where it is, as
        before, rather than leave the run to the out-of-memory killer)."""
        if self._raised or self._closing:
            return
        if self.fired is None:
            self.fired = self.SIGNALS[signum]
        urgent = self.fired == "memory" and self._deferred >= MEMORY_DEFERRALS
        if interrupt_would_be_lost(frame) and not urgent:
            self._deferred += 1
            return
        self._raised = True
        raise LimitInterrupt

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the watchdog needs the main thread (it stops the run by a "
                               "signal)")
        for signum in self.SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(self.SIGNALS))
        spec = {"deadline": self.deadline, "reserve": self.keep_free, "levels": self.levels}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", watchdog_script.__file__, str(os.getpid()),
                 json.dumps(spec)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)  # a Ctrl-C at the terminal is not sent to it
        except BaseException:
            self._restore()
            raise
        return self

    def _restore(self) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]

    def __exit__(self, *exc: object) -> None:
        self._closing = True
        try:
            if self._proc is not None:
                self._proc.kill()
                self._proc.wait()
        finally:
            self._restore()


@contextmanager
def run_limits(args: argparse.Namespace) -> Iterator[RunLimits]:
    """Apply the limits `args` ask for around the block; what they stop becomes
    `LimitReached` with its one-line message (module docstring). Enter it before the
    track is read, so that --timeout and the memory watch cover the whole run."""
    limits = RunLimits.from_args(args)
    levels = own_cgroup_levels()
    avail, what = memory_now(levels)
    keep_free = None if avail is None else reserve(levels)
    if avail is not None and keep_free is not None and avail < keep_free:
        raise LimitReached(f"memory limit reached: only {format_bytes(avail)} available in "
                           f"{what}, less than the {format_bytes(keep_free)} a run keeps "
                           "free; wait for other runs or free memory")
    deadline = (None if limits.timeout is None
                else time.monotonic() - seconds_since_start() + limits.timeout)
    failed: str | None = None
    watchdog: Watchdog | None = None
    with ExitStack() as stack:
        stack.enter_context(DeferredCtrlC())  # a Ctrl-C inside numba's compiler waits
        # the watchdog first: its process must not start under the memory cap
        if (deadline is not None or keep_free is not None) and (
                threading.current_thread() is threading.main_thread()):
            watchdog = stack.enter_context(Watchdog(deadline, keep_free, levels))
        elif deadline is not None:
            raise RuntimeError("--timeout needs the main thread (it stops the run by a signal)")
        stack.enter_context(memory_cap(limits.memory, limits.memory_origin))
        try:
            yield limits
        except MemoryError as exc:
            failed = _allocation(exc)
        except KeyboardInterrupt:
            if watchdog is None or watchdog.fired is None:
                raise
            failed = watchdog.fired
    if failed == "timeout":
        raise LimitReached(f"time limit reached: stopped after {limits.timeout:g} s "
                           f"(--timeout {limits.timeout:g})")
    peak = peak_resident()
    held = "" if peak is None else f" with {format_bytes(peak)} resident at the peak"
    if failed == "memory":
        left, what = memory_now(levels)
        now = "" if left is None else f" (only {format_bytes(left)} left in {what})"
        raise LimitReached(f"memory limit reached: the memory available ran low{now}{held}; "
                           "other processes use the rest: run fewer at once, lower "
                           "--max-states or free memory")
    if failed is not None:
        origin = limits.memory_origin or "the machine's memory"
        raise LimitReached(f"memory limit reached: {failed} failed{held} ({origin}); lower "
                           "--max-states or raise --max-memory")


def limit_error(message: str) -> int:
    """Print ``error: MESSAGE`` as one line on stderr; return exit status 4."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return EXIT_LIMIT


def _allocation(exc: MemoryError) -> str:
    """What failed: numpy's errors carry the size of the array asked for."""
    size = getattr(exc, "_total_size", None)
    return "an allocation" if not isinstance(size, int) else (
        f"an allocation of {format_bytes(size)}")
