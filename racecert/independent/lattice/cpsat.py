"""m* of a lattice track by a time-indexed CP-SAT model over an independent move table.

The table lists every valid move (x, y, x2, y2, code) from every free lattice point
(inside the bounds, off every wall, outside every circle) with |q - p|inf <= vmax, as
the independent geometry (`LatticeGeometry`) decides it; `code` is the finish code
(plain: 1 touches; directed: +1 forward, -1 backward, 0 none). It does not depend on
any search: it is a superset of the moves of every trajectory of at most vmax moves
from rest (the speed grows by at most 1 per move).

The model: positions (x_t, y_t) for t = 0..T; (x_0, y_0) one of the starts; each move
t -> t+1 a table row (AddAllowedAssignments); the acceleration (a_x, a_y) =
(x_{t+1} - 2 x_t + x_{t-1}, the same in y) with x_{-1} = x_0 (at rest) in the track's
set (`race_rules.lattice_accels`): |a_x| <= 1 and |a_y| <= 1 (Moore), and for the von
Neumann set also |a_x| + |a_y| <= 1 (four linear inequalities); for laps, the net
count n_{t+1} = n_t + code_t. Move t finishes when code_t = 1 (plain, directed) or
when code_t = 1 and n_t = laps - 1 (laps: the count grows by at most 1 per move, so
that is its first reaching `laps`).
``exact``: no move before T finishes and move T does; ``within``: some move up to T
finishes, after which the car stays put on stay rows (the done flag frees it from
the kinematics).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from ortools.sat.python import cp_model

from racecert.independent.cpsat_core import (
    DEFAULT_CPSAT_BUDGET,
    Accelerations,
    Status,
    add_acceleration,
    move_of,
    positions,
    run,
    witness,
)
from racecert.independent.lattice.geometry import LatticeGeometry
from racecert.independent.race_rules import ACCELS, LATTICE_ACCELS, lattice_accels
from racecert.model.lattice.track import LatticeTrack, Point

Arrival = Literal["exact", "within"]


@dataclass(frozen=True)
class LatticeTable:
    """Valid moves as rows (x, y, x2, y2, code), the free points, and the speed bound."""

    rows: tuple[tuple[int, int, int, int, int], ...]
    free: tuple[Point, ...]
    vmax: int
    seconds: float

    @property
    def scope(self) -> str:
        return (f"every valid move with |v'|inf <= {self.vmax} from each of the "
                f"{len(self.free):,} free lattice points (independent geometry; independent "
                "of any search)")


def table_candidates(track: LatticeTrack, vmax: int) -> int:
    """An upper bound on the moves `build_table` tests (points x displacements)."""
    vx, vy = min(vmax, track.width - 1), min(vmax, track.height - 1)
    return track.width * track.height * (2 * vx + 1) * (2 * vy + 1)


def build_table(track: LatticeTrack, vmax: int) -> LatticeTable:
    """Every valid move with |v'|inf <= vmax from every free point."""
    t0 = time.perf_counter()
    geo = LatticeGeometry(track)
    ys, xs = np.mgrid[0: track.height, 0: track.width]
    px, py = xs.ravel().astype(np.int64), ys.ravel().astype(np.int64)
    free = geo.valid_moves(px, py, px, py)  # a point a car may stand on
    px, py = px[free], py[free]
    rows = []
    for dx in range(-min(vmax, track.width - 1), min(vmax, track.width - 1) + 1):
        for dy in range(-min(vmax, track.height - 1), min(vmax, track.height - 1) + 1):
            qx, qy = px + dx, py + dy
            ok = np.flatnonzero(geo.valid_moves(px, py, qx, qy))
            if len(ok):
                code = geo.finish_codes(px[ok], py[ok], qx[ok], qy[ok])
                rows.append(np.stack([px[ok], py[ok], qx[ok], qy[ok], code], axis=1))
    allrows = np.concatenate(rows) if rows else np.zeros((0, 5), dtype=np.int64)
    return LatticeTable(tuple(map(tuple, allrows.tolist())),
                        tuple(zip(px.tolist(), py.tolist(), strict=True)), vmax,
                        time.perf_counter() - t0)


