"""A declarative time-indexed CP-SAT model of a race (docs/rules.md), exact by construction.

The model is data (`RaceModel`), built into a CP-SAT model by `build`, and
solved by separate functions (`solve`, `count_solutions`). Per time step t:
position (x_t, y_t), layer l_t, progress p_t (start crossed), done d_t
(arrived at or before t). The velocity is implied: v_t = pos_t - pos_{t-1}
(pos_{-1} = pos_0 - v_0). Each move t -> t+1 is one row of a move table
(AddAllowedAssignments over (x_t, y_t, x_{t+1}, y_{t+1}, l_t, l_{t+1},
start_t, finish_t, start_before_finish_t)); the acceleration bound and the
opening rule are linear constraints on consecutive positions, with the speed cap
and the straight axis of each move read from `race_rules.OpeningRule`. The
opening phase is the time index itself, so no key choice is involved (limit 1).

The move table is passed IN (rows, as a list of tuples): this module never
builds it, so the table's provenance (the independent geometry) is the caller's.

Arrival and progress are the table constraint `race_rules.TRANSITIONS` over
(p_t, start_t, finish_t, start_before_finish_t, arrive_t, p_{t+1}): move t
arrives when it crosses the finish with p_t = 1, or crosses both lines with the
start first. Two modes:
- ``exact``: the first arrival is move T-1 -> T (no arrival before);
- ``within``: some move up to T arrives; after arriving the car stays put
  (stay rows), so a trajectory shorter than T is a solution too.

>>> m = RaceModel(horizon=3, width=10, height=3, rows=[], endable=[],
...               initial=(1, 1, 0, 0, 0, 0, 0))
>>> solve(m).status
'infeasible'
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ortools.sat.python import cp_model

from racecert.independent.cpsat_core import (
    DEFAULT_CPSAT_BUDGET,
    Accelerations,
    Status,
    add_acceleration,
    move_of,
    position_pair,
    run,
    solver,
    witness,
)
from racecert.independent.interrupt import cpsat_solve
from racecert.independent.movetable import MoveTable
from racecert.independent.race_rules import TRANSITIONS, OpeningRule, initial_state
from racecert.independent.tube import step_rows
from racecert.model.track import Track

__all__ = ["DEFAULT_CPSAT_BUDGET", "CountResult", "CpsatResult", "RaceModel", "Status",
           "build", "count_solutions", "race_model", "solve"]

ArrivalMode = Literal["exact", "within"]


@dataclass(frozen=True)
class RaceModel:
    """The model as data.

    `rows`: allowed moves (x, y, x2, y2, layer, layer2, start, finish,
    start_before_finish); `endable`: (x, y, layer) cells a car may rest on
    (stay rows of the ``within`` mode); `initial`: (x, y, vx, vy, layer,
    progress, phase).
    """

    horizon: int
    width: int
    height: int
    rows: Sequence[tuple[int, ...]]
    endable: Sequence[tuple[int, int, int]]
    initial: tuple[int, int, int, int, int, int, int]
    opening: OpeningRule | None = None
    arrival: ArrivalMode = "exact"
    layers: int = 1
    step_rows: Sequence[Sequence[tuple[int, ...]]] | None = None  # per step, if narrowed


@dataclass(frozen=True)
class CpsatResult:
    """The outcome of one solve; `positions` are p_0..p_T of a witness (``exact``) or up to
    the arrival (``within``)."""

    status: Status
    positions: tuple[tuple[int, int], ...] = ()
    layers: tuple[int, ...] = ()
    seconds: float = 0.0
    build_seconds: float = 0.0
    solver_status: str = ""
    deterministic_time: float = 0.0  # CP-SAT's deterministic work units spent


ACCELERATIONS = Accelerations(reach=1)
"""The grid's nine accelerations (docs/rules.md): |a|inf <= 1."""


