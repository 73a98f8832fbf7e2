r"""m* by CP-SAT over integer kinematics, refined by counterexamples: a model that scales.

The time-indexed model of `racecert.independent.cpsat` is Boolean over a table of every
move reachable from the car, which stops growing useful past some 500,000 states. This
model has per step t only integers: the position (x_t, y_t) and the velocity
(vx_t, vy_t), with

- x_t = x_{t-1} + vx_t, |vx_t - vx_{t-1}| <= 1 (and the same for y), v_0 = 0;
- the end cell (x_t, y_t) of every move one where a move may end (asphalt or ramp, on
  some layer), written as a few disjoint rectangles (`rectangles`): cells, not moves;
- the opening rule (`race_rules.OpeningRule`) as bounds on v_t for t <= K;
- an arrival at some move t <= T: the move crosses the finish line the legal way (its
  fixed coordinate goes from k or less to k + 1 or more, or back for a "-" direction)
  and its bounding box meets the line's span; and the start line was crossed the same
  way by then (at this move or an earlier one). After the arrival nothing is asked of
  the later steps.

Every valid trajectory arriving within T moves is a solution (the walls a move passes
over, the layers, the exact crossing point and the order of the lines are left out), so
"infeasible at T = m* - 1" proves that nothing arrives sooner: a lower bound. A solution
is replayed by the independent geometry (`Geometry.replay`); where one of its moves is
invalid whatever the layer and the context (it touches a wall or the grid's edge, ends
where no move may end, crosses a line the wrong way, or has zero velocity), that move is
forbidden at every step (a *cut*, `Cut`) and the model is solved again: a
counterexample-guided refinement that stays a relaxation, so each answer keeps its
meaning. On open areas and straight corridors no cut is needed; on a winding track a
relaxed car jumps walls and the cuts pile up (bounded by `max_cuts`).

The model is data (`KinematicsModel`), built by the pure function `build`, and every solve
is bounded by CP-SAT's deterministic time; this module never reads the oracle.

>>> from racecert.model.parse import parse_track
>>> t = parse_track(b'''name = "strip"
... kind = "stage"
... [car]
... position = [1, 1]
... direction = "+x"
... [start]
... x = 1
... y = [1, 1]
... dir = "+x"
... [finish]
... x = 6
... y = [1, 1]
... dir = "+x"
... [map]
... ground = "##########\\n#........#\\n##########"
... ''', "strip.toml")
>>> refine(t, 2).status, refine(t, 3).status  # 1 + 2 + 3 = 6 cells: three moves
('infeasible', 'feasible')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from ortools.sat.python import cp_model

from racecert.independent import cpsat_core
from racecert.independent.budgets import DEFAULT_CPSAT_BUDGET, SizeBudgetExceeded
from racecert.independent.geometry import Geometry
from racecert.independent.interrupt import cpsat_solve
from racecert.independent.race_rules import OpeningRule
from racecert.model.track import Line, Track

Status = Literal["feasible", "infeasible", "unknown", "stuck"]
Position = tuple[int, int]
Rect = tuple[int, int, int, int]
"""A rectangle of cells (x0, x1, y0, y1), inclusive."""
MAX_CUTS = 16
"""Cuts one refinement may add before it gives up (a deterministic work bound). The tracks
it settles need few (candelabro 5, tiny_circuit_nocont 6, open areas and corridors none);
on hedged or walled lanes (llanura, ocho, 4_esquinas) the relaxed car jumps walls in ever
new places (llanura still had new jumps after 600 cuts), so more cuts only cost time."""
MAX_STEP_RECTANGLES = 50_000
"""Size budget: the horizon times the rectangles of the end cells and of the midpoints
(each step has one literal per rectangle). The bundled tracks need at most 2,622 (llanura);
a 30-ply serpentine with m* = 833 needs 146,608, where one solve costs about a minute."""


@dataclass(frozen=True)
class Cut:
    """A move from (x, y) by (vx, vy) that the independent geometry finds invalid on every
    layer and in every context: forbidden at every step of the model."""

    x: int
    y: int
    vx: int
    vy: int
    reason: str


@dataclass(frozen=True)
class KinematicsModel:
    """The model as data: the grid, the cells a move may end on (on any layer) and the
    doubled midpoints a move may have, both as disjoint rectangles (`rectangles`), the
    car's initial position, the two lines, the opening rule, the horizon T and the cuts."""

    width: int
    height: int
    end_rects: tuple[Rect, ...]
    mid_rects: tuple[Rect, ...]
    initial: Position
    start: Line
    finish: Line
    opening: OpeningRule
    horizon: int
    cuts: tuple[Cut, ...] = ()

    @classmethod
    def of(cls, track: Track, horizon: int, geometry: Geometry | None = None
           ) -> KinematicsModel:
        """The model of `track` at horizon T = `horizon` (no cuts yet)."""
        g = geometry or Geometry(track)
        layers = range(layer_count(track))
        cells = tuple((x, y) for y in range(track.height) for x in range(track.width)
                      if any(g.endable(lay, x, y) for lay in layers))
        on = {(x, y) for y in range(track.height) for x in range(track.width)
              if any(g.surface(lay, x, y) for lay in layers)}
        return cls(track.width, track.height, tuple(rectangles(cells)),
                   tuple(rectangles(midpoints(on, track.width, track.height))),
                   track.car.position, track.start, track.finish, OpeningRule.of(track),
                   horizon)

    @property
    def size(self) -> int:
        """Step-rectangles: the horizon times the rectangles of both conditions (each
        step has one literal per rectangle), what `MAX_STEP_RECTANGLES` bounds."""
        return self.horizon * (len(self.end_rects) + len(self.mid_rects))


