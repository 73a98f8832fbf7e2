"""Green/blue, yellow, coverage and score from the independent search's optimal DAG.

Each figure is recomputed by separate code on the independent side and compared
with the analysis (the oracle's values):

- green and blue: `racecert.independent.extremes.extreme_lengths`, a DP over the
  independent DAG with exact lengths as coefficient vectors (sympy decides what
  floats cannot) and exact tie counts;
- yellow: `racecert.independent.yellow.shortest_arrival`, a second least-length
  search over fastgeom's moves (pruned by the independent green length, a proven
  upper bound);
- coverage: `racecert.independent.coverage.red_coverage` over the independent DAG
  with fastgeom's touched cells;
- score: `racecert.independent.score.design_score` from the independent inputs
  above (coverage, yellow moves, m*, green, blue, spatial separation of the two
  representatives); the kind and the continuable fraction come from the
  certificate's own figures, each checked by its own checks.

Every piece is bounded by the certificate's state budget; past it the figure is
`timeout`, naming the budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from racecert.analysis.pipeline import Analysis
from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.certification.evidence import independent_search
from racecert.independent.agreement import (
    compare_coverage,
    compare_extreme,
    compare_score,
    compare_yellow,
)
from racecert.independent.coverage import jaccard_distance, red_coverage, trajectory_cells
from racecert.independent.dag import LayeredDag
from racecert.independent.extremes import ExtremeLengths, extreme_lengths
from racecert.independent.fastgeom import FastGeometry, touched_cells
from racecert.independent.score import design_score
from racecert.independent.yellow import SearchBudget, YellowTrajectory, shortest_arrival

EXTREMES = "DP over the independent search's DAG (exact coefficient vectors, sympy ties)"
YELLOW = "second least-length search over fastgeom moves (racecert.independent.yellow)"
COVERAGE = "red cells of the independent DAG with fastgeom's touched cells"
SCORE = "racecert.independent.score from the independent green, blue, yellow and coverage"


@dataclass(frozen=True)
class _Pieces:
    """The independent figures the checks compare (None where a budget stopped them)."""

    extremes: ExtremeLengths
    yellow: YellowTrajectory | None
    yellow_reason: str
    dag: LayeredDag


def _verdict(problems: list[str]) -> tuple[str, str]:
    return (Verdict.DISAGREE, "; ".join(problems)) if problems else (Verdict.AGREE, "")


def check_dag_figures(ctx: CertifyContext) -> list[CheckResult]:
    """Green, blue, yellow, coverage and score recomputed from the independent DAG."""
    a = ctx.analysis
    labels = ("green length and ties", "blue length and ties", "yellow_moves",
              "yellow_length", "coverage", "score")
    if a is None or not a.bfs.reachable:
        return [CheckResult(f, None, EXTREMES, None, Verdict.NOT_APPLICABLE,
                            "the finish is unreachable", 0.0) for f in labels]
    t0 = time.perf_counter()
    res = independent_search(ctx.track, ctx.max_states)
    if res.dag is None:
        return [CheckResult(f, None, EXTREMES, None, Verdict.TIMEOUT, res.message, 0.0)
                for f in labels]
    dag = LayeredDag.of(res.dag)
    ext = extreme_lengths(dag)
    seconds = time.perf_counter() - t0
    work = (f"{ext.states:,} DAG states, {ext.moves_examined:,} moves; "
            f"{ext.decided_by_sympy} comparisons by sympy")
    out = _extreme_results(a, ext, seconds, work)
    yellow, why = _yellow(ctx, ext)
    out += _yellow_results(a, yellow, why)
    out += _coverage_and_score(ctx, a, _Pieces(ext, yellow, why, dag))
    return out


def _extreme_results(a: Analysis, ext: ExtremeLengths, seconds: float, work: str
                     ) -> list[CheckResult]:
    reps = a.representatives
    assert reps is not None
    out = []
    for name, mine, theirs in (("green", ext.green, reps.green), ("blue", ext.blue, reps.blue)):
        verdict, why = _verdict(compare_extreme(name, mine, str(theirs.length), theirs.ties))
        out.append(CheckResult(f"{name} length and ties", f"{theirs.length} x{theirs.ties}",
                               EXTREMES, f"{mine.length} x{mine.ties}", verdict,
                               why or f"exact {name} length and ties over the independent DAG",
                               seconds, (), work))
    return out


def _yellow(ctx: CertifyContext, ext: ExtremeLengths) -> tuple[YellowTrajectory | None, str]:
    try:
        geom = FastGeometry(ctx.track)
        return shortest_arrival(ctx.track, geom.classify, upper_bound=ext.green.length,
                                max_states=ctx.max_states), ""
    except SearchBudget as exc:
        return None, str(exc)


def _yellow_results(a: Analysis, mine: YellowTrajectory | None, why: str
                    ) -> list[CheckResult]:
    y = a.yellow
    if mine is None:
        return [CheckResult(f, None, YELLOW, None, Verdict.TIMEOUT, why, 0.0)
                for f in ("yellow_moves", "yellow_length")]
    problems = compare_yellow(mine, None if y.length is None else str(y.length), y.moves)
    verdict, reason = _verdict(problems)
    work = f"{mine.states_stored:,} states stored, {mine.states_settled:,} settled"
    reason = reason or "least length, then fewest moves, over every arriving trajectory"
    return [CheckResult("yellow_moves", y.moves, YELLOW, mine.moves, verdict, reason, 0.0, (),
                        work),
            CheckResult("yellow_length", None if y.length is None else str(y.length), YELLOW,
                        None if mine.length is None else str(mine.length), verdict, reason,
                        0.0, (), work)]


def _coverage_and_score(ctx: CertifyContext, a: Analysis, p: _Pieces) -> list[CheckResult]:
    out = []
    t0 = time.perf_counter()
    cov = red_coverage(ctx.track, p.dag, touched_cells)
    c = a.coverage
    assert c is not None
    problems = compare_coverage(cov, c.fraction, len(c.cells), c.drivable)
    verdict, why = _verdict(problems)
    out.append(CheckResult("coverage", str(c.fraction), COVERAGE, str(cov.fraction), verdict,
                           why or f"{len(cov.cells)} of {cov.drivable} drivable cells",
                           time.perf_counter() - t0, (), f"{p.dag.size:,} DAG states"))
    s = a.score
    if s is None or p.yellow is None or p.yellow.moves is None:
        why = p.yellow_reason or "no score on this track"
        out.append(CheckResult("score", None, SCORE, None,
                               Verdict.TIMEOUT if p.yellow_reason
                               else Verdict.NOT_APPLICABLE, why, 0.0))
        return out
    green, blue = p.extremes.green, p.extremes.blue
    cont = a.continuity
    mine = design_score(
        red=cov.fraction, yellow_moves=p.yellow.moves, m_star=p.dag.moves, green=green.length,
        blue=blue.length, circuit=a.kind == "circuit",
        spatial_sep=jaccard_distance(trajectory_cells(green.positions, touched_cells),
                                     trajectory_cells(blue.positions, touched_cells)),
        continuable=None if cont is None or not cont.applicable else Fraction(cont.percent))
    verdict, why = _verdict(compare_score(mine, s.total, s.band, s.capped))
    out.append(CheckResult("score", f"{s.total:.2f}", SCORE, f"{float(mine.total):.2f}",
                           verdict, why or f"band {mine.band}; kind and continuable fraction "
                           "from the certificate's own figures", 0.0))
    return out
