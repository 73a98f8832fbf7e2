"""Best-first enumeration of optimal trajectories by Euclidean length (RC2 MaxSAT).

Technique: an exact weighted MaxSAT solver (RC2) returns an
optimum, a blocking clause forbids that solution, and the next call returns
the next best. Here a solution is one trajectory of exactly T = m* moves:

- hard: the reachability-cut clauses of `racecert.independent.sat` for horizon T,
  exactly one state per time step (so the supports form one chain) and exactly
  one arriving move from the state at time T-1;
- soft: for each state variable (time t >= 1, velocity v) and each arriving
  move, weight round(|v| * SCALE): a negative soft literal for the shortest
  trajectory (green), a positive one for the longest (blue; with one state per
  step, violating the positive softs of the unchosen states costs
  total - chosen, so minimising it maximises the length).

The scaled order is approximate: each term is off by at most 1/2, so a
trajectory's scaled cost is within T/2 of SCALE times its exact length. Every
trajectory whose exact length ties the extreme therefore has a scaled cost
within T of the first optimum; the enumeration continues until the cost
exceeds that bound, and the candidates are then ordered with exact radical
sums (the caller's `exact_length`) to find the extreme and count its ties.

Size limit: `max_models` trajectories are enumerated at most (default 2000);
beyond, `ExtremeResult.complete` is False and no tie count is claimed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from racecert.independent.race_rules import State, Successors
from racecert.independent.sat import build_reach_cnf
from racecert.model.track import Track

SCALE = 10_000
Positions = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ExtremeResult:
    """The extreme trajectories found: their exact length, how many tie, what was enumerated."""

    which: str  # "green" (min) | "blue" (max)
    length: Any  # the caller's exact length type (e.g. RadicalSum)
    ties: int
    representative: Positions
    enumerated: int
    complete: bool
    seconds: float


def _weight(vx: int, vy: int) -> int:
    return round(math.sqrt(vx * vx + vy * vy) * SCALE)


def _exactly_one(lits: list[int], top: int) -> tuple[list[list[int]], int]:
    """Clauses for exactly one of `lits` (sequential counter for AMO), and the new top var."""
    from pysat.card import CardEnc, EncType

    enc = CardEnc.equals(lits=lits, bound=1, top_id=top, encoding=EncType.seqcounter)
    return [list(c) for c in enc.clauses], max(top, enc.nv)


def extreme_trajectories(track: Track, successors: Successors, s0: State, m_star: int,
                         phase_limit: int, which: Literal["green", "blue"],
                         exact_length: Callable[[Sequence[tuple[int, int]]], Any],
                         max_models: int = 2000) -> ExtremeResult:
    """Green (min) or blue (max) length among trajectories of exactly m* moves, with ties.

    `exact_length(velocities)` must return an exactly ordered length (RadicalSum).
    """
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF

    t0 = time.perf_counter()
    cnf = build_reach_cnf(track, successors, s0, m_star, phase_limit)
    state_of = {v: key for key, v in cnf.var_of.items()}
    wcnf = WCNF()
    for c in cnf.clauses[:-1]:  # all but the goal clause
        wcnf.append(c)
    top = cnf.nvars
    per_t: dict[int, list[int]] = {}
    for (t, _), v in cnf.var_of.items():
        per_t.setdefault(t, []).append(v)
    arrive_vars: dict[int, tuple[int, State]] = {}
    last = [v for v in cnf.goal if state_of[v][0] == m_star - 1]
    for v in last:
        for nxt in dict.fromkeys(cnf.arrivals[v]):
            top += 1
            arrive_vars[top] = (v, nxt)
            wcnf.append([-top, v])
    for t in range(m_star):
        clauses, top = _exactly_one(per_t.get(t, []), top)
        for c in clauses:
            wcnf.append(c)
    clauses, top = _exactly_one(list(arrive_vars), top)
    for c in clauses:
        wcnf.append(c)
    sign = -1 if which == "green" else 1
    for (t, s), v in cnf.var_of.items():
        if t > 0 and (w := _weight(s[2], s[3])):
            wcnf.append([sign * v], weight=w)
    for a, (_, nxt) in arrive_vars.items():
        wcnf.append([sign * a], weight=_weight(nxt[2], nxt[3]))

    candidates: list[tuple[Any, Positions]] = []
    first_cost: int | None = None
    complete = True
    with RC2(wcnf) as rc2:
        while True:
            model = rc2.compute()
            if model is None:
                break
            cost = rc2.cost
            if first_cost is None:
                first_cost = cost
            elif cost > first_cost + m_star:
                break
            if len(candidates) >= max_models:
                complete = False
                break
            true = {lit for lit in model if lit > 0}
            chain = sorted((state_of[v][0], v) for v in true if v in state_of)
            arrival = next(a for a in arrive_vars if a in true)
            states = [state_of[v][1] for _, v in chain] + [arrive_vars[arrival][1]]
            velocities = [(s[2], s[3]) for s in states[1:]]
            candidates.append((exact_length(velocities), tuple((s[0], s[1]) for s in states)))
            rc2.add_clause([-v for _, v in chain] + [-arrival])
    if not candidates:
        raise ValueError(f"no trajectory of exactly {m_star} moves")
    lengths = [c[0] for c in candidates]
    best = min(lengths) if which == "green" else max(lengths)
    ties = sum(1 for x in lengths if x == best)
    rep = min(p for x, p in candidates if x == best)
    return ExtremeResult(which, best, ties, rep, len(candidates), complete,
                         time.perf_counter() - t0)
