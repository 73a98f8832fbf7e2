"""Resource limits of `analyze` and `certify`: `--max-states`, `--max-memory`, `--timeout`.

A run that reaches a limit stops with one line naming the limit and what was reached,
and exit status 4 (`EXIT_LIMIT`), never an out-of-memory kill or a traceback:

- `--max-states N` is a `StateBudget` that every search of the oracle checks after each
  layer or round (`racecert.model.budget`): deterministic, the same track stops at the
  same place on any machine.
- `--max-memory SIZE` caps the process's address space (`RLIMIT_AS`), so an allocation
  past it fails inside the process (numpy's `MemoryError`) instead of drawing the
  kernel's out-of-memory killer. The default lets the run grow by 75 % of the memory
  available when it starts (`MemAvailable` in /proc/meminfo, or what the cgroup still
  allows when that is less). Address space counts a little more than resident memory.
- `--timeout S` is a wall-clock limit for the person waiting: a watchdog process stops
  the run the way Ctrl-C does (also inside a CP-SAT or SAT solve). It is allowed beside
  the deterministic budgets because it never changes a figure: it only ends the run,
  with no output written.

`run_limits(args)` applies the memory cap and the watchdog around the work and turns
what they cause (`MemoryError`, the watchdog's interrupt) into `LimitReached`, whose
message the top level prints (`racecert.cli.main`). The previous address-space limit is
restored afterwards, so the limits of one in-process call do not outlive it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import resource
except ImportError:  # not on Windows: no memory cap there
    resource = None  # type: ignore[assignment]

from racecert.model.budget import LimitReached, StateBudget

EXIT_LIMIT = 4
MAX_STATES = 10**11
"""Largest --max-states: beyond the memory of any machine (some 100 bytes per state)."""
MIN_MEMORY, MAX_MEMORY = 64 * 2**20, 2**50
"""--max-memory from 64 MiB to 1 PiB."""
MAX_TIMEOUT = 10**7
"""Largest --timeout in seconds (some 116 days)."""
DEFAULT_SHARE = 0.75
"""Share of the available memory the default --max-memory lets the run add."""

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
                        help="stop (exit 4) after S seconds of wall time; it only ends the "
                             "run, never changes a figure (default: none)")


class LimitTooLow(ValueError):
    """A limit the run cannot start under (bad input: exit status 2)."""


# -- what the machine has --------------------------------------------------------------------


def _meminfo(key: str, text: str) -> int | None:
    m = re.search(rf"^{key}:\s+(\d+)\s*kB", text, re.MULTILINE)
    return None if m is None else int(m.group(1)) * 1024


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text()
    except OSError:
        return None


def available_memory() -> int | None:
    """Bytes the machine can still give: MemAvailable, or less when a cgroup (v2 or v1)
    allows less; None where neither can be read."""
    text = _read("/proc/meminfo")
    avail = None if text is None else _meminfo("MemAvailable", text)
    for limit_file, usage_file in (("/sys/fs/cgroup/memory.max",
                                    "/sys/fs/cgroup/memory.current"),
                                   ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                    "/sys/fs/cgroup/memory/memory.usage_in_bytes")):
        limit, usage = _read(limit_file), _read(usage_file)
        if limit and usage and limit.strip().isdigit() and usage.strip().isdigit():
            room = max(int(limit) - int(usage), 0)
            if room < 2**60:  # v1 writes a huge number for "no limit"
                avail = room if avail is None else min(avail, room)
            break
    return avail


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
    available memory; (None, "") where either cannot be read."""
    held, avail = address_space(), available_memory()
    if held is None or avail is None or resource is None:
        return None, ""
    cap = held + int(DEFAULT_SHARE * avail)
    return cap, (f"the default --max-memory {format_bytes(cap)}: {format_bytes(held)} held "
                 f"+ 75 % of the {format_bytes(avail)} available")


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
    if held is not None and limit <= held:
        raise LimitTooLow(f"{origin}: below the {format_bytes(held)} of address space the "
                          "process already holds before any work; allow more")
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


WATCHDOG = """\
import os, signal, sys, time
parent, seconds = int(sys.argv[1]), float(sys.argv[2])
time.sleep(seconds)
if os.getppid() == parent:  # never signal a process that merely reused the number
    os.kill(parent, signal.SIGINT)
"""


class Watchdog:
    """After `seconds`, interrupt this process as Ctrl-C does: a SIGINT from outside, so
    that Python raises KeyboardInterrupt in the main thread and the solvers' own Ctrl-C
    paths stop a CP-SAT or SAT solve. It is a tiny child process, not a thread: a native
    solve that holds the interpreter lock would keep a thread from ever running. A
    KeyboardInterrupt once `seconds` have passed (`expired`) is the timeout."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.start = 0.0
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def expired(self) -> bool:
        return time.monotonic() - self.start >= self.seconds

    def __enter__(self) -> Watchdog:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("--timeout needs the main thread (it stops the run by SIGINT)")
        self.start = time.monotonic()
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", WATCHDOG, str(os.getpid()), repr(self.seconds)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)  # a Ctrl-C at the terminal is not sent to it
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()


@contextmanager
def run_limits(args: argparse.Namespace) -> Iterator[RunLimits]:
    """Apply the limits `args` ask for around the block; what they stop becomes
    `LimitReached` with its one-line message (module docstring)."""
    limits = RunLimits.from_args(args)
    failed: str | None = None
    with ExitStack() as stack:
        # the watchdog first: its process must not start under the memory cap
        watchdog = (None if limits.timeout is None
                    else stack.enter_context(Watchdog(limits.timeout)))
        stack.enter_context(memory_cap(limits.memory, limits.memory_origin))
        try:
            yield limits
        except MemoryError as exc:
            failed = _allocation(exc)
        except KeyboardInterrupt:
            if watchdog is None or not watchdog.expired:
                raise
            failed = "timeout"
    if failed == "timeout":
        raise LimitReached(f"time limit reached: stopped after {limits.timeout:g} s "
                           f"(--timeout {limits.timeout:g})")
    if failed is not None:
        peak = peak_resident()
        held = "" if peak is None else f" with {format_bytes(peak)} resident at the peak"
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
