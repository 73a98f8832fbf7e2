"""Green and blue by CP-SAT optimisation: a scaled integer length objective with a proven
error bound, then the exact tie class, judged by sympy.

No trajectory enumeration of the whole optimal set: CP-SAT optimises the total
length of a trajectory with exactly T moves (the model of `racecert.independent.cpsat`
with ``exact`` arrival) under an integer objective, each move weighted by

    w(dx, dy) = round(SCALE * sqrt(dx^2 + dy^2)),   |w - SCALE * sqrt(dx^2 + dy^2)| <= 1/2.

Over T moves the scaled cost C of a trajectory of exact length L obeys
|C - SCALE * L| <= T/2. Let C* be the optimal cost (least for green) and L* the
least exact length. A trajectory of length L* costs at most SCALE*L* + T/2, and
the cost-optimal trajectory (length L' >= L*) gives C* >= SCALE*L' - T/2, so
every trajectory of exact length L* costs at most C* + T. Hence: enumerate the
trajectories with cost <= C* + T (the *band*; for blue, >= C* - T), compute
their exact lengths as sympy expressions, and the least of them is L*; the
number equal to it is the exact tie count. Equality of sums of square roots is
structural in sympy (sqrt(n) is normalised to k*sqrt(squarefree), and square
roots of distinct squarefree integers are linearly independent over Q); order
is sympy's exact sign decision.

The optimisation and the band are posed over a `LengthModel`: the time-indexed
`RaceModel` of `racecert.independent.cpsat` (every T-move trajectory of a move table),
or any other model of T-move trajectories with one scaled weight per move
(`racecert.independent.cpsat_dag`: the moves of an optimal layered DAG). Trajectories
whose moves have the same multiset of squared lengths have the same exact length, so
sympy sums each multiset once.

Bounds: each solve has a deterministic-time budget, and the band enumeration a
solution cap; past either the result says `timeout` with the budget named.

>>> from racecert.independent.cpsat import RaceModel
>>> rows = [(0, 0, 1, 0, 0, 0, 0, 1, 0)]  # one move from (0, 0) to (1, 0) crossing F
>>> m = RaceModel(horizon=1, width=2, height=1, rows=rows, endable=[],
...               initial=(0, 0, 0, 0, 0, 1, 0))
>>> r = extreme_length(m, "green", budget=10.0)
>>> r.status, str(r.length), r.ties
('optimal', '1', 1)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import sympy
from ortools.sat.python import cp_model

from racecert.independent import cpsat_core
from racecert.independent.budgets import DEFAULT_CPSAT_BUDGET
from racecert.independent.cpsat import RaceModel, build
from racecert.independent.interrupt import cpsat_solve

SCALE = 1_000_000
Which = Literal["green", "blue"]


@dataclass(frozen=True)
class LengthExtreme:
    """The exact extreme length of a T-move trajectory of a model, with its tie count.

    `status`: ``optimal`` (length and ties exact and complete), ``infeasible`` (no
    trajectory of exactly T moves), ``timeout`` (a budget ran out: `reason` names it).
    `band` is the number of trajectories enumerated in the error band.
    """

    which: Which
    status: Literal["optimal", "infeasible", "timeout"]
    length: sympy.Expr | None
    ties: int | None
    band: int
    representative: tuple[tuple[int, int], ...]
    reason: str
    deterministic_time: float
    seconds: float


def move_weight(dx: int, dy: int) -> int:
    """round(SCALE * |(dx, dy)|), computed exactly with integer square roots."""
    n = (dx * dx + dy * dy) * SCALE * SCALE
    r = math.isqrt(n)  # floor(sqrt(n)); round half up: compare (r + 1/2)^2 with n
    return r + 1 if 4 * n >= (2 * r + 1) ** 2 else r


def exact_length(positions: tuple[tuple[int, int], ...]) -> sympy.Expr:
    """The Euclidean length of a polyline as a sympy sum of square roots (canonical)."""
    return sympy.Add(*(sympy.sqrt(sympy.Integer((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2))
                       for a, b in zip(positions, positions[1:], strict=False)))


@dataclass(frozen=True)
class Weighted:
    """A CP-SAT model of T-move trajectories with its scaled cost (sum of `move_weight`).

    `read` are the variables a solution is read from, and `positions` turns their values
    into the trajectory's positions p_0..p_T (so a model may read one variable per step).
    `band`, where given, is called as ``band(which, bound)`` before the band enumeration
    with the band's cost limit (cost <= bound for green, >= bound for blue) and adds
    constraints *implied* by it and the model (never removing a solution of the band),
    so that the enumeration prunes early; it may also fix the search order
    (`fixed_search`). Without it the band is the bare cost constraint. `optimise`, where
    given, is called as ``optimise(which)`` before the optimisation and may add an
    implied bound on the objective (one a checked certificate proves) and a hint.
    `presolve` False turns CP-SAT's presolve, probing and LP relaxation off (a model
    whose implied constraints already propagate what they would find, and where they
    would cost more than the solve).
    """

    model: cp_model.CpModel
    cost: cp_model.LinearExpr
    read: Sequence[cp_model.IntVar]
    positions: Callable[[tuple[int, ...]], tuple[tuple[int, int], ...]]
    band: Callable[[Which, int], None] | None = None
    fixed_search: bool = False
    optimise: Callable[[Which], None] | None = None
    presolve: bool = True


class LengthModel(Protocol):
    """What `extreme_length` optimises over: `horizon` moves, `weighted()` builds a fresh
    model whose solutions are exactly the trajectories considered (each once)."""

    @property
    def horizon(self) -> int: ...

    def weighted(self) -> Weighted: ...


def _weighted(m: RaceModel) -> Weighted:
    """The race model with one weight variable per move and the total scaled cost."""
    md, v = build(m)
    vmax = max([max(abs(r[2] - r[0]), abs(r[3] - r[1])) for r in m.rows] or [0])
    table = [(dx, dy, move_weight(dx, dy)) for dx in range(-vmax, vmax + 1)
             for dy in range(-vmax, vmax + 1)]
    wmax = max(w for _, _, w in table)
    weights = []
    for t in range(m.horizon):
        dx = md.NewIntVar(-vmax, vmax, f"dx{t}")
        dy = md.NewIntVar(-vmax, vmax, f"dy{t}")
        md.Add(dx == v.x[t + 1] - v.x[t])
        md.Add(dy == v.y[t + 1] - v.y[t])
        w = md.NewIntVar(0, wmax, f"w{t}")
        md.AddAllowedAssignments([dx, dy, w], table)
        weights.append(w)
    n = len(v.x)
    return Weighted(md, sum(weights), [*v.x, *v.y],
                    lambda vals: tuple(zip(vals[:n], vals[n:], strict=True)))


@dataclass(frozen=True)
class _RaceLengths:
    """A `RaceModel` (``exact`` arrival) as a `LengthModel`."""

    race: RaceModel

    @property
    def horizon(self) -> int:
        return self.race.horizon

    def weighted(self) -> Weighted:
        return _weighted(self.race)


def _solver(budget: float, w: Weighted) -> cp_model.CpSolver:
    s = cpsat_core.solver(budget, 1, w.presolve)
    if not w.presolve:
        s.parameters.cp_model_probing_level = 0
        s.parameters.linearization_level = 0
    return s


def _key(p: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """The sorted squared move lengths: equal keys, equal exact lengths."""
    return tuple(sorted((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2
                        for a, b in zip(p, p[1:], strict=False)))


class _Band(cp_model.CpSolverSolutionCallback):
    """Per multiset of squared move lengths: how many solutions, and the least positions;
    stops past `cap` solutions."""

    def __init__(self, w: Weighted, cap: int) -> None:
        super().__init__()
        self.w, self.cap = w, cap
        self.found = 0
        self.classes: dict[tuple[int, ...], list] = {}  # key -> [count, least positions]
        self.over = False

    def on_solution_callback(self) -> None:
        if self.found >= self.cap:
            self.over = True
            self.StopSearch()
            return
        self.found += 1
        p = self.w.positions(tuple(self.Value(v) for v in self.w.read))
        c = self.classes.setdefault(_key(p), [0, p])
        c[0] += 1
        c[1] = min(c[1], p)


def extreme_length(m: RaceModel | LengthModel, which: Which, *,
                   budget: float = DEFAULT_CPSAT_BUDGET,
                   band_cap: int = 100_000) -> LengthExtreme:
    """Green (least) or blue (greatest) exact length over the T-move trajectories of `m`
    (a `RaceModel` with ``exact`` arrival, or any `LengthModel`), with the exact number of
    trajectories of that length."""
    if isinstance(m, RaceModel):
        if m.arrival != "exact":
            raise ValueError("extreme_length needs arrival='exact' (stays have no length)")
        m = _RaceLengths(m)
    t0 = time.perf_counter()
    w = m.weighted()
    md, cost = w.model, w.cost
    md.Minimize(cost) if which == "green" else md.Maximize(cost)
    if w.optimise is not None:
        w.optimise(which)
    solver = _solver(budget, w)
    st = cpsat_solve(solver, md)
    spent = solver.deterministic_time

    def result(status, length=None, ties=None, band=0, rep=(), reason="") -> LengthExtreme:
        return LengthExtreme(which, status, length, ties, band, rep, reason, spent,
                             time.perf_counter() - t0)

    if st == cp_model.INFEASIBLE:
        return result("infeasible", reason=f"no trajectory of exactly {m.horizon} moves")
    if st != cp_model.OPTIMAL:
        return result("timeout", reason=f"optimisation used its budget of {budget:g} "
                                        f"deterministic time units ({solver.StatusName(st)})")
    best = int(solver.ObjectiveValue())
    md.ClearObjective()
    md.ClearHints()
    bound = best + m.horizon if which == "green" else best - m.horizon
    md.Add(cost <= bound) if which == "green" else md.Add(cost >= bound)
    if w.band is not None:
        w.band(which, bound)
    enum = _solver(budget, w)
    enum.parameters.enumerate_all_solutions = True
    if w.fixed_search:
        enum.parameters.search_branching = cp_model.FIXED_SEARCH
    band = _Band(w, band_cap)
    st2 = cpsat_solve(enum, md, band)
    spent += enum.deterministic_time
    if band.over:
        return result("timeout", band=band.found,
                      reason=f"more than {band_cap:,} trajectories in the error band (its "
                             "size budget): the exact comparison was not made")
    if st2 != cp_model.OPTIMAL:
        return result("timeout", band=band.found,
                      reason=f"band enumeration used its budget of {budget:g} deterministic "
                             f"time units ({enum.StatusName(st2)})")
    lengths = [(exact_length(c[1]), c) for c in band.classes.values()]
    extreme = lengths[0][0]
    for length, _ in lengths[1:]:
        if length != extreme and bool((length < extreme) if which == "green"
                                      else (length > extreme)):
            extreme = length
    tied = [c for length, c in lengths if length == extreme]
    return result("optimal", extreme, sum(c[0] for c in tied), band.found,
                  min(c[1] for c in tied))
