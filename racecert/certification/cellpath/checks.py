"""The checks of a cell-path certificate: the analysis (the oracle: `CellPathRules` +
`layered_bfs` + `RepresentativeDP`) against the independent cell-path machinery.

- move validity: every acceleration from the reachable states (capped), the profile's
  vectorised `expand` against the independent walk (`racecert.independent.cellpath.walk`,
  exact rationals): validity, arrival and the state the move ends in;
- m* by CP-SAT (`racecert.independent.cellpath.cpsat`): no arrival within m* - 1 moves
  (infeasible), a witness at exactly m* replayed through the independent walk; `skipped`
  past the move table's size budget, `timeout` past the CP-SAT budget;
- the independent search (`racecert.independent.cellpath.search`): m*, the exact count
  per start, the final states, and the least and greatest lengths with their ties.

Only m* has a solver model; the counts, finals and lengths rest on the second
implementation, and the certificate's headline says so.
"""

from __future__ import annotations

import time
from itertools import repeat

from racecert.certification.context import (
    CertifyContext,
    CheckResult,
    MethodKind,
    NamedCheck,
    Verdict,
)
from racecert.certification.lattice.checks import (
    compare_moves,
    lattice_of,
    reachable_states,
    search_results,
)
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.cellpath.cpsat import build_table, replay, solve, speed_bound
from racecert.independent.cellpath.search import count_trajectories
from racecert.independent.cellpath.walk import accelerations, successor
from racecert.model.cellpath.rules import CellPathRules

WALK = "racecert.independent.cellpath.walk (exact rational ticks)"
CPSAT = "CP-SAT time-indexed model (move table: the walk's offsets per velocity)"
SEARCH = "independent cell-path search (racecert.independent.cellpath.search, dicts, exact ints)"


def check_geometry(ctx: CertifyContext) -> list[CheckResult]:
    """Every acceleration from the reachable states: expand vs the independent walk."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    rules = CellPathRules(track)
    states, complete = reachable_states(
        rules, [rules.state_at(p) for p in a.considered], ctx.geometry_max_states,
        a.bfs.depth_explored)
    exp = rules.expand(states)
    ours = {row for s, src, arrives in ((exp.succ, exp.src, False),
                                        (exp.arrive_state, exp.arrive_src, True))
            for row in zip(src.tolist(), s.x.tolist(), s.y.tolist(), s.vx.tolist(),
                           s.vy.tolist(), repeat(arrives, len(src)), strict=True)}
    theirs = set()
    accs = accelerations(track)
    rows = zip(states.x.tolist(), states.y.tolist(), states.vx.tolist(), states.vy.tolist(),
               strict=True)
    for i, s in enumerate(rows):
        for acc in accs:
            r = successor(track, s, acc)
            if r is not None:
                theirs.add((i, *r[0], r[1]))
    return [compare_moves("racecert.model.cellpath.rules (vectorised expand)", WALK, ours,
                          theirs, len(states), len(accs), complete,
                          f"all {len(accs)} accelerations", "validity, arrival and the end "
                          "state", t0)]


def check_search(ctx: CertifyContext) -> list[CheckResult]:
    """m*, counts, finals, optimal starts, green and blue by the independent search."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    r = count_trajectories(track, list(a.considered), max_states=ctx.max_states)
    return search_results(track, a, r, time.perf_counter() - t0, SEARCH)  # type: ignore[arg-type]


def check_m_star_cpsat(ctx: CertifyContext) -> list[CheckResult]:
    """No arrival within m* - 1 moves (infeasible), a replayed witness at exactly m*."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    m = a.bfs.m_star
    arte: tuple[tuple[str, str], ...] = ()
    spent: list[float] = []  # deterministic time of each solve that ran

    def result(verdict: Verdict, value: object, reason: str) -> list[CheckResult]:
        return [CheckResult("m_star", m, CPSAT, value, verdict, reason,  # type: ignore[arg-type]
                            time.perf_counter() - t0, arte,
                            work=f"{sum(spent):.2f} deterministic time units, "
                                 f"{len(spent)} solves" if spent else "")]

    if m is None:
        return result(Verdict.NOT_APPLICABLE, None, "the oracle finds no arrival: the "
                      "independent search checks that")
    if m < 1:  # no start is a goal cell (the parser refuses one): a run takes a move
        return result(Verdict.DISAGREE, None, f"m* = {m} < 1, but no start is a goal cell")
    try:
        table = build_table(track, speed_bound(track, m))
    except SizeBudgetExceeded as e:
        return result(Verdict.SKIPPED, None, f"over the size limit: {e}")
    starts = list(a.considered)
    arte = (("table rows", str(len(table.rows))), ("table scope", table.scope))

    def out_of_budget(horizon: int, status: str) -> list[CheckResult]:
        return result(Verdict.TIMEOUT, None, f"CP-SAT used its budget of {ctx.cpsat_budget:g} "
                      f"deterministic time units at T = {horizon} ({status})")

    if m >= 2:
        below = solve(track, table, m - 1, starts, "within", budget=ctx.cpsat_budget,
                      workers=ctx.workers)
        spent.append(below.deterministic_time)
        arte += (("variables below", str(below.variables)),)
        if below.status == "unknown":
            return out_of_budget(m - 1, below.solver_status)
        if below.status == "feasible":
            _, why, _ = replay(track, below.positions[0], below.velocities)
            arte += (("witness", str(below.positions)),)
            return result(Verdict.DISAGREE, f"<= {len(below.positions) - 1}",
                          f"an arrival within {m - 1} moves (replay: {why})")
    at = solve(track, table, m, starts, "exact", budget=ctx.cpsat_budget, workers=ctx.workers)
    spent.append(at.deterministic_time)
    arte += (("variables at m*", str(at.variables)),)
    if at.status == "unknown":
        return out_of_budget(m, at.solver_status)
    if at.status == "infeasible":
        return result(Verdict.DISAGREE, f"> {m}",
                      f"no arrival within {m - 1} moves and none at {m}")
    ok, why, first = replay(track, at.positions[0], at.velocities)
    arte += (("witness", str(list(at.positions))),
             ("witness replay (independent walk)", why))
    if not ok or first != m:
        return result(Verdict.DISAGREE, None, f"the CP-SAT witness does not replay: {why}")
    return result(Verdict.AGREE, m, f"infeasible within {m - 1} moves, feasible at {m}; "
                  "witness replayed")


CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity: the profile's expand vs the independent cell-path walk",
               check_geometry, MethodKind.SECOND_IMPLEMENTATION),
    NamedCheck("m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*",
               check_m_star_cpsat, MethodKind.SOLVER_MODEL),
    NamedCheck("independent cell-path search: m*, exact counts, finals, green and blue",
               check_search, MethodKind.SECOND_IMPLEMENTATION),
)
"""The cell-path profile's checks, in order (`racecert.certification.profiles` registers
them; its certificate is the start-list one, `LatticeCertificate`)."""
