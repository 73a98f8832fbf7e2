"""m* of a cell-path track by a time-indexed CP-SAT model (docs/rules.md, "The cell-path
profile"), over the kinematics core (`racecert.independent.cpsat_core`).

A move of velocity d visits the cells start + floor(k d / n + 1/2) (per axis) for ticks
k = 1..n, n = |d|inf: the offsets depend on d alone (`walk.offsets`, a fixed table per
velocity). So the model's move table is the rule itself, written out once per (cell,
velocity): a row (x, y, vx, vy, x2, y2, arrive) for every cell (x, y) a car may stand on
(free or start, not a goal) and every velocity with |d|inf <= `vmax` (the speed cap, and
A times the horizon: no run of T moves from rest is faster) whose visited cells up to the
first goal cell are all on the grid and unblocked; `arrive` = 1 when the walk meets a goal
cell, the car then standing on that (first) goal cell, else (x2, y2) = (x, y) + d, a cell
that is neither blocked nor a goal. The table is built apart from the walk's `successor`
(the replay of a witness goes through `successor`).

The model: positions (x_t, y_t) for t = 0..T, the start one of the track's starts, a
velocity (vx_t, vy_t) per move, each move t a table row over (x_t, y_t, vx_t, vy_t,
x_{t+1}, y_{t+1}, arrive_t), and v_t - v_{t-1} in {-A..A}^2 with v_{-1} = 0 (from rest).
``exact``: move T - 1 arrives and none before; ``within``: some move up to T arrives,
after which the car stays on its goal cell (stay rows; the done flag frees it from the
kinematics).

Size: the table is measured before it is built (cells x velocities); past
`MAX_TABLE_CANDIDATES` `build_table` raises `budgets.SizeBudgetExceeded` (the check says
`skipped`, never a silent drop). Work: the solve is bounded by deterministic time; its
presolve runs once and without probing (`cpsat_core.solver`'s `light_presolve`), which
halves the CPU of the bundled maps' solves (hairpin's m* from every start 7.5 -> 3.8 s,
chicane's 2.8 -> 1.6 s) with the same statuses, as on 1,500 seeded random maps and on
barto-small, maze and ring with their size budget lifted. (Without any presolve CP-SAT
9.15 aborts on one of the seeded maps of tests/cellpath/test_cpsat.py: "Infeasible
solution!", a failed internal check.)

>>> from racecert.model.cellpath.track import CellPathTrack
>>> t = CellPathTrack("t", 4, 1, ("s..g",), ((0, 0),))
>>> table = build_table(t, 2)
>>> [solve(t, table, T, t.starts, "within").status for T in (1, 2)]
['infeasible', 'feasible']
>>> r = solve(t, table, 2, t.starts, "exact")
>>> r.positions, r.velocities, replay(t, r.positions[0], r.velocities)
(((0, 0), (1, 0), (3, 0)), ((1, 0), (2, 0)), (True, 'ok', 2))
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ortools.sat.python import cp_model

from racecert.independent.budgets import DEFAULT_CPSAT_BUDGET, SizeBudgetExceeded
from racecert.independent.cellpath.walk import accelerations, offsets, successor
from racecert.independent.cpsat_core import (
    Accelerations,
    Status,
    add_acceleration,
    positions,
    run,
    witness,
)
from racecert.model.cellpath.track import CellPathTrack

Arrival = Literal["exact", "within"]
Cell = tuple[int, int]
Row = tuple[int, int, int, int, int, int, int]
"""(x, y, vx, vy, x2, y2, arrive)."""

MAX_TABLE_CANDIDATES = 250_000
"""Size budget of the move table: (cells a car may stand on) x (velocities) candidate
moves. Past it the table is not built (`SizeBudgetExceeded`)."""
MAX_TABLE_TICKS = 5_000_000
"""Size budget of the walks behind the table: candidate moves x the longest walk (vmax
ticks), what building the table costs (a few candidates at a great speed are cheap to
count but long to walk)."""


@dataclass(frozen=True)
class CellPathTable:
    """The model's moves as rows (x, y, vx, vy, x2, y2, arrive), the goal cells (where a
    car stays after arriving), the speed bound and the candidates examined."""

    rows: tuple[Row, ...]
    goals: tuple[Cell, ...]
    vmax: int
    candidates: int
    seconds: float

    @property
    def scope(self) -> str:
        return (f"every move with |v|inf <= {self.vmax} from each cell a car may stand on "
                f"({self.candidates:,} candidates, {len(self.rows):,} valid; the visited "
                "cells of each velocity from its offset table)")


def speed_bound(track: CellPathTrack, horizon: int) -> int:
    """The largest |v|inf of a run of `horizon` moves from rest: A per move, and the cap."""
    v = track.max_acceleration * horizon
    return v if track.speed_cap is None else min(v, track.speed_cap)


def _stands(track: CellPathTrack) -> list[Cell]:
    return [(x, y) for y, r in enumerate(track.rows) for x, c in enumerate(r)
            if c not in "xg"]


def table_candidates(track: CellPathTrack, vmax: int) -> int:
    """The candidate moves of `build_table`: cells a car may stand on x velocities."""
    return len(_stands(track)) * (2 * vmax + 1) ** 2


def build_table(track: CellPathTrack, vmax: int, *, max_candidates: int | None = None
                ) -> CellPathTable:
    """Every valid move with |v|inf <= vmax from every cell a car may stand on (the module
    docstring); `SizeBudgetExceeded` past `max_candidates` candidates (None:
    `MAX_TABLE_CANDIDATES`), before any work."""
    t0 = time.perf_counter()
    n = table_candidates(track, vmax)
    if max_candidates is None:
        max_candidates = MAX_TABLE_CANDIDATES
    if n > max_candidates:
        raise SizeBudgetExceeded("the cell-path CP-SAT move table", n, max_candidates,
                                 "candidate moves")
    if n * vmax > MAX_TABLE_TICKS:
        raise SizeBudgetExceeded("the cell-path CP-SAT move table's walks", n * vmax,
                                 MAX_TABLE_TICKS, "ticks",
                                 note=f"{n:,} candidate moves of up to {vmax} ticks")
    w, h, grid = track.width, track.height, track.rows
    rows: list[Row] = []
    for x, y in _stands(track):
        for vx in range(-vmax, vmax + 1):
            for vy in range(-vmax, vmax + 1):
                end: Row | None = (x, y, vx, vy, x + vx, y + vy, 0)
                for ox, oy in offsets(vx, vy):
                    cx, cy = x + ox, y + oy
                    if not (0 <= cx < w and 0 <= cy < h) or grid[cy][cx] == "x":
                        end = None
                        break
                    if grid[cy][cx] == "g":
                        end = (x, y, vx, vy, cx, cy, 1)
                        break
                if end is not None:
                    rows.append(end)
    goals = tuple((x, y) for y, r in enumerate(grid) for x, c in enumerate(r) if c == "g")
    return CellPathTable(tuple(rows), goals, vmax, n, time.perf_counter() - t0)


@dataclass(frozen=True)
class CellPathModel:
    """The model as data: the table, the horizon, the starts, the acceleration reach A
    and the arrival mode; `build` makes it a CP-SAT model."""

    table: CellPathTable
    width: int
    height: int
    horizon: int
    starts: tuple[Cell, ...]
    reach: int
    arrival: Arrival


@dataclass(frozen=True)
class Built:
    """The CP-SAT model of a `CellPathModel` and the variables a witness is read from."""

    model: cp_model.CpModel
    xs: list[cp_model.IntVar]
    ys: list[cp_model.IntVar]
    vxs: list[cp_model.IntVar]
    vys: list[cp_model.IntVar]
    done: list[cp_model.IntVar] | None  # ``within`` only


def build(m: CellPathModel) -> Built:
    """The CP-SAT model of `m` (pure: builds, does not solve)."""
    T, vmax = m.horizon, m.table.vmax
    if T < 1 and m.arrival == "exact":
        raise ValueError("the exact mode needs a horizon of at least one move")
    md = cp_model.CpModel()
    xs, ys = positions(md, T, m.width, m.height)
    # |v_t|inf <= A (t + 1) from rest: implied by the kinematics, stated for the presolve
    speed = [min(vmax, m.reach * (t + 1)) for t in range(T)]
    vxs = [md.NewIntVar(-speed[t], speed[t], f"vx{t}") for t in range(T)]
    vys = [md.NewIntVar(-speed[t], speed[t], f"vy{t}") for t in range(T)]
    md.AddAllowedAssignments([xs[0], ys[0]], [tuple(p) for p in m.starts])
    within = m.arrival == "within"
    rows: list[tuple[int, ...]] = list(m.table.rows)
    if within:
        rows = [r + (0,) for r in rows] + [(x, y, 0, 0, x, y, 0, 1) for x, y in m.table.goals]
    accels = Accelerations(reach=m.reach)
    done = [md.NewConstant(0)] if within else None
    arrives = []
    for t in range(T):
        a = md.NewBoolVar(f"a{t}")
        cols = [xs[t], ys[t], vxs[t], vys[t], xs[t + 1], ys[t + 1], a]
        real: list[cp_model.IntVar] = []
        if done is not None:
            cols.append(done[t])
            real = [done[t].Not()]
        md.AddAllowedAssignments(cols, rows)
        before = (vxs[t - 1], vys[t - 1]) if t > 0 else (0, 0)  # from rest
        add_acceleration(md, accels, before, (vxs[t], vys[t]), real)
        arrives.append(a)
        if done is not None:
            d = md.NewBoolVar(f"d{t + 1}")
            md.AddMaxEquality(d, [done[t], a])
            done.append(d)
    if done is not None:
        md.Add(done[T] == 1)
    else:
        for a in arrives[:-1]:
            md.Add(a == 0)
        md.Add(arrives[-1] == 1)
    return Built(md, xs, ys, vxs, vys, done)


def model_size(b: Built) -> int:
    """The number of variables of a built model (for the reports)."""
    return len(b.model.Proto().variables)


@dataclass(frozen=True)
class CellPathSolve:
    """One solve: status, and for a feasible one a witness (positions p_0..p_k up to the
    arrival, the velocities of its k moves); the model's size and the work spent."""

    status: Status
    positions: tuple[Cell, ...] = ()
    velocities: tuple[Cell, ...] = ()
    solver_status: str = ""
    variables: int = 0
    deterministic_time: float = 0.0
    seconds: float = 0.0


