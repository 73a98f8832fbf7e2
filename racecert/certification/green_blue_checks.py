"""Green and blue lengths and tie counts, confirmed by CP-SAT optimisation.

The oracle's figures come from the analysis (a DP over the BFS's optimal DAG,
exact `RadicalSum` arithmetic); the independent values from
`racecert.independent.cpsat_lengths.extreme_length` over the move table of the
independent geometry, with lengths as sympy expressions. The two exact lengths
are compared by sympy (the oracle's canonical string parsed by sympy), so the
project's own radical arithmetic is judged by a second implementation.
"""

from __future__ import annotations

import time

import sympy

from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.independent.cpsat import race_model
from racecert.independent.cpsat_lengths import extreme_length
from racecert.independent.movetable import TableBudget, race_table

MAX_TABLE_ROWS = 50_000
"""Largest reachable-move table the optimisation is tried on: on open tracks (llanura:
161,353 rows) the error band holds so many near-equal lengths that a CP-SAT solve runs for
many minutes inside its deterministic budget; a size budget decides it up front, the same
on any machine."""

METHOD = ("CP-SAT optimisation of a scaled length (|error| <= m*/2 units), then every "
          "trajectory of the error band with exact sympy lengths")


def check_green_blue(ctx: CertifyContext) -> list[CheckResult]:
    """Green and blue: exact extreme length and tie count of the optimal trajectories."""
    a = ctx.analysis
    reps = None if a is None else a.representatives
    labels = ("green length and ties", "blue length and ties")
    if a is None or reps is None or not a.bfs.reachable or not a.bfs.m_star:
        return [CheckResult(f, None, METHOD, None, Verdict.NOT_APPLICABLE,
                            "the finish is unreachable: no green or blue", 0.0) for f in labels]
    m = a.bfs.m_star
    try:
        table = race_table(ctx.track)
    except TableBudget as e:
        return [CheckResult(f, None, METHOD, None, Verdict.SKIPPED, str(e), 0.0)
                for f in labels]
    if len(table) > MAX_TABLE_ROWS:
        why = (f"the reachable-move table holds {len(table):,} rows, over the optimisation's "
               f"size budget of {MAX_TABLE_ROWS:,} rows (the DAG check covers every size)")
        return [CheckResult(f, None, METHOD, None, Verdict.SKIPPED, why, 0.0) for f in labels]
    model = race_model(ctx.track, table, m, "exact")
    out = []
    for label, which, ext in zip(labels, ("green", "blue"), (reps.green, reps.blue),
                                 strict=True):
        t0 = time.perf_counter()
        oracle_value = f"{ext.length} x{ext.ties}"
        ctx.report(f"{which}: CP-SAT optimisation over {len(table):,} table rows (budget "
                   f"{ctx.cpsat_budget:g} deterministic time units per solve)")
        r = extreme_length(model, which, budget=ctx.cpsat_budget)
        work = (f"{r.deterministic_time:.2f} deterministic time units, "
                f"{r.band:,} trajectories in the band")
        if r.status != "optimal":
            verdict = Verdict.DISAGREE if r.status == "infeasible" else Verdict.TIMEOUT
            out.append(CheckResult(label, oracle_value, METHOD, None, verdict, r.reason,
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
        out.append(CheckResult(label, oracle_value, METHOD, f"{r.length} x{r.ties}",
                               Verdict.AGREE if agree else Verdict.DISAGREE, reason,
                               time.perf_counter() - t0, work=work))
    return out