@dataclass(frozen=True)
class LatticeSolve:
    """One solve: status, a witness trajectory (positions) when feasible."""

    status: Status
    positions: tuple[Point, ...] = ()
    solver_status: str = ""
    seconds: float = 0.0


def _is(md: cp_model.CpModel, var: cp_model.IntVar, value: int, name: str
        ) -> cp_model.IntVar:
    b = md.NewBoolVar(name)
    md.Add(var == value).OnlyEnforceIf(b)
    md.Add(var != value).OnlyEnforceIf(b.Not())
    return b


def taxicab_only(track: LatticeTrack) -> bool:
    """Whether the track's acceleration set is the box |a|inf <= 1 cut to |a|1 <= 1 (von
    Neumann) rather than the whole box (Moore): the two sets the model encodes, checked
    against the set itself so that another set is an error, not a wrong model."""
    accels = set(lattice_accels(track.accelerations))
    box, cut = set(ACCELS), set(LATTICE_ACCELS["von-neumann"])
    if accels not in (box, cut):
        raise ValueError(f"the CP-SAT model encodes the Moore and von Neumann sets only, "
                         f"not {sorted(accels)}")
    return accels == cut


def build_model(track: LatticeTrack, table: LatticeTable, horizon: int,
                starts: Sequence[Point], arrival: Arrival
                ) -> tuple[cp_model.CpModel, list[cp_model.IntVar], list[cp_model.IntVar],
                           list[cp_model.IntVar]]:
    """The model of the module docstring; returns (model, xs, ys, done flags)."""
    T, fin = horizon, track.finish
    accels = Accelerations(reach=1, taxicab=taxicab_only(track))
    md = cp_model.CpModel()
    xs, ys = positions(md, T, track.width, track.height)
    md.AddAllowedAssignments([xs[0], ys[0]], [tuple(p) for p in starts])
    within = arrival == "within"
    rows = [r + (0,) for r in table.rows] if within else list(table.rows)
    if within:
        rows += [(x, y, x, y, 0, 1) for x, y in table.free]
    done = [md.NewConstant(0)]
    net = md.NewConstant(0)
    arrives = []
    for t in range(T):
        code = md.NewIntVar(-1, 1, f"c{t}")
        cols = [xs[t], ys[t], xs[t + 1], ys[t + 1], code]
        real: list = []
        if within:
            cols.append(done[t])
            real = [done[t].Not()]
        md.AddAllowedAssignments(cols, rows)
        add_acceleration(md, accels, move_of(xs, ys, t - 1, (0, 0)),
                         move_of(xs, ys, t, (0, 0)), real)  # from rest
        fwd = _is(md, code, 1, f"f{t}")
        if fin.laps is None:
            a = fwd
        else:
            at_last = _is(md, net, fin.laps - 1, f"l{t}")
            a = md.NewBoolVar(f"a{t}")
            md.AddBoolAnd([fwd, at_last]).OnlyEnforceIf(a)
            md.AddBoolOr([fwd.Not(), at_last.Not()]).OnlyEnforceIf(a.Not())
            nxt = md.NewIntVar(-T, fin.laps, f"n{t + 1}")
            md.Add(nxt == net + code)
            net = nxt
        arrives.append(a)
        if within:
            d = md.NewBoolVar(f"d{t + 1}")
            md.AddMaxEquality(d, [done[t], a])
            done.append(d)
    if within:
        md.Add(done[T] == 1)
    else:
        for a in arrives[:-1]:
            md.Add(a == 0)
        md.Add(arrives[-1] == 1)
    return md, xs, ys, done


def solve(track: LatticeTrack, table: LatticeTable, horizon: int, starts: Sequence[Point],
          arrival: Arrival, *, budget: float = DEFAULT_CPSAT_BUDGET, workers: int = 1
          ) -> LatticeSolve:
    """Feasibility of the model, bounded by `budget` deterministic time units."""
    t0 = time.perf_counter()
    md, xs, ys, done = build_model(track, table, horizon, starts, arrival)
    out, s = run(md, budget=budget, workers=workers)
    pos = (witness(s, xs, ys, done if arrival == "within" else None)
           if out.status == "feasible" else ())
    return LatticeSolve(out.status, pos, out.solver_status, time.perf_counter() - t0)
