"""Benchmark of the SAT certificate of m* (racecert.verify.sat_checks).

`section()` returns a markdown section for BENCHMARKS.md: per bundled track
(tracks/*.toml and tracks/limits/*.toml) with m* <= SAT_MAX_MSTAR, the move
table, untimed closure, CNF size at T = m*-1, solve time, DRUP proof size,
proof-check time and the SAT (T = m*) solve time; every number is measured
here, in one run.
"""

from __future__ import annotations

import platform
import tempfile
import time
from pathlib import Path

from racecert.model.parse import load_track
from racecert.solvers.bfs import layered_bfs
from racecert.verify.sat_checks import SAT_MAX_MSTAR, sat_certificate

TRACKS = Path(__file__).resolve().parents[1] / "tracks"


def section() -> str:
    """The markdown section."""
    rows = ["| track | m* | table rows (s) | closure | vars | clauses | proof bytes | "
            "UNSAT solve s | check s | SAT solve s | total s | verdicts |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    grand = 0.0
    paths = sorted(TRACKS.glob("*.toml")) + sorted(TRACKS.glob("limits/*.toml"))
    with tempfile.TemporaryDirectory() as out:
        for p in paths:
            track = load_track(p)
            bfs = layered_bfs(track, "exact")
            name = str(p.relative_to(TRACKS))
            if not bfs.reachable or bfs.m_star is None or bfs.m_star > SAT_MAX_MSTAR:
                rows.append(f"| {name} | {bfs.m_star} | " + " | ".join(["-"] * 9)
                            + f" | not applicable (m* > {SAT_MAX_MSTAR} or unreachable) |")
                continue
            t0 = time.perf_counter()
            c = sat_certificate(track, bfs.m_star, out)
            total = time.perf_counter() - t0
            grand += total
            rows.append(
                f"| {name} | {c.m_star} | {c.table_rows:,} ({c.table_seconds:.2f}) | "
                f"{c.closure_states:,} | {c.unsat_vars:,} | {c.unsat_clauses:,} | "
                f"{c.proof_bytes:,} | {c.unsat_solve_seconds:.3f} | {c.check_seconds:.3f} | "
                f"{c.sat_solve_seconds:.3f} | {total:.2f} | {c.lower.verdict}/"
                f"{c.upper.verdict} |")
    return "\n".join([
        "## SAT certificate of m* (reachability-cut CNF, Glucose 4, DRUP check)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}. Lower bound: T = m*-1 UNSAT, proof checked by "
        "racecert.verify.drup; upper bound: T = m* model replayed by the verify geometry.",
        "",
        *rows,
        "",
        f"Total over the certified tracks: {grand:.1f} s.",
        "",
    ])


if __name__ == "__main__":
    print(section())
