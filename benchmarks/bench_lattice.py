"""The lattice profile's speed target: every public Bekos track analysed, best start
included (`analyze_lattice(track, best_start=True)`: m*, exact counts per start, green
and blue), in at most 3 minutes in total and at most 2 GB each.

Each track runs in its own subprocess, which reports its analysis seconds; the parent
reads the child's peak RSS with `wait4`. The 27 XML files are external test data (no
licence), read from ../shared/external/bekos-racetrack/ beside the repository; without
them the section says so.

    python -m benchmarks.bench_lattice            # the markdown section
    python -m benchmarks.bench_lattice FILE.xml   # one track, one JSON line
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks.child import measured

ROOT = Path(__file__).resolve().parent.parent
BEKOS = ROOT.parent / "shared" / "external" / "bekos-racetrack"
TARGET_TOTAL_S = 180.0
TARGET_PEAK_MB = 2048.0


def run_one(path: str) -> dict:
    """Import and analyse one track in this process."""
    from racecert.analysis.lattice.pipeline import analyze_lattice
    from racecert.model.bekos_import import read_bekos, to_toml
    from racecert.model.parse import parse_track

    t0 = time.perf_counter()
    track = parse_track(to_toml(read_bekos(path)).encode(), Path(path).name)
    a = analyze_lattice(track, best_start=True)  # type: ignore[arg-type]
    return {"name": track.name, "seconds": time.perf_counter() - t0,
            "m_star": a.bfs.m_star, "optimal_count": str(a.bfs.optimal_count),
            "states": a.bfs.states_explored, "size": f"{track.width}x{track.height}"}


def measure(path: Path) -> dict:
    """One track in a fresh subprocess: its result and its peak RSS in MB."""
    return measured("benchmarks.bench_lattice", str(path), what=path.name, cwd=ROOT)


def section() -> str:
    files = sorted(BEKOS.glob("*.xml"))
    head = "## Lattice profile: the 27 public Bekos tracks, best start\n\n"
    if len(files) != 27:
        return head + f"Skipped: the 27 Bekos XML files are not in {BEKOS}.\n"
    wall0 = time.perf_counter()
    rows = [measure(p) for p in files]
    wall = time.perf_counter() - wall0
    total = sum(r["seconds"] for r in rows)
    peak = max(r["peak_mb"] for r in rows)
    lines = [head, f"Machine: {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; Python "
             f"{platform.python_version()}.\n",
             f"Total analysis time {total:.1f} s (target <= {TARGET_TOTAL_S:.0f} s: "
             f"{'met' if total <= TARGET_TOTAL_S else 'NOT met'}), wall time with the "
             f"subprocesses {wall:.1f} s; largest peak RSS {peak:.0f} MB (target <= "
             f"{TARGET_PEAK_MB:.0f} MB: {'met' if peak <= TARGET_PEAK_MB else 'NOT met'}).\n",
             "| track | bounds | m* | states | seconds | peak RSS (MB) |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['name']} | {r['size']} | {r['m_star']} | {r['states']:,} | "
              f"{r['seconds']:.2f} | {r['peak_mb']:.0f} |" for r in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(run_one(sys.argv[1])))
    else:
        print(section())
