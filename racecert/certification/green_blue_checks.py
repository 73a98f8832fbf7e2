"""Green and blue lengths and tie counts, confirmed by CP-SAT optimisation.

The oracle's figures come from the analysis (a DP over the BFS's optimal DAG,
exact `RadicalSum` arithmetic); the independent values from
`racecert.independent.cpsat_lengths.extreme_length`, posed two ways:

- `check_green_blue`: over the time-indexed model of the reachable-move table of the
  independent geometry (every m*-move trajectory of the closure), up to a table-size
  budget;
- `check_green_blue_dag`: over the independent search's optimal DAG
  (`racecert.independent.cpsat_dag`: a flow over its moves, whose solutions are exactly
  its optimal trajectories), which stays small where the closure does not (llanura, open
  areas, corridors). It is CP-SAT *over the independent DAG*: the DAG is its input, not
  re-derived.

Lengths are sympy expressions; the two exact lengths are compared by sympy (the oracle's
canonical string parsed by sympy), so the project's own radical arithmetic is judged by a
second implementation.
"""

from __future__ import annotations

import time

import sympy

from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.certification.evidence import closure_floor, independent_search
from racecert.independent.cpsat import race_model
from racecert.independent.cpsat_dag import DagLengths
from racecert.independent.cpsat_lengths import LengthModel, RaceModel, extreme_length
from racecert.independent.dag import LayeredDag
from racecert.independent.movetable import TableBudget, race_table

MAX_TABLE_ROWS = 50_000
"""Largest reachable-move table the optimisation is tried on: on open tracks (llanura: 161,353
rows) the error band holds so many near-equal lengths that a CP-SAT solve runs for
many minutes inside its deterministic budget; a size budget decides it up front, the same
on any machine."""

MAX_DAG_MOVES = 100_000
"""Largest optimal DAG (moves between layers plus arriving moves: one Boolean each) the DAG
model is built for (open 120x120: 83,419 moves, 3.7 s; open 200x200's 878,893 would cost
about 53 s, most of it building the model in Python)."""

TABLE_BAND_CAP = 100_000
"""The band budget of the table model (tables of at most `MAX_TABLE_ROWS` rows)."""

BAND_CAP = 10_000
"""Most trajectories of the error band the exact comparison enumerates (about 150 a CPU
second on corridor 1000x5's DAG, whose green has 4,333 ties); past it the result is
`timeout`, never agreement. Where the oracle itself claims more ties than this, the
enumeration could not finish within it, so the colour is `skipped` up front (llanura's
green: 139,968); an oracle that claims too few is caught by the enumeration."""

METHOD = ("CP-SAT optimisation of a scaled length (|error| <= m*/2 units), then every "
          "trajectory of the error band with exact sympy lengths")
DAG_METHOD = ("CP-SAT over the independent search's optimal DAG (one Boolean per DAG move, "
              "a unit flow: its solutions are the DAG's optimal trajectories): optimisation "
              "of a scaled length (|error| <= m*/2 units), then every trajectory of the "
              "error band with exact sympy lengths")
LABELS = ("green length and ties", "blue length and ties")


def _every(method: str, verdict: Verdict, why: str) -> list[CheckResult]:
    return [CheckResult(f, None, method, None, verdict, why, 0.0) for f in LABELS]


def _unreachable(ctx: CertifyContext, method: str) -> list[CheckResult] | None:
    a = ctx.analysis
    if a is None or a.representatives is None or not a.bfs.reachable or not a.bfs.m_star:
        return _every(method, Verdict.NOT_APPLICABLE, "the finish is unreachable: no green "
                      "or blue")
    return None


