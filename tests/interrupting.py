"""Ctrl-C a real `racecert` process at a chosen progress line (the kernel tests' harness).

`ctrl_c_at(args, prefixes, tmp)` starts ``python -m racecert ARGS`` with SIGINT at its
default (a test runner may ignore it), reads its progress lines from the redirected
stderr until one starts with one of `prefixes`, sends SIGINT, and returns the exit
status, stdout and the whole stderr. No timing assertion: the timeout only turns a hang
into a failure.

The process runs `racecert/__main__.py` as `-m` does (`runpy`), with one change first:
progress shows from a bar's first update (`progress.DELAY = 0`, not the 2 s that keeps
short runs silent), so the strike comes as soon as the named step is provably running
instead of seconds of work later.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RACECERT = ("import runpy, racecert.cli.progress as p; p.DELAY = 0.0; "
            "runpy.run_module('racecert', run_name='__main__', alter_sys=True)")


def ctrl_c_at(args: list[str], prefixes: tuple[str, ...], tmp: Path
              ) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `racecert ARGS` interrupted at its first stderr
    line starting with one of `prefixes` (asserted to come)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, "-c", RACECERT, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = []
        for line in proc.stderr or ():  # progress lines on a redirected stderr
            seen.append(line)
            if line.startswith(prefixes):
                break
        assert seen and seen[-1].startswith(prefixes), seen
        proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, stdout, "".join(seen) + rest


def assert_interrupted(code: int, err: str) -> None:
    """Exit 130, no traceback, and the one line "interrupted" last."""
    assert code == 130, err
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted"