@dataclass
class _Vars:
    x: list[cp_model.IntVar] = field(default_factory=list)
    y: list[cp_model.IntVar] = field(default_factory=list)
    layer: list[cp_model.IntVar] = field(default_factory=list)
    done: list[cp_model.IntVar] = field(default_factory=list)
    arrive: list[cp_model.IntVar] = field(default_factory=list)


def build(m: RaceModel) -> tuple[cp_model.CpModel, _Vars]:
    """The CP-SAT model of `m` and its variables (pure: builds, does not solve)."""
    T = m.horizon
    md = cp_model.CpModel()
    v = _Vars()
    x0, y0, vx0, vy0, l0, prog0, phase0 = m.initial
    for t in range(T + 1):
        x, y = position_pair(md, t, m.width, m.height)
        v.x.append(x)
        v.y.append(y)
        v.layer.append(md.NewIntVar(0, m.layers - 1, f"l{t}"))
        v.done.append(md.NewBoolVar(f"d{t}"))
    md.Add(v.x[0] == x0)
    md.Add(v.y[0] == y0)
    md.Add(v.layer[0] == l0)
    md.Add(v.done[0] == 0)
    prog = md.NewConstant(prog0)
    stays = [(x, y, x, y, lay, lay, 0, 0, 0, 1) for x, y, lay in m.endable]

    def with_stays(rows: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        return [r + (0,) for r in rows] + stays if m.arrival == "within" else list(rows)

    tables = ([with_stays(rows) for rows in m.step_rows] if m.step_rows is not None
              else [with_stays(m.rows)] * T)  # one list shared by every step
    for t, table in enumerate(tables):
        s, f, sbf = (md.NewBoolVar(f"{n}{t}") for n in ("s", "f", "sbf"))
        cols = [v.x[t], v.y[t], v.x[t + 1], v.y[t + 1], v.layer[t], v.layer[t + 1], s, f, sbf]
        real: list[cp_model.IntVar] = []
        if m.arrival == "within":
            stay = v.done[t]  # after the arrival the car stays put
            cols.append(stay)
            real = [stay.Not()]
        md.AddAllowedAssignments(cols, table)
        # kinematics: |v_t - v_{t-1}|inf <= 1 with v_t = pos_{t+1} - pos_t, v_{-1} = v_0
        add_acceleration(md, ACCELERATIONS, move_of(v.x, v.y, t - 1, (vx0, vy0)),
                         move_of(v.x, v.y, t, (vx0, vy0)), real)
        _opening(md, m.opening or OpeningRule(), phase0 + t, v, t, real)
        # arrival and progress: the rule's truth table
        a, nprog = md.NewBoolVar(f"a{t}"), md.NewBoolVar(f"p{t + 1}")
        md.AddAllowedAssignments([prog, s, f, sbf, a, nprog], TRANSITIONS)
        v.arrive.append(a)
        prog = nprog
        md.AddMaxEquality(v.done[t + 1], [v.done[t], a])
    if m.arrival == "exact":
        md.Add(v.done[T] == 1)
        if T >= 1:
            md.Add(v.done[T - 1] == 0)
    else:
        md.Add(v.done[T] == 1)
    return md, v


def _opening(md: cp_model.CpModel, rule: OpeningRule, phase: int, v: _Vars, t: int,
             real: list[cp_model.IntVar]) -> None:
    """The opening rule on move t (made from `phase`): speed cap and straight axis."""
    delta = {"x": v.x[t + 1] - v.x[t], "y": v.y[t + 1] - v.y[t]}
    cap = rule.speed_cap(phase)
    if cap is not None:
        for d in delta.values():
            md.Add(d <= cap).OnlyEnforceIf(real)
            md.Add(d >= -cap).OnlyEnforceIf(real)
    zero = rule.zero_axis(phase)
    if zero is not None:
        md.Add(delta[zero] == 0).OnlyEnforceIf(real)


def race_model(track: Track, table: MoveTable, horizon: int, arrival: ArrivalMode,
               initial: tuple[int, int, int, int, int, int, int] | None = None, *,
               narrow: bool = True) -> RaceModel:
    """The model of `track` over `horizon` moves with the given table (from rest by default:
    initial = (x, y, vx, vy, layer, progress, phase)). `narrow`: give each step only the
    rows a trajectory from `initial` can use there (`racecert.independent.tube`: the same
    solutions, a smaller model)."""
    if initial is None:
        initial = (*initial_state(track), 0)
    steps = (step_rows(table.rows, initial[:5], horizon) if narrow and horizon >= 1
             else None)
    return RaceModel(horizon, track.width, track.height, table.rows, table.endable, initial,
                     OpeningRule.of(track), arrival, track.layers, steps)


def solve(m: RaceModel, *, budget: float | None = None, workers: int = 1,
          presolve: bool = True, earliest: bool = False) -> CpsatResult:
    """Feasibility of `m`, with a witness trajectory when feasible.

    `earliest` (``within`` models only): minimise the arrival's move number, so one
    solve gives the *first* arrival within the horizon; "feasible" then means proven
    optimal (CP-SAT's OPTIMAL: no arrival in fewer moves), and a witness found without
    that proof inside the budget is "unknown".
    """
    if earliest and m.arrival != "within":
        raise ValueError("earliest=True needs arrival='within' (the exact mode fixes T)")
    t0 = time.perf_counter()
    md, v = build(m)
    if earliest:  # done_t for t >= the arrival: most done steps = earliest arrival
        md.Maximize(sum(v.done))
    t1 = time.perf_counter()
    out, s = run(md, budget=budget, workers=workers, presolve=presolve, optimal=earliest)
    if out.status == "feasible":
        done = v.done if m.arrival == "within" else None  # cut the stays after the arrival
        pos = witness(s, v.x, v.y, done)
        lay = tuple(s.Value(v.layer[t]) for t in range(len(pos)))
        return CpsatResult("feasible", pos, lay, out.seconds, t1 - t0, out.solver_status,
                           out.deterministic_time)
    return CpsatResult(out.status, seconds=out.seconds, build_seconds=t1 - t0,
                       solver_status=out.solver_status,
                       deterministic_time=out.deterministic_time)


@dataclass(frozen=True)
class CountResult:
    """Number of solutions, or None when the enumeration passed `limit` or ran out of time."""

    count: int | None
    complete: bool
    seconds: float
    reason: str = ""
    deterministic_time: float = 0.0


class _Counter(cp_model.CpSolverSolutionCallback):
    def __init__(self, limit: int) -> None:
        super().__init__()
        self.n = 0
        self.limit = limit
        self.over = False

    def on_solution_callback(self) -> None:
        self.n += 1
        if self.n > self.limit:
            self.over = True
            self.StopSearch()


def count_solutions(m: RaceModel, *, limit: int = 20_000, budget: float | None = None
                    ) -> CountResult:
    """Enumerate every solution of an ``exact`` model (1 worker: exact, no duplicates).

    Every variable is a function of the positions (the layer walk, the line
    flags and the progress are determined by the move), so the number of
    solutions is the number of trajectories with first arrival at T.
    """
    if m.arrival != "exact":
        raise ValueError("count_solutions needs arrival='exact' (stays would add solutions)")
    t0 = time.perf_counter()
    md, _ = build(m)
    s = solver(budget, 1)
    s.parameters.enumerate_all_solutions = True
    cb = _Counter(limit)
    st = cpsat_solve(s, md, cb)
    secs = time.perf_counter() - t0
    spent = s.deterministic_time
    if cb.over:
        return CountResult(None, False, secs, f"more than {limit:,} solutions", spent)
    if st in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        return CountResult(cb.n, True, secs, deterministic_time=spent)
    return CountResult(None, False, secs,
                       f"stopped by its deterministic budget ({s.StatusName(st)})", spent)
