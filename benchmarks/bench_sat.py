"""Benchmark of the SAT certificate of m* (racecert.certification.sat_checks).

`section()` returns a markdown section for BENCHMARKS.md with two tables, per bundled
track (tracks/*.toml and tracks/limits/*.toml):

- the reachability-cut CNF (within SAT_MAX_CELLS): move table, untimed closure, CNF size
  at T = m*-1, solve time, DRUP proof size, proof-check time, the SAT (T = m*) solve time;
- the factored one-hot CNF (m* <= ONEHOT_MAX_MSTAR): domain used, vars, clauses, build
  and solve time at T = m*-1, proof lines and MB, lemmas the checker used, check time,
  the T = m* solve (model replayed) and the verdicts.

Every number is measured here, in one run; the move table is shared by both encodings
(as in certify).
"""

from __future__ import annotations

import platform
import tempfile
import time
from pathlib import Path

from racecert.certification.sat_checks import (
    ONEHOT_MAX_MSTAR,
    SolverBudgetExceeded,
    onehot_certificate,
    sat_certificate,
)
from racecert.independent.movetable import move_table
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

TRACKS = Path(__file__).resolve().parents[1] / "tracks"


def _domain(backward: bool, cells: bool) -> str:
    return "+".join(n for n, on in (("axes", True), ("backward", backward), ("cells", cells))
                    if on)


def section() -> str:
    """The markdown section."""
    rows = ["| track | m* | table rows (s) | closure | vars | clauses | proof bytes | "
            "UNSAT solve s | check s | SAT solve s | total s | verdicts |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    hot = ["| track | m* | domain | vars | clauses | build s | UNSAT solve s | proof lines | "
           "proof MB | lemmas used | check s | SAT (T = m*) s | total s | verdicts |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    grand = hot_total = 0.0
    paths = sorted(TRACKS.glob("*.toml")) + sorted(TRACKS.glob("limits/*.toml"))
    with tempfile.TemporaryDirectory() as out:
        for p in paths:
            track = load_track(p)
            bfs = layered_bfs(track, "exact")
            name = str(p.relative_to(TRACKS))
            if not bfs.reachable or bfs.m_star is None:
                rows.append(f"| {name} | {bfs.m_star} | " + " | ".join(["-"] * 9)
                            + " | not applicable (unreachable) |")
                continue
            t0 = time.perf_counter()
            try:
                c = sat_certificate(track, bfs.m_star, out)  # builds (and caches) the table
            except SolverBudgetExceeded as e:
                rows.append(f"| {name} | {bfs.m_star} | " + " | ".join(["-"] * 9)
                            + f" | timeout: {e} |")
                continue
            total = time.perf_counter() - t0
            grand += total
            rows.append(
                f"| {name} | {c.m_star} | {c.table_rows:,} ({c.table_seconds:.2f}) | "
                f"{c.closure_states:,} | {c.unsat_vars:,} | {c.unsat_clauses:,} | "
                f"{c.proof_bytes:,} | {c.unsat_solve_seconds:.3f} | {c.check_seconds:.3f} | "
                f"{c.sat_solve_seconds:.3f} | {total:.2f} | {c.lower.verdict}/"
                f"{c.upper.verdict} |")
            if bfs.m_star > ONEHOT_MAX_MSTAR or bfs.m_star < 2:
                hot.append(f"| {name} | {bfs.m_star} | " + " | ".join(["-"] * 11)
                           + f" | not applicable (m* > {ONEHOT_MAX_MSTAR}) |")
                continue
            t0 = time.perf_counter()
            h = onehot_certificate(track, bfs.m_star, out, table=move_table(track, bfs.m_star))
            total = time.perf_counter() - t0
            hot_total += total
            hot.append(
                f"| {name} | {h.m_star} | {_domain(h.backward, h.cells)} | {h.vars:,} | "
                f"{h.clauses:,} | {h.build_seconds:.2f} | {h.solve_seconds:.2f} | "
                f"{h.proof_lines:,} | {h.proof_bytes / 1e6:.2f} | {h.lemmas_used:,} | "
                f"{h.check_seconds:.2f} | {h.sat_solve_seconds:.2f} | {total:.2f} | "
                f"{h.lower.verdict}/{h.upper.verdict} |")
    return "\n".join([
        "## SAT certificates of m* (Glucose 4, DRUP proofs checked by racecert.independent.drup)",
        "",
        f"Machine: {platform.processor() or platform.machine()}, Python "
        f"{platform.python_version()}. Lower bound: T = m*-1 UNSAT, proof checked by "
        "racecert.independent.drup; upper bound: T = m* model replayed by the independent "
        "geometry.",
        "",
        "### Reachability-cut CNF (refuted by unit propagation: the proofs are empty)",
        "",
        *rows,
        "",
        f"Total over the certified tracks: {grand:.1f} s.",
        "",
        "### Factored one-hot CNF (refutation by search: the proofs have lemmas)",
        "",
        "Domain: `axes` = per-axis forward kinematics, `backward` = per-axis backward bound, "
        "`cells` = speed-capped cell relaxation (the strongest domain whose proof is not "
        "empty; the strongest when all are). The move table is the first table's.",
        "",
        *hot,
        "",
        f"Total over the certified tracks: {hot_total:.1f} s.",
        "",
    ])


if __name__ == "__main__":
    print(section())
