"""Green and blue certified by RC2 MaxSAT: exact extreme lengths and tie counts.

Two sides, sharing only the exact arithmetic (`RadicalSum`):

- BFS side (`dag_extremes`): a small exact dynamic programme over the BFS
  oracle's optimal DAG (`BfsResult.dag`) keeping, per DAG state, the minimum
  and maximum exact length of a path from the start and how many paths reach
  it (Python ints). Written here, not taken from `racecert.analysis` (verify/
  must not import analysis/), and with no float shortcut.
- Independent side: `racecert.independent.maxsat.extreme_trajectories`, best-first
  RC2 enumeration over the CNF of the verify move table
  (`racecert.independent.movetable`, `race_rules.table_successors`), never the BFS's moves.

Both range over every optimal trajectory (every arrival at move m*); the
report's eligibility filter (continuable arrivals) is not applied. A check
agrees when the exact length (canonical string) and the tie count are equal
and MaxSAT's representative replays through the independent geometry with that
length; any difference is a disagreement.

Size limit: enumeration is exhaustive near the optimum, so the check runs only
when m* <= MAXSAT_MAX_MSTAR and the BFS count <= MAXSAT_MAX_COUNT; otherwise
both figures are not-applicable (nothing is solved).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from racecert.certification.context import CertifyContext, CheckResult
from racecert.independent.geometry import Geometry
from racecert.independent.maxsat import ExtremeResult, extreme_trajectories
from racecert.independent.movetable import move_table
from racecert.independent.race_rules import (
    OpeningRule,
    Successors,
    initial_state,
    table_successors,
)
from racecert.model.radicals import RadicalSum, length_of_moves
from racecert.oracle.bfs import BfsResult, OptimalDag

MAXSAT_MAX_MSTAR = 12
"""Tracks with a larger m* are not applicable (RC2 enumeration cost grows with the horizon)."""
MAXSAT_MAX_COUNT = 200
"""Tracks with more optimal trajectories are not applicable (candelabro's 928 took minutes)."""
METHOD = "RC2 MaxSAT best-first enumeration (racecert.independent.maxsat) + geometry replay"
FIGURES = {"green": "green length and ties", "blue": "blue length and ties"}
Which = Literal["green", "blue"]


@dataclass(frozen=True)
class DagExtreme:
    """Exact extreme length of the DAG's optimal trajectories and how many attain it."""

    length: RadicalSum
    ties: int


def dag_extremes(dag: OptimalDag) -> dict[str, DagExtreme]:
    """{"green": shortest, "blue": longest} over every path of the optimal DAG, exactly.

    A move's length is |v'| of the state it enters (`RadicalSum.of_vector`); the
    arriving move's is |v'| of `dag.arrive_state`. Per state: (min, #min, max, #max).

    >>> # dag_extremes(layered_bfs(track, "exact").dag)["green"].ties
    """
    zero = RadicalSum.zero()
    cur = [(zero, 1, zero, 1)]  # layer 0: the initial state
    for t, (src, dst) in enumerate(dag.edges):
        b = dag.layers[t + 1]
        nxt: list[tuple[RadicalSum, int, RadicalSum, int] | None] = [None] * len(b)
        for s, d in zip(src.tolist(), dst.tolist(), strict=True):
            step = RadicalSum.of_vector(int(b.vx[d]), int(b.vy[d]))
            nxt[d] = _merge(nxt[d], cur[s], step)
        if any(v is None for v in nxt):
            raise ValueError(f"DAG layer {t + 1} has a state with no incoming move")
        cur = nxt  # type: ignore[assignment]
    out: tuple[RadicalSum, int, RadicalSum, int] | None = None
    a = dag.arrive_state
    for i, s in enumerate(dag.arrive_src.tolist()):
        out = _merge(out, cur[s], RadicalSum.of_vector(int(a.vx[i]), int(a.vy[i])))
    if out is None:
        raise ValueError("the DAG has no arriving move")
    return {"green": DagExtreme(out[0], out[1]), "blue": DagExtreme(out[2], out[3])}


def _merge(acc: tuple[RadicalSum, int, RadicalSum, int] | None,
           src: tuple[RadicalSum, int, RadicalSum, int], step: RadicalSum
           ) -> tuple[RadicalSum, int, RadicalSum, int]:
    """Fold the paths through `src` extended by a move of length `step` into `acc`."""
    lo, nlo, hi, nhi = src[0] + step, src[1], src[2] + step, src[3]
    if acc is None:
        return lo, nlo, hi, nhi
    alo, anlo, ahi, anhi = acc
    if alo == lo:
        alo, anlo = alo, anlo + nlo
    elif lo < alo:
        alo, anlo = lo, nlo
    if ahi == hi:
        ahi, anhi = ahi, anhi + nhi
    elif ahi < hi:
        ahi, anhi = hi, nhi
    return alo, anlo, ahi, anhi


def _value(length: RadicalSum, ties: int) -> str:
    return f"{length}; ties {ties}"


def judge(which: Which, ref: DagExtreme, res: ExtremeResult, geometry: Geometry,
          m_star: int, bfs_count: int, seconds: float) -> CheckResult:
    """The verdict of one figure: MaxSAT's (length, ties) against the DAG DP's.

    Agrees only when the canonical length strings and the tie counts are equal, the
    enumeration was complete, and the representative replays with m* moves and that length.
    """
    rep = list(res.representative)
    ok, why = geometry.replay(rep)
    moves = len(rep) - 1
    rep_len = length_of_moves((x2 - x1, y2 - y1)
                              for (x1, y1), (x2, y2) in zip(rep, rep[1:], strict=False))
    problems = []
    if not res.complete:
        problems.append(f"enumeration stopped at {res.enumerated} trajectories of m* moves, "
                        f"more than the BFS count {bfs_count}")
    if str(res.length) != str(ref.length):
        problems.append(f"length {res.length} != DAG's {ref.length}")
    if res.ties != ref.ties:
        problems.append(f"ties {res.ties} != DAG's {ref.ties}")
    if not ok or moves != m_star:
        problems.append(f"representative of {moves} moves does not replay: {why}")
    if rep_len != res.length:
        problems.append(f"representative's length {rep_len} != reported {res.length}")
    scope = (f"all optimal trajectories (m* = {m_star}); {res.enumerated} enumerated within "
             f"the scaled-cost band; representative replayed: {why}")
    reason = ("; ".join(problems) + "; " if problems else "") + scope
    arte = (("bfs length", str(ref.length)), ("bfs ties", str(ref.ties)),
            ("maxsat length", str(res.length)), ("maxsat ties", str(res.ties)),
            ("enumerated", str(res.enumerated)), ("complete", str(res.complete)),
            ("representative", " ".join(f"({x},{y})" for x, y in rep)))
    return CheckResult(FIGURES[which], _value(ref.length, ref.ties), METHOD,
                       _value(res.length, res.ties), "disagree" if problems else "agree",
                       reason, seconds, arte)


def maxsat_checks(ctx: CertifyContext, successors: Successors | None = None
                  ) -> list[CheckResult]:
    """Green and blue (exact length and ties) of the exact key, DAG DP vs RC2 MaxSAT.

    `successors` replaces the one built from the verify move table (tests pass a
    corrupted one to see the check fail).
    """
    t0 = time.perf_counter()
    bfs: BfsResult = ctx.exact
    m, count = bfs.m_star, bfs.optimal_count
    why = None
    if not bfs.reachable or m is None or bfs.dag is None:
        why = "the BFS reports no arrival; no green or blue"
    elif m > MAXSAT_MAX_MSTAR or count > MAXSAT_MAX_COUNT:
        why = (f"m* = {m}, {count} optimal trajectories: beyond the MaxSAT check's size limit "
               f"(m* <= {MAXSAT_MAX_MSTAR} and optimal_count <= {MAXSAT_MAX_COUNT})")
    if why is not None:
        return [CheckResult(FIGURES[w], None, METHOD, None, "not-applicable", why, 0.0)
                for w in ("green", "blue")]
    assert m is not None and bfs.dag is not None
    track = ctx.track
    refs = dag_extremes(bfs.dag)
    if successors is None:
        successors = table_successors(move_table(track, m), track)
    k = OpeningRule.of(track).moves
    s0 = initial_state(track)
    geometry = Geometry(track)
    setup = time.perf_counter() - t0
    out = []
    for which in ("green", "blue"):
        t1 = time.perf_counter()
        try:
            res = extreme_trajectories(track, successors, s0, m, k, which, length_of_moves,
                                       max_models=count + 1)
        except ValueError as exc:  # no trajectory of exactly m* moves in the CNF
            ref = refs[which]
            out.append(CheckResult(FIGURES[which], _value(ref.length, ref.ties), METHOD, None,
                                   "disagree", f"MaxSAT: {exc}", time.perf_counter() - t1))
            continue
        out.append(judge(which, refs[which], res, geometry, m, count,
                         setup / 2 + time.perf_counter() - t1))
    return out


def check_green_blue(ctx: CertifyContext) -> list[CheckResult]:
    """MaxSAT green/blue: exact extreme lengths and tie counts of the optimal trajectories."""
    return maxsat_checks(ctx)


