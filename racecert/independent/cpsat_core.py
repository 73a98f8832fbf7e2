"""The kinematics core of the independent side's time-indexed CP-SAT models.

Every time-indexed model here (the grid's `cpsat`, the lattice profile's
`lattice.cpsat`, the cell-path profile's `cellpath.cpsat`) is the same skeleton: a
position per time step, a velocity per move, the acceleration between two moves bounded
by the profile's set, a solve bounded by deterministic time with one explicit status,
and a witness read back for a replay. This module is that skeleton, once; each model
adds its own move table, arrival and bookkeeping around it.

- `Accelerations`: the acceleration set as data, the box |a|inf <= `reach` (the grid's
  and the lattice's Moore set: reach 1; the cell-path profile: reach A), optionally cut
  to |a|1 <= `reach` (`taxicab`: the lattice's von Neumann set);
- `position_pair` / `positions`: the position variables (x_t, y_t) of a step, or of
  every step (every x, then every y);
- `move_of`: the velocity of move t as linear expressions, v_t = p_{t+1} - p_t, with
  v_{-1} the initial velocity;
- `add_acceleration`: a_t = v_t - v_{t-1} in the set, enforced by literals (a model
  whose car stays put after its arrival frees it there);
- `solver` / `run`: CP-SAT bounded by deterministic time (never wall seconds: the same
  verdict on a loaded machine), a fixed number of workers, and the status as one of
  "feasible", "infeasible", "unknown" (`Outcome`);
- `witness`: the positions of a solution, cut at the first done step.

>>> md = cp_model.CpModel()
>>> xs, ys = positions(md, 2, 5, 1)
>>> for t in range(2):
...     add_acceleration(md, Accelerations(), move_of(xs, ys, t - 1, (0, 0)),
...                      move_of(xs, ys, t, (0, 0)))
>>> _ = md.Add(xs[0] == 0), md.Maximize(xs[2])
>>> out, s = run(md, optimal=True)
>>> out.status, witness(s, xs, ys)
('feasible', ((0, 0), (1, 0), (3, 0)))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ortools.sat.python import cp_model

from racecert.independent.budgets import DEFAULT_CPSAT_BUDGET
from racecert.independent.interrupt import cpsat_solve

__all__ = ["DEFAULT_CPSAT_BUDGET", "Accelerations", "Outcome", "Status", "add_acceleration",
           "move_of", "position_pair", "positions", "run", "solver", "witness"]

Status = Literal["feasible", "infeasible", "unknown"]
Expr = cp_model.LinearExprT
Vector = tuple[Expr, Expr]


@dataclass(frozen=True)
class Accelerations:
    """An acceleration set the models encode: the box |a_x|, |a_y| <= `reach`, and with
    `taxicab` also |a_x| + |a_y| <= `reach` (four linear inequalities)."""

    reach: int = 1
    taxicab: bool = False

    def members(self) -> tuple[tuple[int, int], ...]:
        """The set itself, ax major (what a test compares with a profile's stated set)."""
        r = self.reach
        return tuple((ax, ay) for ax in range(-r, r + 1) for ay in range(-r, r + 1)
                     if not self.taxicab or abs(ax) + abs(ay) <= r)


def position_pair(md: cp_model.CpModel, t: int, width: int, height: int, low: int = 0
                  ) -> tuple[cp_model.IntVar, cp_model.IntVar]:
    """(x_t, y_t) in [low, width - 1] x [low, height - 1], named x{t}, y{t}."""
    return md.NewIntVar(low, width - 1, f"x{t}"), md.NewIntVar(low, height - 1, f"y{t}")


def positions(md: cp_model.CpModel, horizon: int, width: int, height: int
              ) -> tuple[list[cp_model.IntVar], list[cp_model.IntVar]]:
    """x_0..x_T, then y_0..y_T, in [0, width - 1] and [0, height - 1]."""
    xs = [md.NewIntVar(0, width - 1, f"x{t}") for t in range(horizon + 1)]
    ys = [md.NewIntVar(0, height - 1, f"y{t}") for t in range(horizon + 1)]
    return xs, ys


def move_of(xs: Sequence[Expr], ys: Sequence[Expr], t: int, initial: tuple[int, int]
            ) -> Vector:
    """The velocity of move t (p_t -> p_{t+1}) as linear expressions; move -1 is the
    initial velocity (a constant pair)."""
    if t < 0:
        return initial
    return xs[t + 1] - xs[t], ys[t + 1] - ys[t]


def add_acceleration(md: cp_model.CpModel, accels: Accelerations, before: Vector,
                     after: Vector, enforce: Sequence[cp_model.IntVar] = ()) -> None:
    """a = after - before in `accels`, enforced when every literal of `enforce` holds.

    The before-velocity of the first move is a constant pair; the acceleration is then
    written p_1 - p_0 - v_0 (per axis), the same linear constraint as the second
    difference p_1 - 2 p_0 + (p_0 - v_0)."""
    acc = []
    for a, b in zip(after, before, strict=True):
        acc.append(a - b)
        md.Add(acc[-1] <= accels.reach).OnlyEnforceIf(enforce)
        md.Add(acc[-1] >= -accels.reach).OnlyEnforceIf(enforce)
    if accels.taxicab:
        for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
            md.Add(sx * acc[0] + sy * acc[1] <= accels.reach).OnlyEnforceIf(enforce)


def solver(budget: float | None = DEFAULT_CPSAT_BUDGET, workers: int = 1,
           presolve: bool = True, light_presolve: bool = False) -> cp_model.CpSolver:
    """A CP-SAT solver bounded by `budget` units of deterministic time (not wall seconds:
    the same verdict on a loaded or slow machine; None: unbounded); one worker keeps it
    reproducible. `presolve=False` skips CP-SAT's presolve, whose probing costs about a
    second even on small models (worth it for many small solves). `light_presolve` keeps
    the presolve but runs it once, without probing (the cell-path model: half the work
    of the full presolve on its maps, the same statuses)."""
    s = cp_model.CpSolver()
    s.parameters.num_workers = workers
    s.parameters.cp_model_presolve = presolve
    if light_presolve:
        s.parameters.cp_model_probing_level = 0
        s.parameters.max_presolve_iterations = 1
    if budget is not None:
        s.parameters.max_deterministic_time = budget
    return s


@dataclass(frozen=True)
class Outcome:
    """One solve's status ("feasible" with a solution read from the solver, "infeasible"
    proven, "unknown": the budget ran out first), CP-SAT's own status name, the
    deterministic time spent and the wall seconds of the solve."""

    status: Status
    solver_status: str
    deterministic_time: float
    seconds: float


def run(md: cp_model.CpModel, *, budget: float | None = DEFAULT_CPSAT_BUDGET,
        workers: int = 1, presolve: bool = True, optimal: bool = False,
        light_presolve: bool = False) -> tuple[Outcome, cp_model.CpSolver]:
    """Solve `md` (Ctrl-C safe, `interrupt.cpsat_solve`) and say what is known.

    `optimal`: the model has an objective whose optimum is the answer, so a solution found
    without the proof of optimality is "unknown", not "feasible"."""
    s = solver(budget, workers, presolve, light_presolve)
    t0 = time.perf_counter()
    st = cpsat_solve(s, md)
    spent = time.perf_counter() - t0
    if st == cp_model.OPTIMAL or (st == cp_model.FEASIBLE and not optimal):
        status: Status = "feasible"
    else:
        status = "infeasible" if st == cp_model.INFEASIBLE else "unknown"
    return Outcome(status, s.StatusName(st), s.deterministic_time, spent), s


def witness(s: cp_model.CpSolver, xs: Sequence[cp_model.IntVar],
            ys: Sequence[cp_model.IntVar], done: Sequence[cp_model.IntVar] | None = None
            ) -> tuple[tuple[int, int], ...]:
    """The positions of the solution in `s`; with `done`, cut after the first step whose
    done flag is set (the arrival; the stays after it are no part of the trajectory)."""
    pos = [(s.Value(x), s.Value(y)) for x, y in zip(xs, ys, strict=True)]
    if done is not None:
        last = next(t for t in range(len(pos)) if s.Value(done[t]))
        pos = pos[: last + 1]
    return tuple(pos)