def layer_count(track: Track) -> int:
    """1, or 2 with an elevated layer (a bridge)."""
    return 2 if track.elevated is not None else 1


def midpoints(on: set[Position], width: int, height: int) -> tuple[Position, ...]:
    """The doubled midpoints (x + x', y + y') that a valid move from (x, y) to (x', y') may
    have, given the cells `on` that are on the track on some layer.

    Every cell a move touches is on the track on some layer (`Geometry._walk`), and the
    segment's midpoint tells which cells it touches there: a cell centre (both sums even)
    is inside one cell; a point of a cell edge (one sum odd) touches the two cells the edge
    separates (the segment crosses the edge, with a non-zero component across it); a cell
    corner (both sums odd) touches the two cells of one diagonal, which one depending on
    the signs of the velocity (so either diagonal is allowed). A necessary condition: it
    rules out a relaxed car jumping a wall one or two cells thick.

    >>> midpoints({(0, 0), (1, 0)}, 2, 1)
    ((0, 0), (1, 0), (2, 0))
    """
    def cells_on(*cells: Position) -> bool:
        return all(c in on for c in cells)

    out = []
    for sy in range(2 * height - 1):
        for sx in range(2 * width - 1):
            hx, hy = sx // 2, sy // 2
            if sx % 2 == 0 and sy % 2 == 0:
                ok = cells_on((hx, hy))
            elif sx % 2 == 0:
                ok = cells_on((hx, hy), (hx, hy + 1))
            elif sy % 2 == 0:
                ok = cells_on((hx, hy), (hx + 1, hy))
            else:
                ok = (cells_on((hx, hy), (hx + 1, hy + 1))
                      or cells_on((hx + 1, hy), (hx, hy + 1)))
            if ok:
                out.append((sx, sy))
    return tuple(out)


def rectangles(cells: tuple[Position, ...]) -> list[Rect]:
    """The cells as disjoint rectangles (x0, x1, y0, y1), inclusive: each row's runs of
    consecutive cells, a run continued by the same run in the next row (one rectangle for
    an open area or a corridor, a few per bend of a winding track).

    >>> rectangles(((1, 1), (2, 1), (1, 2), (2, 2), (4, 2)))
    [(1, 2, 1, 2), (4, 4, 2, 2)]
    """
    rows: dict[int, list[int]] = {}
    for x, y in cells:
        rows.setdefault(y, []).append(x)
    done: list[Rect] = []
    open_: dict[tuple[int, int], int] = {}  # run (x0, x1) -> first row, continuing
    last_y = -2
    for y in sorted(rows):
        xs = sorted(set(rows[y]))
        runs, start = [], xs[0]
        for a, b in zip(xs, xs[1:] + [None], strict=True):
            if b != a + 1:
                runs.append((start, a))
                start = b
        keep = set(runs) if last_y == y - 1 else set()
        for run, y0 in list(open_.items()):
            if run not in keep:
                done.append((run[0], run[1], y0, last_y))
                del open_[run]
        for run in runs:
            open_.setdefault(run, y)
        last_y = y
    done += [(r[0], r[1], y0, last_y) for r, y0 in open_.items()]
    return sorted(done, key=lambda r: (r[2], r[0]))


@dataclass
class _Built:
    model: cp_model.CpModel
    xs: list[cp_model.IntVar]
    ys: list[cp_model.IntVar]
    arrive: list[cp_model.IntVar]


