"""m* by CP-SAT over integer kinematics with counterexample cuts, at any grid size.

The table model of `checks_cpsat.check_m_star` needs every reachable move as a row and is
skipped past its size budget (open 200 x 200, a 5000 x 5 corridor). This check poses the
same question over integer positions and velocities (`racecert.independent.kinematics`):
the relaxation has no arrival within m* - 1 moves (a lower bound: every valid trajectory
is one of its solutions) and, at m*, a solution that the independent geometry replays as
a valid trajectory first arriving at move m* (the upper bound). Solutions that do not
replay are cut off move by move and solved again, within one deterministic budget; where
no sound cut exists (a move invalid only on its layer, on tracks with a bridge) or the
cuts run out, the check says so and confirms nothing.
"""

from __future__ import annotations

import time

from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.geometry import Geometry
from racecert.independent.kinematics import MAX_CUTS, KinematicsModel, Refinement, refine

METHOD = ("CP-SAT integer kinematics (positions, velocities, end cells, line crossings; "
          "moves that replay invalid cut off)")


def _work(*parts: Refinement) -> str:
    solves = sum(r.solves for r in parts)
    spent = sum(r.deterministic_time for r in parts)
    return f"{solves} solves, {len(parts[-1].cuts)} cuts, {spent:.2f} deterministic time units"


def check_m_star_kinematics(ctx: CertifyContext) -> list[CheckResult]:
    """m* by the kinematics relaxation: nothing within m* - 1 moves, a replayed witness
    at m*; `skipped` where the model is over its size budget."""
    try:
        return _check(ctx)
    except SizeBudgetExceeded as e:
        b = ctx.exact
        return [CheckResult("m*", b.m_star, METHOD, None, Verdict.SKIPPED, str(e), 0.0)]


def _check(ctx: CertifyContext) -> list[CheckResult]:
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact

    def result(value: object, verdict: Verdict, reason: str, *parts: Refinement,
               arte: tuple[tuple[str, str], ...] = ()) -> list[CheckResult]:
        return [CheckResult("m*", b.m_star, METHOD, value, verdict, reason,
                            time.perf_counter() - t0, arte,
                            work=_work(*parts) if parts else "")]

    if not b.reachable or not b.m_star:
        return result(None, Verdict.NOT_APPLICABLE, "the finish is unreachable: the "
                      "relaxation bounds m* only within a horizon")
    m, g = b.m_star, Geometry(track)
    model = KinematicsModel.of(track, m, g)  # built once for both horizons
    budget = ctx.cpsat_budget
    parts: list[Refinement] = []
    cuts: tuple = ()
    if m >= 2:
        ctx.report(f"CP-SAT kinematics at T = {m - 1} (budget {budget:g} deterministic time "
                   f"units, at most {MAX_CUTS} cuts)", 0, None)
        below = refine(track, m - 1, budget=budget, workers=ctx.workers, geometry=g,
                       model=model)
        parts.append(below)
        if below.status == "feasible":
            return result(f"<= {len(below.positions) - 1}", Verdict.DISAGREE,
                          f"a valid trajectory arriving within {m - 1} moves (replayed by "
                          "the independent geometry)", below,
                          arte=(("witness", str(below.positions)),))
        if below.status != "infeasible":  # unknown (its budget) or stuck (no sound cut)
            return result(None, Verdict.TIMEOUT, f"at T = {m - 1}: {below.reason}", below)
        cuts = below.cuts
    spent = sum(r.deterministic_time for r in parts)
    at = refine(track, m, budget=max(budget - spent, 0.0), workers=ctx.workers, cuts=cuts,
                geometry=g, model=model)
    parts.append(at)
    if at.status == "infeasible":
        return result(f"> {m}", Verdict.DISAGREE, f"no arrival within {m} moves even in the "
                      "relaxation", *parts)
    if at.status != "feasible":
        return result(f">= {m}" if m >= 2 else None, Verdict.TIMEOUT,
                      f"no arrival within {m - 1} moves; at T = {m}: {at.reason}", *parts)
    moves = len(at.positions) - 1
    arte = (("witness", str(at.positions)),
            ("witness replay (independent geometry)", "ok"))
    if moves != m:
        return result(moves, Verdict.DISAGREE, f"a valid trajectory arriving in {moves} "
                      "moves (replayed by the independent geometry)", *parts, arte=arte)
    return result(m, Verdict.AGREE, f"the relaxation has no arrival within {m - 1} moves; "
                  f"a witness at {m} replayed", *parts, arte=arte)
