"""Benchmark of the analysis pipeline: per track, the time of every step.

`section()` returns a markdown section for BENCHMARKS.md (collected by
benchmarks/run.py). Each track is analysed once in this process after one
warm-up run of the smallest track; the times are `Analysis.timings`.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

from racecert.analysis import analyze
from racecert.model.parse import load_track
from racecert.solvers.dijkstra import shortest_trajectory
from racecert.verify.radicals import RadicalSum

TRACKS = ("tiny_straight", "4_esquinas", "ocho", "espiral", "candelabro", "llanura")
STEPS = ("yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score")


def _root() -> Path:
    return Path(__file__).resolve().parent.parent


def section() -> str:
    """Markdown: pipeline step times per bundled track, and yellow exact vs editor selection."""
    root = _root()
    analyze(load_track(root / "tracks" / "tiny_straight.toml"))  # warm-up (imports, caches)
    head = "| track | m* | optimal | states | " + " | ".join(STEPS) + " | total s |"
    rows = [head, "|" + "---|" * (len(STEPS) + 5)]
    yellow_rows = ["| track | yellow moves | exact s | editor s | settled (exact) |",
                   "|---|---|---|---|---|"]
    for name in TRACKS:
        path = root / "tracks" / f"{name}.toml"
        if not path.exists():
            continue
        track = load_track(path)
        a = analyze(track)
        t = a.timings
        rows.append(f"| {name} | {a.bfs.m_star} | {a.bfs.optimal_count:.3g} | "
                    f"{a.bfs.states_explored:,} | "
                    + " | ".join(f"{t.get(s, 0.0):.3f}" for s in STEPS)
                    + f" | {a.seconds:.3f} |")
        times = {}
        for sel in ("exact", "editor"):
            t0 = time.perf_counter()
            y = shortest_trajectory(track, sel, length_of=RadicalSum.of_vector,
                                    zero=RadicalSum.zero())
            times[sel] = (time.perf_counter() - t0, y)
        yellow_rows.append(f"| {name} | {times['exact'][1].moves} | {times['exact'][0]:.3f} | "
                           f"{times['editor'][0]:.3f} | {times['exact'][1].states_settled:,} |")
    return "\n".join([
        "## Analysis pipeline",
        "",
        f"`benchmarks/bench_pipeline.py`, Python {platform.python_version()}, one run per "
        "track after a warm-up; seconds per pipeline step (`Analysis.timings`, mode exact).",
        "",
        *rows,
        "",
        "Yellow (Dijkstra) alone, exact vs editor selection:",
        "",
        *yellow_rows,
        "",
    ])


if __name__ == "__main__":
    print(section())