def _crossing(model: cp_model.CpModel, line: Line, before: tuple, after: tuple,
              lit: cp_model.IntVar) -> None:
    """`lit` implies that the move from `before` to `after` (each (x, y) variables) crosses
    `line` the legal way with its bounding box meeting the line's span (a necessary
    condition of an exact, legal crossing)."""
    fixed, span = (0, 1) if line.axis == "x" else (1, 0)
    if line.sign > 0:
        model.Add(before[fixed] <= line.k).OnlyEnforceIf(lit)
        model.Add(after[fixed] >= line.k + 1).OnlyEnforceIf(lit)
    else:
        model.Add(before[fixed] >= line.k + 1).OnlyEnforceIf(lit)
        model.Add(after[fixed] <= line.k).OnlyEnforceIf(lit)
    low_b, low_a = model.NewBoolVar(""), model.NewBoolVar("")
    model.Add(before[span] <= line.hi).OnlyEnforceIf(low_b)
    model.Add(after[span] <= line.hi).OnlyEnforceIf(low_a)
    model.AddBoolOr([low_b, low_a]).OnlyEnforceIf(lit)
    high_b, high_a = model.NewBoolVar(""), model.NewBoolVar("")
    model.Add(before[span] >= line.lo).OnlyEnforceIf(high_b)
    model.Add(after[span] >= line.lo).OnlyEnforceIf(high_a)
    model.AddBoolOr([high_b, high_a]).OnlyEnforceIf(lit)


def _forbid(model: cp_model.CpModel, x0: cp_model.IntVar, y0: cp_model.IntVar,
            vx: cp_model.IntVar, vy: cp_model.IntVar, cut: Cut, alive: cp_model.IntVar
            ) -> None:
    """While `alive`, the move of this step is not `cut`."""
    lits = []
    for var, value in ((x0, cut.x), (y0, cut.y), (vx, cut.vx), (vy, cut.vy)):
        same = model.NewBoolVar("")
        model.Add(var == value).OnlyEnforceIf(same)
        model.Add(var != value).OnlyEnforceIf(same.Not())
        lits.append(same.Not())
    model.AddBoolOr(lits).OnlyEnforceIf(alive)


def _inside(model: cp_model.CpModel, x: cp_model.IntVar, y: cp_model.IntVar,
            rects: tuple[Rect, ...], when: cp_model.IntVar) -> None:
    """`when` implies that (x, y) lies in one of `rects` (x0, x1, y0, y1)."""
    inside = []
    for x0, x1, y0, y1 in rects:
        lit = model.NewBoolVar("")
        model.AddLinearConstraint(x, x0, x1).OnlyEnforceIf(lit)
        model.AddLinearConstraint(y, y0, y1).OnlyEnforceIf(lit)
        inside.append(lit)
    model.AddBoolOr(inside or [model.NewConstant(0)]).OnlyEnforceIf(when)