def solve(track: CellPathTrack, table: CellPathTable, horizon: int, starts: Sequence[Cell],
          arrival: Arrival, *, budget: float = DEFAULT_CPSAT_BUDGET, workers: int = 1
          ) -> CellPathSolve:
    """Feasibility of the model of `track` over `horizon` moves, bounded by `budget`
    deterministic time units."""
    t0 = time.perf_counter()
    b = build(CellPathModel(table, track.width, track.height, horizon, tuple(starts),
                            track.max_acceleration, arrival))
    out, s = run(b.model, budget=budget, workers=workers, light_presolve=True)
    size = model_size(b)
    if out.status != "feasible":
        return CellPathSolve(out.status, solver_status=out.solver_status, variables=size,
                             deterministic_time=out.deterministic_time,
                             seconds=time.perf_counter() - t0)
    pos = witness(s, b.xs, b.ys, b.done)
    vel = tuple((s.Value(b.vxs[t]), s.Value(b.vys[t])) for t in range(len(pos) - 1))
    return CellPathSolve("feasible", pos, vel, out.solver_status, size,
                         out.deterministic_time, time.perf_counter() - t0)


def replay(track: CellPathTrack, start: Cell, velocities: Sequence[Cell]
           ) -> tuple[bool, str, int | None]:
    """Replay the moves of `velocities` from `start` at rest through the independent walk
    (`walk.successor`, exact rationals): (every move valid and only the last arrives,
    why not, the move number of the first arrival)."""
    if start not in track.starts:
        return False, f"{start} is not a start cell", None
    s = (start[0], start[1], 0, 0)
    allowed = set(accelerations(track))
    for i, (vx, vy) in enumerate(velocities, start=1):
        acc = (vx - s[2], vy - s[3])
        if acc not in allowed:
            return False, f"move {i}: acceleration {acc} is not in the track's set", None
        r = successor(track, s, acc)
        if r is None:
            return False, f"move {i}: no valid move (crash or over the speed cap)", None
        s, arrives = r
        if arrives:
            if i != len(velocities):
                return False, f"move {i} arrives before the last move", i
            return True, "ok", i
    return False, f"no arrival in {len(velocities)} moves", None
