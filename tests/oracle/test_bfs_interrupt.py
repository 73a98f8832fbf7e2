"""Ctrl-C in the middle of the compiled BFS kernel: exit 130, one line, nothing written.

The kernels run per chunk of states and return to Python between chunks, so Python's
SIGINT handler runs within milliseconds; this checks it on a real analysis of an open
400 x 400 area (its searches take seconds), interrupted once its first progress line
shows a compiled search running (the BFS, or the lap searches when the BFS ends before
its first report). No timing assertion: the timeout only turns a hang into a failure.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from benchmarks.generate import open_area

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_stops_the_bfs_kernel(tmp_path: Path) -> None:
    track = tmp_path / "open400.toml"
    track.write_text(open_area(400, 200, 360))
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "racecert", "analyze", str(track),
                             "-o", str(out / "a.json")], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        seen = []
        for line in proc.stderr:  # progress lines on a redirected stderr
            seen.append(line)
            if line.startswith(("BFS", "analyze ")):
                break
        assert seen and seen[-1].startswith(("BFS", "analyze ")), seen
        proc.send_signal(signal.SIGINT)
        stdout, rest = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    err = "".join(seen) + rest
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted"
    assert stdout == "" and list(out.iterdir()) == []