def build(m: KinematicsModel) -> _Built:
    """The CP-SAT model of `m` (module docstring): a pure function of the data."""
    model = cp_model.CpModel()
    vmax = max(m.width, m.height)
    xs = [model.NewConstant(m.initial[0])]
    ys = [model.NewConstant(m.initial[1])]
    vxs = [model.NewConstant(0)]
    vys = [model.NewConstant(0)]
    alive = [model.NewConstant(1)]  # alive[t]: move t is made (no arrival before it)
    arrive: list[cp_model.IntVar] = []
    started: list[cp_model.IntVar] = []  # started[t-1]: the start line crossed by move t
    for t in range(1, m.horizon + 1):
        x, y = model.NewIntVar(0, m.width - 1, f"x{t}"), model.NewIntVar(0, m.height - 1, f"y{t}")
        cap = m.opening.speed_cap(m.opening.phase_at(t - 1))
        lim = vmax if cap is None else cap
        vx, vy = model.NewIntVar(-lim, lim, f"vx{t}"), model.NewIntVar(-lim, lim, f"vy{t}")
        zero = m.opening.zero_axis(m.opening.phase_at(t - 1))
        if zero is not None:
            model.Add(vx == 0 if zero == "x" else vy == 0)
        if t > 1:
            on = model.NewBoolVar(f"alive{t}")
            model.AddImplication(on, alive[-1])
            model.AddImplication(on, arrive[-1].Not())
            alive.append(on)
        a = alive[-1]
        model.Add(x == xs[-1] + vx).OnlyEnforceIf(a)
        model.Add(y == ys[-1] + vy).OnlyEnforceIf(a)
        for v, prev in ((vx, vxs[-1]), (vy, vys[-1])):
            model.Add(v - prev <= 1).OnlyEnforceIf(a)
            model.Add(v - prev >= -1).OnlyEnforceIf(a)
        _inside(model, x, y, m.end_rects, a)  # the end cell lies in one of the rectangles
        sx = model.NewIntVar(0, 2 * m.width - 2, f"sx{t}")
        sy = model.NewIntVar(0, 2 * m.height - 2, f"sy{t}")
        model.Add(sx == xs[-1] + x).OnlyEnforceIf(a)
        model.Add(sy == ys[-1] + y).OnlyEnforceIf(a)
        _inside(model, sx, sy, m.mid_rects, a)
        for cut in m.cuts:
            _forbid(model, xs[-1], ys[-1], vx, vy, cut, a)
        cross_s = model.NewBoolVar(f"start{t}")
        _crossing(model, m.start, (xs[-1], ys[-1]), (x, y), cross_s)
        model.AddImplication(cross_s, a)
        s_by = model.NewBoolVar(f"started{t}")
        model.AddBoolOr([cross_s] + started[-1:]).OnlyEnforceIf(s_by)
        started.append(s_by)
        arr = model.NewBoolVar(f"arrive{t}")
        model.AddImplication(arr, a)
        model.AddImplication(arr, s_by)
        _crossing(model, m.finish, (xs[-1], ys[-1]), (x, y), arr)
        arrive.append(arr)
        xs.append(x), ys.append(y), vxs.append(vx), vys.append(vy)
    model.AddBoolOr(arrive or [model.NewConstant(0)])
    return _Built(model, xs, ys, arrive)


@dataclass(frozen=True)
class KinematicsSolve:
    """One solve: `feasible` with the positions p0..pt up to the first arrival, or
    `infeasible`, or `unknown` (the work budget ran out, or an UNSAT answer whose proof
    did not check: `solver_status` says which). `work`: what the solve spent, in its
    backend's unit (`Backend.unit`)."""

    status: Literal["feasible", "infeasible", "unknown"]
    positions: tuple[Position, ...]
    work: float
    solver_status: str


@dataclass(frozen=True)
class Backend:
    """A solver for the model: `solve(model, budget)` within `budget` units of `unit`."""

    name: str
    unit: str
    solve: Callable[[KinematicsModel, float], KinematicsSolve]


def solve(m: KinematicsModel, budget: float = DEFAULT_CPSAT_BUDGET, workers: int = 1
          ) -> KinematicsSolve:
    """Solve `m` with CP-SAT within `budget` deterministic time units."""
    b = build(m)
    solver = cpsat_core.solver(budget, workers)
    code = cpsat_solve(solver, b.model)
    name = solver.StatusName(code)
    spent = solver.deterministic_time
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        first = next(t for t, a in enumerate(b.arrive, start=1) if solver.Value(a))
        pos = tuple((solver.Value(b.xs[t]), solver.Value(b.ys[t])) for t in range(first + 1))
        return KinematicsSolve("feasible", pos, spent, name)
    if code == cp_model.INFEASIBLE:
        return KinematicsSolve("infeasible", (), spent, name)
    return KinematicsSolve("unknown", (), spent, name)


def cpsat_backend(workers: int = 1) -> Backend:
    """CP-SAT over `build`'s model, budgets in deterministic time units."""
    return Backend("CP-SAT", "deterministic time units",
                   lambda m, budget: solve(m, budget, workers))


@dataclass(frozen=True)
class Refinement:
    """The outcome of `refine` at horizon T.

    `status`: ``infeasible`` (no trajectory arrives within T moves: proven by the
    relaxation), ``feasible`` (`positions` is a trajectory that the independent geometry
    replays as valid, first arriving at its last move, within T moves), ``unknown`` (a
    solve ran out of its budget), ``stuck`` (a solution failed the replay for a reason no
    sound cut covers, or `max_cuts` were used: `reason` says which)."""

    status: Status
    horizon: int
    positions: tuple[Position, ...]
    cuts: tuple[Cut, ...]
    solves: int
    work: float
    reason: str
    unit: str = "deterministic time units"


