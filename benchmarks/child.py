"""One benchmark case in a fresh Python process, with that process's own peak memory.

The sections that measure memory run each case as `python -m benchmarks.bench_X ARGS`,
whose last line of stdout is its result as JSON, and read the child's peak RSS from
`os.wait4` (its own resource usage, not the parent's). stderr goes to a file, so that
reading stdout to its end cannot block on a full pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ChildRun:
    """A finished child: its exit code, stdout, stderr and peak RSS in MB (KiB / 1024)."""

    code: int
    out: str
    err: str
    peak_mb: float

    def result(self) -> dict[str, Any]:
        """The last stdout line as JSON, with the peak added as ``peak_mb``."""
        got = json.loads(self.out.strip().splitlines()[-1])
        got["peak_mb"] = self.peak_mb
        return got


def run_child(module: str, *args: str, cwd: Path | None = None) -> ChildRun:
    """Run `python -m module args...` to its end; reaped with `os.wait4`."""
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", module, *args], stdout=subprocess.PIPE,
                                stderr=err, text=True, cwd=cwd)
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return ChildRun(code, out, err.read(), usage.ru_maxrss / 1024)  # Linux: KiB


def measured(module: str, *args: str, what: str, cwd: Path | None = None) -> dict[str, Any]:
    """`run_child`'s result (`ChildRun.result`); RuntimeError naming `what` if it failed."""
    run = run_child(module, *args, cwd=cwd)
    if run.code != 0:
        raise RuntimeError(f"{what} failed ({run.code}): {run.err[-2000:]}")
    return run.result()
