"""Benchmark of `analyze`'s peak memory on open N x N areas (issue #18: within 2 GB up to
N = 1000).

`section()` returns the markdown section for BENCHMARKS.md. Every size is analysed in a
fresh subprocess (`python -m benchmarks.bench_memory N`), so its peak RSS is that of one
analysis: the parent reads it from `os.wait4`; the child reports m*, the states its BFS
explored, its CPU seconds and its per-step timings as one JSON line. The track is
`benchmarks.generate.open_area(N, N // 2, N - 20)`: the car at the west edge, the finish
line twenty cells from the east edge, so the optimal trajectories cross the whole area.

Run one size by hand: `python -m benchmarks.bench_memory 600`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass

from benchmarks.child import measured
from benchmarks.generate import open_area

SIZES = (200, 300, 400, 500, 600, 700, 750, 800, 900, 1000)
TARGET_MB = 2048.0
"""Issue #18: `analyze` within 2 GB on every open N x N up to N = 1000 (MB as `ru_maxrss`
/ 1024, as the BFS section counts them)."""
BEFORE = {200: (279, 0.75), 300: (1130, 4.97), 400: (2598, 13.12), 500: (1774, 7.44),
          600: (2164, 9.71), 700: (5715, 34.39), 750: (1891, 7.51), 800: (323, 1.32),
          900: (9552, 58.18), 1000: (2772, 11.11)}
"""Peak MB and analyze CPU seconds of the same runs at d4530a2 (2026-12-07, before the
green/blue DP's sparse rows, the compact arrival counts, the int32 DAG indices, the
chunked DP and coverage and the heap trimming), measured with this module's `measure`
against that commit's tree."""


@dataclass(frozen=True)
class Row:
    """One size's analysis: its figures, CPU seconds, step timings and peak RSS."""

    n: int
    m_star: int
    states: int
    cpu: float
    timings: dict[str, float]
    peak_mb: float

    @property
    def met(self) -> bool:
        return self.peak_mb <= TARGET_MB


def run_size(n: int) -> dict[str, object]:
    """Analyse open N x N in this process; the figures and CPU seconds (child side)."""
    from racecert.analysis import analyze
    from racecert.model.parse import parse_track

    track = parse_track(open_area(n, n // 2, n - 20))
    c0 = time.process_time()
    a = analyze(track)
    cpu = time.process_time() - c0
    return {"n": n, "m_star": a.bfs.m_star, "states": a.bfs.states_explored,
            "cpu": cpu,
            "timings": {k: round(v, 3) for k, v in a.timings.items()}}


def measure(n: int) -> Row:
    """Run one size in a fresh subprocess; its result plus the child's peak RSS in MB."""
    return Row(**measured("benchmarks.bench_memory", str(n), what=f"open {n}x{n}"))


def section() -> str:
    """Markdown: per size, m*, states, analyze CPU seconds, the largest step, peak RSS and
    the target's verdict."""
    load0 = os.getloadavg()[0]
    rows = [measure(n) for n in SIZES]
    load1 = os.getloadavg()[0]
    lines = [
        "## Analysis memory on open N×N areas (`bench_memory`, issue #18)",
        "",
        "`benchmarks/bench_memory.py`: `analyze(track)` (every figure, exact key) of "
        "`open_area(N, N // 2, N - 20)` (car at the west edge, finish line twenty cells from "
        "the east edge), each size in a fresh Python process whose peak RSS is read from "
        f"`os.wait4` (MB = KiB / 1024). Target: ≤ {TARGET_MB:,.0f} MB on every N up to 1000. "
        f"1-minute load average {load0:.2f} before, {load1:.2f} after.",
        "",
        "| N | m* | states explored | analyze CPU s (d4530a2) | largest step | peak RSS MB "
        "(d4530a2) | target | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        step = max(r.timings, key=lambda k: r.timings[k])
        mb0, cpu0 = BEFORE.get(r.n, (None, None))
        lines.append(f"| {r.n} | {r.m_star} | {r.states:,} | {r.cpu:.2f} ({cpu0 or '-'}) | "
                     f"{step} {r.timings[step]:.2f} s | {r.peak_mb:,.0f} "
                     f"({f'{mb0:,}' if mb0 else '-'}) | ≤ {TARGET_MB:,.0f} | "
                     f"{'met' if r.met else '**not met**'} |")
    worst = max(rows, key=lambda r: r.peak_mb)
    lines += ["", f"Largest peak: N = {worst.n}, {worst.peak_mb:,.0f} MB "
              f"({'within' if worst.met else 'over'} the target)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(json.dumps(run_size(int(sys.argv[1]))))
