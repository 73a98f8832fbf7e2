"""Benchmark of `racecert certify`: per bundled track the time of each step, and the largest
generated track (benchmarks/generate.py) each independent method handles within 60 s.

Run: `.venv/bin/python -m benchmarks.bench_certify` (prints the markdown section).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.generate import corridor, open_area
from racecert.certification.certificate import certify
from racecert.certification.geometry_check import crosscheck_geometry
from racecert.independent.cpsat import count_solutions, race_model, solve
from racecert.independent.movetable import move_table
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs

ROOT = Path(__file__).resolve().parents[1]
LIMIT_S = 60.0


def _bundled() -> str:
    lines = ["| track | m* | count | BFS both keys s | geometry s | m* CP-SAT s | count s | "
             "continuity s | total s | verdicts |", "|---|---|---|---|---|---|---|---|---|---|"]
    total = 0.0
    for path in sorted((ROOT / "tracks").glob("*.toml")):
        c = certify(load_track(path), cpsat_budget=30.0)
        total += c.seconds
        by = {r.figure: r for r in c.results}
        cont = sum(r.seconds for r in c.results if r.figure.startswith("continuable"))
        v = "".join({"agree": "A", "disagree": "D", "not-applicable": "n"}[r.verdict]
                    for r in c.results)
        lines.append(
            f"| {path.stem} | {c.exact.m_star} | {c.exact.optimal_count:,} | "
            f"{c.exact.seconds + c.editor.seconds:.2f} | {by['move validity'].seconds:.2f} | "
            f"{by['m*'].seconds:.2f} | {by['optimal_count'].seconds:.2f} | {cont:.2f} | "
            f"{c.seconds:.1f} | {v} |")
    lines.append(f"\nAll bundled tracks: {total:.1f} s (target: 300 s). Verdicts: one letter per "
                 "check in certificate order (geometry, m*, count, continuity race and editor, "
                 "then plugged-in checks): A agree, D disagree, n not-applicable.")
    return "\n".join(lines)


def _m_star(track: Track) -> float:
    b = layered_bfs(track, "exact")
    t0 = time.perf_counter()
    table = move_table(track, b.m_star)
    below = solve(race_model(track, table, b.m_star - 1, "within"), budget=LIMIT_S)
    at = solve(race_model(track, table, b.m_star, "exact"), budget=LIMIT_S)
    if below.status != "infeasible" or at.status != "feasible":
        return float("inf")
    return time.perf_counter() - t0


def _count(track: Track) -> float:
    b = layered_bfs(track, "exact")
    t0 = time.perf_counter()
    c = count_solutions(race_model(track, move_table(track, b.m_star), b.m_star, "exact"),
                        limit=20_000, budget=LIMIT_S)
    if c.count != b.optimal_count:
        return float("inf")
    return time.perf_counter() - t0


def _geometry(track: Track) -> float:
    r = crosscheck_geometry(track, scalar=False)
    return r.seconds if r.agree else float("inf")


def _ladder(name: str, make: Callable[[int], str], sizes: list[int]) -> list[str]:
    rows = []
    for method, fn in (("geometry cross-check (whole state space)", _geometry),
                       ("m* by CP-SAT", _m_star), ("count by CP-SAT enumeration", _count)):
        best, note = None, ""
        for n in sizes:
            track = parse_track(make(n).encode())
            if fn is _count and layered_bfs(track, "exact").optimal_count > 20_000:
                note = f"; {name}({n}) has more than 20,000 optimal trajectories"
                break
            move_table.cache_clear()
            s = fn(track)
            if s > LIMIT_S:
                note = f"; {name}({n}) took {s:.0f} s or failed"
                break
            best = (n, s)
        shown = f"{name}({best[0]}) in {best[1]:.1f} s" if best else "none"
        rows.append(f"| {method} | {shown}{note} |")
    return rows


def section() -> str:
    """The markdown section of the benchmark report."""
    parts = ["## certify", "", "Per bundled track (`racecert certify`, time limit 30 s per "
             "solver call):", "", _bundled(), "",
             f"Largest generated track per method within {LIMIT_S:.0f} s "
             "(sizes tried in order):", "", "| method | largest |", "|---|---|"]
    parts += _ladder("open_area", lambda n: open_area(n, n // 2, n - 5), [10, 20, 30, 40, 60])
    parts += _ladder("corridor", lambda n: corridor(n), [50, 100, 200, 400, 800])
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    print(section())
