"""Ctrl-C in the middle of the compiled BFS kernel: exit 130, one line, nothing written.

The kernels run per chunk of states and return to Python between chunks, so Python's
SIGINT handler runs within milliseconds; this checks it on a real analysis of an open
400 x 400 area (its searches take seconds), interrupted at the BFS's first progress
line (progress shows from a bar's first update in `ctrl_c_at`), printed after its first
layer while the kernel goes on with the next. No timing assertion: the timeout only
turns a hang into a failure.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.generate import open_area
from tests.interrupting import assert_interrupted, ctrl_c_at


def test_ctrl_c_stops_the_bfs_kernel(tmp_path: Path) -> None:
    track = tmp_path / "open400.toml"
    track.write_text(open_area(400, 200, 360))
    out = tmp_path / "out"
    out.mkdir()
    code, stdout, err = ctrl_c_at(["analyze", str(track), "-o", str(out / "a.json")],
                                  ("BFS (",), tmp_path)
    assert_interrupted(code, err)
    assert stdout == "" and list(out.iterdir()) == []
