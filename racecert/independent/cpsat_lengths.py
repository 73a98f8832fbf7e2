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
from dataclasses import dataclass
from typing import Literal

import sympy
from ortools.sat.python import cp_model

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


def _weighted(m: RaceModel) -> tuple[cp_model.CpModel, list, list, cp_model.LinearExpr]:
    """The model with one weight variable per move and the total scaled cost."""
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
    return md, v.x, v.y, sum(weights)


def _solver(budget: float) -> cp_model.CpSolver:
    s = cp_model.CpSolver()
    s.parameters.num_workers = 1
    s.parameters.max_deterministic_time = budget
    return s


class _Band(cp_model.CpSolverSolutionCallback):
    """Collects every solution's positions, stopping past `cap`."""

    def __init__(self, xs: list, ys: list, cap: int) -> None:
        super().__init__()
        self.xs, self.ys, self.cap = xs, ys, cap
        self.found: list[tuple[tuple[int, int], ...]] = []
        self.over = False

    def on_solution_callback(self) -> None:
        if len(self.found) >= self.cap:
            self.over = True
            self.StopSearch()
            return
        self.found.append(tuple((self.Value(x), self.Value(y))
                                for x, y in zip(self.xs, self.ys, strict=True)))


def extreme_length(m: RaceModel, which: Which, *, budget: float = 60.0,
                   band_cap: int = 100_000) -> LengthExtreme:
    """Green (least) or blue (greatest) exact length over the T-move trajectories of `m`
    (``exact`` arrival), with the exact number of trajectories of that length."""
    if m.arrival != "exact":
        raise ValueError("extreme_length needs arrival='exact' (stays have no length)")
    t0 = time.perf_counter()
    md, xs, ys, cost = _weighted(m)
    md.Minimize(cost) if which == "green" else md.Maximize(cost)
    solver = _solver(budget)
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
    md2, xs2, ys2, cost2 = _weighted(m)
    if which == "green":
        md2.Add(cost2 <= best + m.horizon)
    else:
        md2.Add(cost2 >= best - m.horizon)
    enum = _solver(budget)
    enum.parameters.enumerate_all_solutions = True
    band = _Band(xs2, ys2, band_cap)
    st2 = cpsat_solve(enum, md2, band)
    spent += enum.deterministic_time
    if band.over:
        return result("timeout", band=len(band.found),
                      reason=f"more than {band_cap:,} trajectories in the error band")
    if st2 != cp_model.OPTIMAL:
        return result("timeout", band=len(band.found),
                      reason=f"band enumeration used its budget of {budget:g} deterministic "
                             f"time units ({enum.StatusName(st2)})")
    lengths = [(exact_length(p), p) for p in band.found]
    extreme = lengths[0][0]
    for length, _ in lengths[1:]:
        if length != extreme and bool((length < extreme) if which == "green"
                                      else (length > extreme)):
            extreme = length
    tied = sorted(p for length, p in lengths if length == extreme)
    return result("optimal", extreme, len(tied), len(band.found), tied[0])