def _cuttable(g: Geometry, x: int, y: int, vx: int, vy: int, layers: int) -> str | None:
    """Why the move from (x, y) by (vx, vy) is invalid whatever the layer, phase and
    progress (a sound cut), or None where some context may allow it."""
    if vx == 0 and vy == 0:
        return "zero velocity"
    if not (0 <= x + vx < g.width and 0 <= y + vy < g.height):
        return "leaves the grid"
    reasons = []
    for layer in range(layers):
        ok, reason, _, events = g._walk(x, y, vx, vy, layer)
        if ok and all(legal for _, _, legal in events):
            return None
        reasons.append(reason if not ok else "a line crossed the wrong way")
    return "; ".join(reasons)


def refine(track: Track, horizon: int, *, budget: float = DEFAULT_CPSAT_BUDGET, workers: int = 1,
           max_cuts: int = MAX_CUTS, cuts: tuple[Cut, ...] = (),
           geometry: Geometry | None = None, model: KinematicsModel | None = None,
           backend: Backend | None = None) -> Refinement:
    """Solve the relaxation at `horizon`, cutting replayed-invalid moves until it is
    infeasible, a solution replays as valid, or a bound is reached (see `Refinement`);
    `SizeBudgetExceeded` past `MAX_STEP_RECTANGLES`, before any solve.

    `budget` is the work of all the solves together in the backend's unit (CP-SAT's
    deterministic time by default; `backend` may be another solver of the same model,
    e.g. `racecert.independent.kinematics_cnf.sat_backend`); every cuttable move of a
    solution is cut at once (at most `max_cuts` cuts in all). `model`: the track's model
    built once (`KinematicsModel.of`) for several horizons."""
    backend = backend or cpsat_backend(workers)
    g = geometry or Geometry(track)
    layers = layer_count(track)
    base = replace(model or KinematicsModel.of(track, horizon, g), horizon=horizon, cuts=())
    if base.size > MAX_STEP_RECTANGLES:
        raise SizeBudgetExceeded("the kinematics model", base.size, MAX_STEP_RECTANGLES,
                                 "step-rectangles", note="horizon x rectangles of the end "
                                 "cells and the midpoints")
    spent, solves, found = 0.0, 0, list(cuts)

    def end(status: Status, positions: tuple[Position, ...], reason: str) -> Refinement:
        return Refinement(status, horizon, positions, tuple(found), solves, spent, reason,
                          backend.unit)

    def spent_all(note: str = "") -> Refinement:
        return end("unknown", (), f"{backend.name} used its budget of {budget:g} "
                                  f"{backend.unit} over {solves} solves{note}")

    while True:
        left = budget - spent
        if left <= 0:
            return spent_all()
        r = backend.solve(replace(base, cuts=tuple(found)), left)
        solves += 1
        spent += r.work
        if r.status == "infeasible":
            return end("infeasible", (), f"no arrival within the horizon ({r.solver_status})")
        if r.status == "unknown":
            return spent_all(f" ({r.solver_status})")
        ok, why = g.replay(list(r.positions))
        if ok:
            return end("feasible", r.positions, "replayed by the independent geometry")
        bad = _invalid_moves(g, r.positions, layers)
        early = _valid_prefix(g, r.positions[:bad[0][0]] if bad else r.positions)
        if early is not None:
            return end("feasible", early, "a prefix of a relaxed solution, replayed by the "
                                          "independent geometry")
        if not bad:
            return end("stuck", r.positions, f"a relaxed solution fails the replay ({why}) "
                       "with every move valid in some context: no sound cut")
        if len(found) + len(bad) > max_cuts:
            return end("stuck", r.positions, f"{len(found)} cuts made, the next solution "
                       f"needs {len(bad)} more (at most {max_cuts})")
        found.extend(cut for _, cut in bad if cut not in found)


def _invalid_moves(g: Geometry, positions: tuple[Position, ...], layers: int
                   ) -> list[tuple[int, Cut]]:
    """The moves of `positions` (1-based index, as cuts) that are invalid from their cell
    whatever the layer, phase and progress."""
    out = []
    for i in range(1, len(positions)):
        (x0, y0), (x1, y1) = positions[i - 1], positions[i]
        reason = _cuttable(g, x0, y0, x1 - x0, y1 - y0, layers)
        if reason is not None:
            out.append((i, Cut(x0, y0, x1 - x0, y1 - y0, reason)))
    return out


def _valid_prefix(g: Geometry, positions: tuple[Position, ...]
                  ) -> tuple[Position, ...] | None:
    """The shortest prefix of `positions` that the geometry replays as a valid trajectory
    first arriving at its last move, or None."""
    for end in range(2, len(positions) + 1):
        if g.replay(list(positions[:end]))[0]:
            return positions[:end]
    return None
