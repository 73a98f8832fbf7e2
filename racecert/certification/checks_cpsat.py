"""The certificate's geometry and CP-SAT checks (see racecert.certification.certificate).

- move validity: racecert.model's rules vs racecert.independent.geometry, move by
  move from every reachable state (capped on big tracks);
- m*: the time-indexed CP-SAT model has no arrival within m* - 1 moves and a
  first arrival at m*; the witness is replayed by the independent geometry;
- optimal count: every solution at T = m* enumerated (small counts only);
- continuity: from each distinct optimal final state, both variants, the
  first continuation length of a bounded BFS vs the CP-SAT model.

The move tables come from racecert.independent.movetable (every move reachable from the
car's initial state, or from the optimal final states for continuity), never from the BFS;
each model step gets the rows of racecert.independent.tube (the same solutions).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.certification.evidence import closure_floor, continuable_counts
from racecert.certification.geometry_check import crosscheck_geometry
from racecert.independent.cpsat import CpsatResult, count_solutions, race_model, solve
from racecert.independent.geometry import Geometry, VState
from racecert.independent.movetable import (
    MoveTable,
    TableBudget,
    closure_table,
    race_table,
)
from racecert.model.rules import CarState
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs

CPSAT = "CP-SAT time-indexed model"


def _replay(track: Track, r: CpsatResult, initial: VState | None = None) -> tuple[bool, str]:
    return Geometry(track).replay(list(r.positions), initial)


# -- move validity ---------------------------------------------------------------------


def check_geometry(ctx: CertifyContext) -> list[CheckResult]:
    """Move validity: model rules vs the independent geometry."""
    t0 = time.perf_counter()
    cap = ctx.geometry_max_states
    r = crosscheck_geometry(ctx.track, max_states=cap, scalar=cap <= 100_000,
                            progress=lambda states, _moves: ctx.report(
                                f"states checked move by move (size budget {cap:,} states)",
                                states, None))
    scope = "every reachable state" if r.complete else (
        f"the first {r.states:,} reachable states (breadth-first; capped)")
    value = f"{r.moves:,} moves from {r.states:,} states, {len(r.disagreements)} differ"
    arte = tuple((f"disagreement {i + 1}", str(d)) for i, d in enumerate(r.disagreements[:10]))
    return [CheckResult(
        "move validity", "racecert.model rules (vectorised expand and apply_move)",
        "racecert.independent.geometry (Liang-Barsky clipping, Fractions)", value,
        Verdict.AGREE if r.agree else Verdict.DISAGREE,
        f"all 9 accelerations from {scope}, {r.valid_moves:,} valid, "
        f"{r.arriving_moves:,} arriving; the vectorised expand compared with the independent "
        f"geometry on each, which (with apply_move) judged each of the {r.distinct_moves:,} "
        "distinct moves (cell, layer, progress, phase, new velocity) once",
        time.perf_counter() - t0, arte,
        work=f"{r.states:,} states, {r.distinct_moves:,} distinct moves")]


# -- m* --------------------------------------------------------------------------------


def check_m_star(ctx: CertifyContext) -> list[CheckResult]:
    """m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*."""
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact
    horizon = b.m_star if b.reachable and b.m_star else 2 * (track.width + track.height)
    method = f"{CPSAT} (table: every move reachable from the car's initial state)"

    def out_of_budget(where: str) -> list[CheckResult]:
        return [CheckResult("m*", b.m_star, method, None, Verdict.TIMEOUT,
                            f"CP-SAT used its budget of {ctx.cpsat_budget:g} deterministic time "
                            f"units {where}", time.perf_counter() - t0)]

    try:
        table = race_table(track, closure_floor(ctx))
    except TableBudget as e:
        return [CheckResult("m*", b.m_star, method, None, Verdict.SKIPPED, str(e),
                            time.perf_counter() - t0)]
    ctx.report(f"CP-SAT solves at T = {horizon - 1} and {horizon} over {len(table):,} table "
               f"rows (budget {ctx.cpsat_budget:g} deterministic time units per solve)")
    arte = (("table rows", str(len(table))), ("table scope", table.scope))
    if not b.reachable:
        r = solve(race_model(track, table, horizon, "within"), budget=ctx.cpsat_budget,
                  workers=ctx.workers)
        if r.status == "unknown":
            return out_of_budget(f"at T = {horizon} ({r.solver_status})")
        if r.status == "infeasible":
            return [CheckResult("m*", None, method, None, Verdict.AGREE,
                                f"no arrival within {horizon} moves (CP-SAT); unreachability "
                                "beyond that horizon rests on the BFS alone",
                                time.perf_counter() - t0, arte)]
        return [CheckResult("m*", None, method, len(r.positions) - 1, Verdict.DISAGREE,
                            "CP-SAT found an arrival the BFS says is impossible",
                            time.perf_counter() - t0, arte + (("witness", str(r.positions)),))]
    m = horizon
    if m >= 2:
        below = solve(race_model(track, table, m - 1, "within"), budget=ctx.cpsat_budget,
                      workers=ctx.workers)
        if below.status == "unknown":
            return out_of_budget(f"at T = {m - 1} ({below.solver_status})")
        if below.status == "feasible":
            ok, why = _replay(track, below)
            return [CheckResult("m*", m, method, f"<= {len(below.positions) - 1}", Verdict.DISAGREE,
                                f"an arrival within {m - 1} moves (replay: {why})",
                                time.perf_counter() - t0,
                                arte + (("witness", str(below.positions)),))]
    at = solve(race_model(track, table, m, "exact"), budget=ctx.cpsat_budget,
               workers=ctx.workers)
    if at.status == "unknown":
        return out_of_budget(f"at T = {m} ({at.solver_status})")
    if at.status == "infeasible":
        return [CheckResult("m*", m, method, f"> {m}", Verdict.DISAGREE,
                            f"no arrival within {m - 1} moves and none at {m}",
                            time.perf_counter() - t0, arte)]
    ok, why = _replay(track, at)
    arte += (("witness", str(at.positions)), ("witness replay (independent geometry)", why))
    if not ok:
        return [CheckResult("m*", m, method, None, Verdict.DISAGREE,
                            f"the CP-SAT witness does not replay: {why}",
                            time.perf_counter() - t0, arte)]
    spent = at.deterministic_time + (below.deterministic_time if m >= 2 else 0.0)
    return [CheckResult("m*", m, method, m, Verdict.AGREE,
                        f"infeasible within {m - 1} moves, feasible at {m}; witness replayed",
                        time.perf_counter() - t0, arte,
                        work=f"{spent:.2f} deterministic time units; table {len(table):,} rows")]


# -- optimal count ---------------------------------------------------------------------


def check_count(ctx: CertifyContext) -> list[CheckResult]:
    """Optimal count by CP-SAT enumeration (small counts only)."""
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact
    method = f"{CPSAT}, enumerate_all_solutions at T = m* (1 worker)"
    bv = str(b.optimal_count) if b.reachable else None

    def na(reason: str) -> list[CheckResult]:
        return [CheckResult("optimal_count", bv, method, None, Verdict.NOT_APPLICABLE, reason,
                            time.perf_counter() - t0)]

    if not b.reachable or not b.m_star:
        return na("the finish is unreachable: nothing to count")
    if b.optimal_count > ctx.count_limit:
        return [CheckResult("optimal_count", bv, method, None, Verdict.SKIPPED,
                            f"the oracle's count of {b.optimal_count:,} trajectories is over "
                            f"the enumeration's size budget of {ctx.count_limit:,} "
                            "(--count-limit): not attempted",
                            time.perf_counter() - t0)]
    try:
        table = race_table(track, closure_floor(ctx))
    except TableBudget as e:
        return [CheckResult("optimal_count", bv, method, None, Verdict.SKIPPED, str(e),
                            time.perf_counter() - t0)]
    ctx.report(f"CP-SAT enumeration of {b.optimal_count:,} trajectories (limit "
               f"{ctx.count_limit:,}, budget {ctx.cpsat_budget:g} deterministic time units)")
    r = count_solutions(race_model(track, table, b.m_star, "exact"), limit=ctx.count_limit,
                        budget=ctx.cpsat_budget)
    if r.count is None:
        if r.reason.startswith("more than"):
            return [CheckResult("optimal_count", bv, method, f"> {ctx.count_limit}",
                                Verdict.DISAGREE,
                                f"CP-SAT enumerated {r.reason}", time.perf_counter() - t0)]
        return [CheckResult("optimal_count", bv, method, None, Verdict.TIMEOUT,
                            f"{r.reason}: {ctx.cpsat_budget:g} deterministic time units",
                            time.perf_counter() - t0)]
    verdict = Verdict.AGREE if str(r.count) == bv else Verdict.DISAGREE
    return [CheckResult("optimal_count", bv, method, str(r.count), verdict,
                        f"every trajectory with first arrival at m* = {b.m_star} enumerated",
                        time.perf_counter() - t0, (("limit", str(ctx.count_limit)),),
                        work=f"{r.deterministic_time:.2f} deterministic time units, "
                             f"{r.count:,} solutions")]


# -- continuity ------------------------------------------------------------------------


@dataclass
class _Continuations:
    """CP-SAT's first continuation from each start within a limit, solved once per start
    (the race and editor variants share the starts whose progress is 0), with the work."""

    track: Track
    table: MoveTable
    ctx: CertifyContext
    solves: int = 0
    units: float = 0.0  # deterministic time

    def within(self, initial: tuple, limit: int) -> CpsatResult:
        """One solve: the earliest continuation from `initial` within `limit` moves, proven
        earliest by CP-SAT's optimality (no presolve: its probing costs about a second on
        each of these many small models)."""
        r = solve(race_model(self.track, self.table, limit, "within", initial),
                  budget=self.ctx.cpsat_budget, workers=self.ctx.workers, presolve=False,
                  earliest=True)
        self.solves += 1
        self.units += r.deterministic_time
        return r

    def first(self, initial: tuple, bfs_len: int | None, horizon: int
              ) -> tuple[str, int | None, CpsatResult | None]:
        """('ok', first length, witness), ('none', ...) when nothing continues within
        `bfs_len` (or `horizon`), ('unknown', ...) when the solve used its budget before
        proving its arrival the earliest. One optimisation solve per start: CP-SAT's
        optimum is the first continuation length (a witness of that length, and the proof
        that none is shorter), which must equal the bounded BFS's."""
        r = self.within(initial, bfs_len or horizon)
        if r.status != "feasible":
            return ("unknown" if r.status == "unknown" else "none"), None, None
        return "ok", len(r.positions) - 1, r


