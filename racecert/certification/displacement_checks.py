"""m* lower bound by the displacement CNF, with a checked proof: long straight tracks.

The checked proofs of m* that the other models give stop at their size budgets: the
kinematics CNF needs positions times velocities clauses per move (about 200 million on a
5000 x 5 corridor), the reachability-cut CNF a variable per state and move, the one-hot
CNF m* <= 60. The displacement CNF (`racecert.independent.displacement_cnf`) keeps only
the per-axis bound |x_t - x_{t-1}| <= t (from rest, one unit of acceleration a move) with
the end cells and the lines, at a few thresholds per move: a few thousand clauses on any
grid. Where the optimal trajectory accelerates all the way (corridors, open areas) it
refutes T = m* - 1, and racecert's DRUP checker checks the refutation: a lower bound with
a checked proof ("m* lower bound, displacement CNF", `solver-model-checked-proof`).

The result can disagree: a rejected proof, or the relaxation refuting T = m* itself (an
arrival the oracle claims within m* moves, which no valid trajectory can make). Where the
relaxation still has an arrival within m* - 1 moves (a track where the car must brake, or
turn round walls that the relaxation does not see between end cells) it bounds nothing
there: `not-applicable`, with the arrival move of its model. Its
budgets: `DISPLACEMENT_CONFLICTS` per solve (`timeout`), `MAX_CLAUSES` (`skipped`). The
witness at m* is the kinematics check's (replayed by the independent geometry).
"""

from __future__ import annotations

import time
from dataclasses import replace

from racecert.certification.context import CertifyContext, CheckResult, MethodKind, Verdict
from racecert.certification.proof_files import NOT_WRITTEN, proof_target, track_slug
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.displacement_cnf import (
    DISPLACEMENT_CONFLICTS,
    DisplacementSolve,
    solve_displacement,
)
from racecert.independent.kinematics import KinematicsModel

FIGURE = "m* lower bound, displacement CNF"
METHOD = ("SAT (glucose4) on the displacement relaxation (|x_t - x_{t-1}| <= t per axis, "
          "end cells, line crossings) as a threshold-encoded CNF + DRUP check")


def _work(below: DisplacementSolve, at: DisplacementSolve | None = None) -> str:
    """Solves and conflicts, and the sizes of the CNF and proof at T = m* - 1."""
    solves = (below,) if at is None else (below, at)
    return (f"{len(solves)} solve{'s' if at else ''}, "
            f"{sum(s.conflicts for s in solves):,} conflicts; CNF at T = m* - 1 "
            f"{below.nvars:,} vars, {below.clauses:,} clauses; proof {below.proof_lines:,} "
            f"lines, {below.proof_bytes:,} bytes")


def check_m_star_displacement(ctx: CertifyContext,
                              conflict_budget: int = DISPLACEMENT_CONFLICTS
                              ) -> list[CheckResult]:
    """Refute T = m* - 1 (the lower bound, proof checked) and expect an arrival of the
    relaxation at T = m* (else the oracle's m* is impossible): see the module."""
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact
    m = b.m_star

    def out(value: object, verdict: Verdict, reason: str, work: str = "",
            arte: tuple[tuple[str, str], ...] = ()) -> list[CheckResult]:
        return [CheckResult(FIGURE, m, METHOD, value, verdict, reason,
                            time.perf_counter() - t0, arte, work=work,
                            kind=MethodKind.CHECKED_PROOF)]

    if not b.reachable or not m:
        return out(None, Verdict.NOT_APPLICABLE, "the finish is unreachable: the relaxation "
                   "bounds m* only within a horizon")
    if m < 2:
        return out(None, Verdict.NOT_APPLICABLE, "m* = 1: no shorter horizon to refute")
    ctx.report(f"SAT displacement CNF at T = {m - 1} and {m} (budget {conflict_budget:,} "
               "conflicts a solve) with a DRUP proof check", 0, None)
    model = KinematicsModel.of(track, m - 1)
    slug = track_slug(track.name)
    below_path = proof_target(ctx.out_dir, f"{slug}-displacement-T{m - 1}.drup")
    try:
        below = solve_displacement(model, conflict_budget, proof_path=below_path)
        if below.status == "infeasible":
            at_path = proof_target(ctx.out_dir, f"{slug}-displacement-T{m}.drup")
            at = solve_displacement(replace(model, horizon=m), conflict_budget,
                                    proof_path=at_path)
    except SizeBudgetExceeded as e:
        return out(None, Verdict.SKIPPED, str(e))
    if below.rejected:
        return out("unproven", Verdict.DISAGREE, f"at T = {m - 1} the solver answered UNSAT "
                   f"but its DRUP proof was rejected ({below.checker})", _work(below),
                   (("proof check", "rejected"),))
    if below.status == "unknown":
        return out(None, Verdict.TIMEOUT, f"at T = {m - 1}: {below.note}", _work(below))
    if below.status == "feasible":
        return out(None, Verdict.NOT_APPLICABLE, "the relaxation arrives at move "
                   f"{len(below.positions) - 1} <= {m - 1}: without velocity continuity and "
                   "the walls between end cells it bounds nothing on this track",
                   _work(below))
    work = _work(below, at)
    proof = (("proof", str(below_path) if below_path else NOT_WRITTEN),
             ("proof check", "verified"))
    if at.status == "infeasible":
        return out(f"> {m}", Verdict.DISAGREE, f"T = {m} UNSAT too, its DRUP proof checked "
                   f"({at.checker}): no arrival within the oracle's m* = {m} moves even in "
                   "the relaxation", work,
                   (("proof", str(at_path) if at_path else NOT_WRITTEN),
                    ("proof check", "verified")))
    if at.rejected:
        return out(None, Verdict.DISAGREE, f"at T = {m} the solver answered UNSAT but its "
                   f"DRUP proof was rejected ({at.checker})", work)
    if at.status == "unknown":
        return out(f"> {m - 1}", Verdict.TIMEOUT, f"T = {m - 1} UNSAT, proof checked; at "
                   f"T = {m}: {at.note}", work, proof)
    return out(f"> {m - 1}", Verdict.AGREE, f"T = {m - 1} UNSAT; DRUP proof checked "
               f"({below.checker}); the relaxation arrives at T = {m}", work, proof)