def check_green_blue(ctx: CertifyContext) -> list[CheckResult]:
    """Green and blue: exact extreme length and tie count of the optimal trajectories,
    over the reachable-move table's time-indexed model."""
    if (na := _unreachable(ctx, METHOD)) is not None:
        return na
    assert ctx.analysis is not None
    m = ctx.analysis.bfs.m_star
    try:
        table = race_table(ctx.track, closure_floor(ctx))
    except TableBudget as e:
        return _every(METHOD, Verdict.SKIPPED, str(e))
    if len(table) > MAX_TABLE_ROWS:
        return _every(METHOD, Verdict.SKIPPED,
                      f"the reachable-move table holds {len(table):,} rows, over the "
                      f"optimisation's size budget of {MAX_TABLE_ROWS:,} rows (the DAG "
                      "checks cover every size)")
    return _solve(ctx, METHOD, race_model(ctx.track, table, m, "exact"),
                  f"{len(table):,} table rows", band_cap=TABLE_BAND_CAP)


def check_green_blue_dag(ctx: CertifyContext) -> list[CheckResult]:
    """Green and blue: exact extreme length and tie count of the optimal trajectories,
    over a CP-SAT flow model of the independent search's optimal DAG."""
    if (na := _unreachable(ctx, DAG_METHOD)) is not None:
        return na
    res = independent_search(ctx.track, ctx.max_states)
    if res.dag is None:
        return _every(DAG_METHOD, Verdict.TIMEOUT, res.message)
    model = DagLengths(LayeredDag.of(res.dag))
    if model.moves > MAX_DAG_MOVES:
        return _every(DAG_METHOD, Verdict.SKIPPED,
                      f"the optimal DAG holds {model.moves:,} moves, over the DAG model's "
                      f"size budget of {MAX_DAG_MOVES:,} moves")
    return _solve(ctx, DAG_METHOD, model, f"{model.moves:,} DAG moves", band_cap=BAND_CAP)


def _solve(ctx: CertifyContext, method: str, model: RaceModel | LengthModel, size: str, *,
           band_cap: int) -> list[CheckResult]:
    """Green then blue by `extreme_length` over `model`, each compared with the oracle."""
    reps = ctx.analysis.representatives if ctx.analysis is not None else None
    assert reps is not None
    out = []
    for label, which, ext in zip(LABELS, ("green", "blue"), (reps.green, reps.blue),
                                 strict=True):
        t0 = time.perf_counter()
        oracle_value = f"{ext.length} x{ext.ties}"
        if ext.ties > band_cap:
            out.append(CheckResult(label, oracle_value, method, None, Verdict.SKIPPED,
                                   f"the oracle claims {ext.ties:,} tied {which} trajectories, "
                                   f"over the band budget of {band_cap:,} trajectories that "
                                   "the exact comparison enumerates", 0.0))
            continue
        ctx.report(f"{which}: CP-SAT optimisation over {size} (budget {ctx.cpsat_budget:g} "
                   f"deterministic time units per solve, at most {band_cap:,} trajectories "
                   "in the band)")
        r = extreme_length(model, which, budget=ctx.cpsat_budget, band_cap=band_cap)
        work = (f"{size}; {r.deterministic_time:.2f} deterministic time units, "
                f"{r.band:,} trajectories in the band")
        if r.status != "optimal":
            verdict = Verdict.DISAGREE if r.status == "infeasible" else Verdict.TIMEOUT
            out.append(CheckResult(label, oracle_value, method, None, verdict, r.reason,
                                   time.perf_counter() - t0, work=work))
            continue
        same_length = sympy.sympify(str(ext.length)) - r.length == 0
        agree = same_length and r.ties == ext.ties
        reason = (f"exact {which} length {r.length} with {r.ties} tied "
                  f"(representative {' '.join(f'({x},{y})' for x, y in r.representative)})")
        if not same_length:
            reason = f"lengths differ: oracle {ext.length}, CP-SAT {r.length}"
        elif r.ties != ext.ties:
            reason = f"tie counts differ: oracle {ext.ties}, CP-SAT {r.ties}"
        out.append(CheckResult(label, oracle_value, method, f"{r.length} x{r.ties}",
                               Verdict.AGREE if agree else Verdict.DISAGREE, reason,
                               time.perf_counter() - t0, work=work))
    return out