def check_continuity(ctx: CertifyContext) -> list[CheckResult]:
    """Continuity of the optimal final states by CP-SAT (both variants)."""
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact
    figures = ("continuable final states (race rule)",
               "continuable final states (editor certification)")
    if not b.reachable or b.dag is None or not b.m_star:
        return [CheckResult(f, None, CPSAT, None, Verdict.NOT_APPLICABLE, "no optimal final states",
                            0.0) for f in figures]
    cont = None if ctx.analysis is None else ctx.analysis.continuity
    if cont is not None and not cont.applicable:
        return [CheckResult(f, None, CPSAT, None, Verdict.NOT_APPLICABLE,
                            "a stage: continuity into another lap does not apply", 0.0)
                for f in figures]
    arr = b.dag.arrive_state
    finals = sorted({arr.state(i) for i in range(len(arr))},
                    key=lambda s: (s.kinematic, s.progress))
    horizon = 2 * b.m_star + 4
    try:
        table = closure_table(track, tuple(sorted({(s.x, s.y, s.vx, s.vy, s.layer)
                                                   for s in finals})),
                              "the optimal final states")
    except TableBudget as e:
        return [CheckResult(f, None, CPSAT, None, Verdict.SKIPPED, str(e),
                            time.perf_counter() - t0) for f in figures]
    oracle = _continuation_oracle(track)
    cp = _Continuations(track, table, ctx)
    memo: dict[tuple[int, ...], tuple] = {}

    def decide(init: tuple) -> tuple:
        """Bounded BFS length, its reachability, and CP-SAT's first continuation from
        `init` (computed once for both variants)."""
        if init not in memo:
            ref = layered_bfs(track, "exact", initial=CarState(*init), max_depth=horizon)
            bfs_len = ref.m_star if ref.reachable else None
            memo[init] = (bfs_len, ref.reachable, *cp.first(init, bfs_len, horizon))
        return memo[init]

    out = []
    for fig, race in zip(figures, (True, False), strict=True):
        t1 = time.perf_counter()
        starts = sorted({(s.x, s.y, s.vx, s.vy, s.layer, s.progress if race else 0, s.phase)
                         for s in finals})
        ref_yes = cp_yes = checked = beyond = 0
        verdicts: dict[tuple[int, ...], bool] = {}
        bad: list[str] = []
        stop = ""
        capped = over_budget = False
        for init in starts:
            ctx.report(f"{'race rule' if race else 'editor certification'}: final states "
                       f"by CP-SAT (budget {ctx.cpsat_budget:g} deterministic time units per "
                       "solve)", checked, len(starts))
            if ctx.continuity_max_states is not None and checked >= ctx.continuity_max_states:
                stop = (f"checked the first {checked} of {len(starts)} final states: the "
                        f"size budget is {ctx.continuity_max_states:,} final states")
                capped = True
                break
            bfs_len, reached, st, length, wit = decide(init)
            verdict_ref = oracle(init) if oracle is not None else reached
            if st == "unknown":
                stop = (f"CP-SAT used its budget of {ctx.cpsat_budget:g} deterministic time "
                        f"units on {init}")
                over_budget = True
                break
            checked += 1
            ref_yes += verdict_ref
            cp_yes += st == "ok"
            verdicts[init] = st == "ok"
            if st == "ok" and wit is not None:
                ok, why = _replay(track, wit, VState(*init))
                if not ok:
                    bad.append(f"{init}: CP-SAT witness does not replay ({why})")
            cp_len = length if st == "ok" else None
            if cp_len != bfs_len:
                bad.append(f"{init}: first continuation within {horizon}: bounded BFS "
                           f"{bfs_len}, CP-SAT {cp_len}")
            if st == "ok" and not verdict_ref:
                bad.append(f"{init}: continuity oracle says no, CP-SAT continues in {cp_len}")
            if verdict_ref and st == "none":
                beyond += 1  # continuable, but only beyond the horizon: not confirmed here
        who = ("racecert.oracle.continuity oracle" if oracle is not None
               else f"layered BFS from the final state (max depth {horizon})")
        reason = (f"bfs value: {who}; from (x, y, vx, vy, layer, "
                  f"progress{' = 0' if not race else ''}, phase) CP-SAT seeks a start-then-"
                  f"finish continuation within {horizon} moves; its first length is compared "
                  "with a bounded BFS")
        if beyond:
            reason += (f"; {beyond} continuable only beyond the model's size budget of "
                       f"{horizon} moves (2·m*+4; not confirmed)")
        if stop:
            reason += f"; {stop}"
        complete = checked == len(starts) and not beyond
        verdict = (Verdict.DISAGREE if bad else Verdict.AGREE if complete
                   else Verdict.TIMEOUT if over_budget
                   else Verdict.SKIPPED if capped or beyond else Verdict.TIMEOUT)
        oracle_count, method_count = continuable_counts(ctx, race, verdicts)
        if verdict == Verdict.AGREE and oracle_count is not None:
            if method_count is None:
                verdict = Verdict.TIMEOUT
                reason += "; the independent search gave no arrival counts (its budget)"
            elif method_count != oracle_count:
                verdict = Verdict.DISAGREE
                reason += (f"; continuable trajectories: oracle {oracle_count}, "
                           f"independent {method_count}")
            else:
                reason += ("; the count sums the independent search's arrival counts over "
                           "the arrivals CP-SAT continues")
        out.append(CheckResult(fig, _str(oracle_count), CPSAT, _str(method_count),
                               verdict, reason, time.perf_counter() - t1,
                               tuple((f"mismatch {i + 1}", m) for i, m in enumerate(bad[:10]))
                               + (("final states", str(len(starts))),
                                  ("continuable final states", f"{cp_yes}/{checked} "
                                   f"(oracle {ref_yes}/{checked})")),
                               work=f"{cp.solves} CP-SAT solves so far (shared by both "
                                    f"variants), {cp.units:.2f} deterministic time units; "
                                    f"table {len(table):,} rows"))
    return out


def _str(v: int | None) -> str | None:
    return None if v is None else str(v)


def _continuation_oracle(track: Track):
    """The pipeline's continuity oracle as a per-state verdict, or None if not installed."""
    try:
        from racecert.oracle.continuity import ContinuationOracle
    except ImportError:
        return None
    from racecert.model.rules import StateArrays

    oracle = ContinuationOracle(track)

    def verdict(init: tuple[int, ...]) -> bool:
        return bool(oracle.can_arrive(StateArrays.of([CarState(*init)]))[0])

    return verdict


