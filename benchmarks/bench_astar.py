"""Benchmark of the envelopes and of A* vs BFS (docs/report.md "Envelopes", "A*").

`section()` returns a markdown section for BENCHMARKS.md (collected by the
benchmark runner). Per bundled track: BFS (the authority) vs A* with the
envelope heuristic — states, seconds (median of 3 runs after a warm-up), and
whether A*'s trajectory differs from the BFS-based representative (green:
the shortest optimal trajectory, lexicographic tie-break, docs/report.md).
Also: bounded BFS with envelope pruning at bound m* (states kept), and the
interval claim verified exhaustively up to the full horizon of 256 moves.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from benchmarks.generate import corridor, open_area
from racecert.analysis.representatives import RepresentativeDP
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.astar import astar
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.envelopes import HORIZON, axis_interval, bounded_bfs

T = TypeVar("T")


def _root() -> Path:
    return Path(__file__).resolve().parent.parent


def _timed(fn: Callable[[], T], runs: int = 3) -> tuple[T, float]:
    """The last result and the median wall time of `runs` runs (after one warm-up)."""
    out = fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def verify_interval_claim(horizon: int = HORIZON) -> int:
    """Check the interval claim for every n <= horizon and |Δ| <= n by the set recursion
    (Python-int bitsets); returns the number of (n, Δ) pairs checked, raises if one fails."""
    off = horizon * (horizon + 1) // 2
    cur = {0: 1 << off}
    checked = 1
    for n in range(1, horizon + 1):
        nxt: dict[int, int] = {}
        for d, bits in cur.items():
            for a in (-1, 0, 1):
                nd = d + a
                nxt[nd] = nxt.get(nd, 0) | (bits << nd if nd >= 0 else bits >> -nd)
        cur = nxt
        for d, bits in cur.items():
            low = (bits & -bits).bit_length() - 1
            high = bits.bit_length() - 1
            if bits != ((1 << (high - low + 1)) - 1) << low:
                raise AssertionError(f"interval claim fails at n={n}, Δ={d}")
            if axis_interval(n, d) != (low - off, high - off):
                raise AssertionError(f"axis_interval wrong at n={n}, Δ={d}")
            checked += 1
    return checked


def _tracks() -> list[tuple[str, Track]]:
    root = _root()
    out = [(p.stem, load_track(p)) for p in sorted((root / "tracks").glob("*.toml"))]
    out.append(("generated open 120", parse_track(open_area(120, 60, 100).encode(), "<open>")))
    out.append(("generated corridor 1000", parse_track(corridor(1000, 5).encode(), "<cor>")))
    return out


def _row(name: str, track: Track) -> str:
    bfs, t_bfs = _timed(lambda: layered_bfs(track, "exact"))
    if not bfs.reachable:
        return f"| {name} | — | unreachable | | | | | | |"
    a, t_a = _timed(lambda: astar(track))
    pruned, t_p = _timed(lambda: bounded_bfs(track, "exact", bfs.m_star)[0])
    reps = RepresentativeDP(bfs.dag, track.car.position).select()
    a_pos = tuple((s.x, s.y) for s in a.trajectory)
    differs = "—" if reps is None else (
        "yes" if a_pos != tuple(reps.green.trajectory.positions) else "no")
    if a.moves != bfs.m_star:
        raise AssertionError(f"{name}: A* found {a.moves} moves, BFS {bfs.m_star}")
    return (f"| {name} | {bfs.m_star} | {bfs.optimal_count:.3g} | {bfs.states_explored:,} | "
            f"{t_bfs:.3f} | {pruned.states_explored:,} | {t_p:.3f} | "
            f"{a.states_expanded:,} | {t_a:.3f} | {differs} |")


def section() -> str:
    """Markdown: A* vs BFS per track, pruned BFS, and the interval-claim check."""
    t0 = time.perf_counter()
    checked = verify_interval_claim(HORIZON)
    t_claim = time.perf_counter() - t0
    rows = ["| track | m* | optimal | BFS states | BFS s | pruned BFS states (bound m*) | "
            "pruned s | A* expanded | A* s | A* ≠ green |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    rows += [_row(name, track) for name, track in _tracks()]
    return "\n".join([
        "## Envelopes and A*",
        "",
        f"`benchmarks/bench_astar.py`, Python {platform.python_version()}, exact key; "
        "median of 3 runs after a warm-up. BFS is the authority (it keeps every tie for the "
        "counts); A* keeps one trajectory. \"A* ≠ green\": A*'s positions differ from the "
        "BFS-based representative (green, lexicographic tie-break).",
        "",
        *rows,
        "",
        f"Interval claim verified exhaustively for every n ≤ {HORIZON} and |Δ| ≤ n "
        f"({checked:,} pairs) in {t_claim:.2f} s.",
        "",
    ])


if __name__ == "__main__":
    print(section())
