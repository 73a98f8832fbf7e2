r"""The integer-kinematics relaxation as CNF (order encoding): a lower bound with a proof.

`racecert.independent.kinematics` poses "arrive within T moves" over integer positions
and velocities for CP-SAT, refined by sample families and cuts of moves the independent
geometry refuses. CP-SAT's "infeasible" is only the solver's word. This module writes the
*same* model (the same `KinematicsModel` data: end-cell and midpoint rectangles, the row
and column walls, the families (`kinematics.Families`), the lines, the opening rule, the
cuts, the free axes) as a CNF, so that a proof-logging SAT solver's refutation comes
with a DRUP proof that `racecert.independent.drup.check_drup` checks.

Order encoding: an integer z with domain [lo, hi] has one variable per threshold,
[z >= a] for lo < a <= hi ([z >= lo] is true, [z >= hi + 1] false), with
[z >= a + 1] -> [z >= a]. The domains are what the rules state directly, with one bound
argued here: a position lies on the grid; the car starts at rest and each move changes
each velocity component by at most 1, so |v_t| <= t, and a velocity component cannot
exceed the grid's extent less one (the move would leave the grid); the opening rule's
cap and straight axis are bounds as in the CP-SAT model; and |v_t| <= the box speed
(`KinematicsModel.box_speeds`): a component s is reached by s moves whose components are
at least 1, 2, ..., s, covering s (s + 1) / 2 cells between two cells of the model's box,
where every position before the arrival lies (llanura: 8 across, 11 down, where t alone
allows 68). Everything else (how far the car can get by move t) is left to the clauses,
so the refutation is the solver's and the checker's unit propagation, not this encoder's
arithmetic.

Per move t (x and y alike), all guarded by "not arrived before move t" (`done[t-1]`):

- x_t = x_{t-1} + vx_t: for every pair of thresholds,
  [x_{t-1} >= a] and [vx_t >= b] -> [x_t >= a + b], and
  [x_{t-1} <= a] and [vx_t <= b] -> [x_t <= a + b];
- |vx_t - vx_{t-1}| <= 1: [vx_t >= b + 1] -> [vx_{t-1} >= b] and
  [vx_{t-1} >= b + 1] -> [vx_t >= b];
  on a free axis (`KinematicsModel.free_axes`, `kinematics.light`) instead of both, no
  velocity: |x_t - x_{t-1}| <= its cap, two clauses per value of x_{t-1};
- the end cell in one of the end rectangles;
- a point of the move, n p + j v (the doubled midpoint 2 x_{t-1} + vx_t; each sample
  family's n x_{t-1} + j vx_t), in none of a few forbidden rectangles: the complement of
  the midpoint rectangles within the box doubled (`kinematics.mid_walls`: llanura's 18
  against 25 allowed ones), the off-track rectangles scaled by n
  (`kinematics.sample_walls`). A rectangle reads a few thresholds of the point, and each
  threshold is one literal [n p + j v >= a] defined by clauses over the order literals
  of the smaller of p's and v's domains (`_at_least`): per step a few thousand clauses,
  where the order-encoded sum of every pair of values would cost tens of thousands;
- the row and column walls: [y_{t-1} >= c] or [y_t <= c] or x_{t-1} or x_t outside
  a..b, and the same the other way (two clauses a wall); the line walls the same way
  (one clause a line: only against its direction); no standstill: vx_t != 0 or
  vy_t != 0 (one clause; left out where an axis is free);
- no cut move: not (x_{t-1} = x, y_{t-1} = y, vx_t = vx, vy_t = vy);
- line crossings as in the CP-SAT model: the fixed coordinate passes the line the legal
  way and the bounding box meets the span; an arrival needs the start crossed by then;
  ``done[t] -> done[t-1] or arrive[t]``, and the goal is ``done[T]``.

Every valid trajectory arriving within T moves satisfies every clause (after its
arrival only the domains bind the later steps, and staying put satisfies them; the
threshold literals are definitions, true exactly when their inequality holds), so an
UNSAT answer whose proof checks is a lower bound. `sat_backend` makes this CNF the
solver of `racecert.independent.kinematics.refine`: the same families and cuts, the same
replay of every solution by the independent geometry, and a witness at m* read off a
model. On llanura (T = 68) the full model is some 400,000 clauses whose refutation needs
about 9,000 conflicts and a 20 s proof check; the light model (y velocity free, no
midpoints) 107,000 clauses, about 4,700 conflicts and a 3 s check.

The bundled straight (m* = 3: 1 + 2 + 3 cells to the finish):

>>> from racecert.model.bundled import track_path
>>> from racecert.model.parse import load_track
>>> from racecert.independent.kinematics import KinematicsModel
>>> t = load_track(track_path("tiny_straight"))
>>> [solve_cnf(KinematicsModel.of(t, h)).solve.status for h in (2, 3)]
['infeasible', 'feasible']
>>> solve_cnf(KinematicsModel.of(t, 3)).solve.positions
((1, 1), (2, 1), (4, 1), (7, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.drup import check_drup
from racecert.independent.interrupt import pysat_interrupts, pysat_solve_limited
from racecert.independent.kinematics import (
    Backend,
    KinematicsModel,
    KinematicsSolve,
    Position,
    Rect,
    mid_walls,
    sample_walls,
)
from racecert.independent.sat import DEFAULT_CONFLICT_BUDGET, write_dimacs
from racecert.model.track import Line

MAX_CLAUSES = 3_000_000
"""Size budget: the clauses the encoding would have (estimated from the domains before any
is built). Open 300 x 300 needs about 1.3 million; a 5000-cell corridor with m* = 100
about 200 million (its positions times its velocities, per move), and is skipped."""

Lit = int | bool
"""A literal, or a constant: True (satisfied) or False."""


def neg(lit: Lit) -> Lit:
    if lit is True:
        return False
    if lit is False:
        return True
    return -lit


@dataclass(frozen=True)
class _Int:
    """An order-encoded integer over [lo, hi]: [z >= a] is variable base + a - lo."""

    lo: int
    hi: int
    base: int

    def ge(self, a: int) -> Lit:
        if a <= self.lo:
            return True
        if a > self.hi:
            return False
        return self.base + a - self.lo

    def le(self, a: int) -> Lit:
        return neg(self.ge(a + 1))


class Cnf:
    """Clauses under construction: constants simplified away, one variable counter."""

    def __init__(self) -> None:
        self.clauses: list[list[int]] = []
        self.nvars = 0

    def var(self) -> int:
        self.nvars += 1
        return self.nvars

    def integer(self, lo: int, hi: int) -> _Int:
        z = _Int(lo, hi, self.nvars)
        self.nvars += max(hi - lo, 0)
        for a in range(lo + 1, hi):
            self.add(z.ge(a), neg(z.ge(a + 1)))
        return z

    def add(self, *lits: Lit) -> None:
        # the common case, no constant: `in` compares by value, and no literal equals
        # False (0); one that equals True (variable 1) takes the general path below
        if True not in lits and False not in lits:
            self.clauses.append(list(lits))
            return
        out = []
        for lit in lits:
            if lit is True:
                return
            if lit is not False:
                out.append(lit)
        if not out:  # falsified by constants: as clauses, a fresh variable and its negation
            v = self.var()
            self.clauses += [[v], [-v]]
            return
        self.clauses.append(out)


def velocity_cap(m: KinematicsModel, t: int, extent: int, axis: str) -> int:
    """|v_t| on `axis` as the rules state it: at most t (from rest, one unit a move), less
    than the grid's `extent`, the opening rule's cap; 0 on the opening's zero axis."""
    phase = m.opening.phase_at(t - 1)
    if m.opening.zero_axis(phase) == axis:
        return 0
    cap = m.opening.speed_cap(phase)
    return min(t, extent - 1, t if cap is None else cap)


def estimated_clauses(m: KinematicsModel) -> int:
    """The clauses `encode` writes, up to a few per step: the sums x_t = x_{t-1} + v_t
    dominate (positions times velocities per move and axis, twice over; two per position
    on a free axis), then the conditions on points of the move (the midpoint, the sample
    families: at most two clauses per value of the smaller domain for each threshold a
    rectangle reads, and one per rectangle), the walls (two each) and the cuts (one
    each)."""
    speeds = m.box_speeds
    conditions = [mid_walls(m), *(sample_walls(m, n) for _, n in m.samples)]
    total = 0
    for t in range(1, m.horizon + 1):
        smaller = []
        for i, (axis, extent) in enumerate((("x", m.width), ("y", m.height))):
            if axis in m.free_axes:
                total += 2 * extent
                smaller.append(extent)
                continue
            v = 2 * min(velocity_cap(m, t, extent, axis), speeds[i]) + 1
            total += 2 * extent * v + 2 * (v + 2)
            smaller.append(min(extent, v))
        for rects in conditions:
            xs = {a for r in rects for a in (r[0], r[1] + 1)}
            ys = {a for r in rects for a in (r[2], r[3] + 1)}
            total += len(rects) + 2 * (len(xs) * smaller[0] + len(ys) * smaller[1])
        total += 2 * (len(m.row_walls) + len(m.col_walls)) + len(m.cuts) + 12
    return total


@dataclass(frozen=True)
class KinematicsCnf:
    """The CNF of one model: its clauses and variable count, whether the midpoint condition
    is written, and per step the order-encoded position (for reading a model back) and
    the arrival variable of each move."""

    clauses: list[list[int]]
    nvars: int
    midpoints: bool
    xs: tuple[_Int, ...]
    ys: tuple[_Int, ...]
    arrive: tuple[int, ...]


def encode(m: KinematicsModel) -> KinematicsCnf:
    """The CNF of `m` (module docstring); `SizeBudgetExceeded` past `MAX_CLAUSES`."""
    size = estimated_clauses(m)
    if size > MAX_CLAUSES:
        raise SizeBudgetExceeded("the kinematics CNF", size, MAX_CLAUSES, "clauses",
                                 note="positions x velocities per move and axis")
    cnf = Cnf()
    banned = mid_walls(m)
    mid = bool(banned)
    x = cnf.integer(m.initial[0], m.initial[0])
    y = cnf.integer(m.initial[1], m.initial[1])
    zero = cnf.integer(0, 0)
    vel: tuple[_Int | None, _Int | None] = (zero, zero)
    done: Lit = False
    started: Lit = False
    xs, ys, arrivals = [x], [y], []
    speeds = m.box_speeds
    walls_of = {n: sample_walls(m, n) for _, n in m.samples}
    for t in range(1, m.horizon + 1):
        g = done  # every clause of move t holds unless the car arrived before it
        new_pos = (cnf.integer(0, m.width - 1), cnf.integer(0, m.height - 1))
        new_vel: list[_Int | None] = []
        for i, (axis, extent) in enumerate((("x", m.width), ("y", m.height))):
            cap = min(velocity_cap(m, t, extent, axis), speeds[i])
            prev, new = (x, y)[i], new_pos[i]
            if axis in m.free_axes:  # the displacement alone: |new - prev| <= cap
                _displacement(cnf, g, prev, new, cap)
                new_vel.append(None)
                continue
            v = cnf.integer(-cap, cap)
            _sum(cnf, g, prev, 1, v, new)
            old = vel[i]
            if old is not None:
                _step(cnf, g, old, v)
            new_vel.append(v)
        nx, ny = new_pos
        inside_rects(cnf, g, nx, ny, m.end_rects)
        if mid:
            samples(cnf, g, _point(cnf, x, nx, new_vel[0], 1, 2),
                    _point(cnf, y, ny, new_vel[1], 1, 2), banned)
        walls(cnf, g, (x, y), (nx, ny), m)
        one_way(cnf, g, (x, y), (nx, ny), m)
        if m.moving and new_vel[0] is not None and new_vel[1] is not None:
            cnf.add(g, *_differs(new_vel[0], 0), *_differs(new_vel[1], 0))
        for j, n in m.samples:
            samples(cnf, g, _point(cnf, x, nx, new_vel[0], j, n),
                    _point(cnf, y, ny, new_vel[1], j, n), walls_of[n])
        for cut in m.cuts:
            cnf.add(g, *_differs(x, cut.x), *_differs(y, cut.y),
                    *_differs_move(nx, new_vel[0], cut.x, cut.vx),
                    *_differs_move(ny, new_vel[1], cut.y, cut.vy))
        started, done, arrive = lines_and_arrival(cnf, m, g, (x, y), (nx, ny), started, done)
        x, y, vel = nx, ny, (new_vel[0], new_vel[1])
        xs.append(x), ys.append(y), arrivals.append(arrive)
    cnf.add(done)
    return KinematicsCnf(cnf.clauses, cnf.nvars, mid, tuple(xs), tuple(ys), tuple(arrivals))


def lines_and_arrival(cnf: Cnf, m: KinematicsModel, g: Lit, before: tuple[_Int, _Int],
                      after: tuple[_Int, _Int], started: Lit, done: Lit
                      ) -> tuple[Lit, Lit, Lit]:
    """One move's start and finish crossings (`crossing`), guarded by `g` ("arrived
    before this move"): the start crossed by now, an arrival only once it was, and arrived
    by now. Returns (started now, done now, this move's arrival literal)."""
    cross_s, arrive = cnf.var(), cnf.var()
    crossing(cnf, m.start, before, after, cross_s)
    crossing(cnf, m.finish, before, after, arrive)
    now_started = cnf.var()
    cnf.add(-now_started, started, cross_s)
    cnf.add(-cross_s, neg(g))
    cnf.add(-arrive, neg(g))
    cnf.add(-arrive, now_started)
    now_done = cnf.var()
    cnf.add(-now_done, done, arrive)
    return now_started, now_done, arrive


def _sum(cnf: Cnf, g: Lit, a: _Int, scale: int, b: _Int, out: _Int) -> None:
    """While `g` is false: out = scale * a + b, both directions, every pair of values."""
    add, ge, le = cnf.add, out.ge, out.le
    # the literals of b's values, negated, once (the same clauses as pair by pair)
    rows = [(vb, neg(b.ge(vb)), neg(b.le(vb))) for vb in range(b.lo, b.hi + 1)]
    for va in range(a.lo, a.hi + 1):
        nga, nla, base = neg(a.ge(va)), neg(a.le(va)), scale * va
        for vb, ngb, nlb in rows:
            add(g, nga, ngb, ge(base + vb))
            add(g, nla, nlb, le(base + vb))


def walls(cnf: Cnf, g: Lit, before: tuple[_Int, _Int], after: tuple[_Int, _Int],
          m: KinematicsModel) -> None:
    """While `g` is false: the move crosses no row or column wall (c, a, b) of `m` with
    both ends beside it (`kinematics.crossing_walls`): two clauses of order literals per
    wall, one per direction."""
    for axis, ws in ((1, m.row_walls), (0, m.col_walls)):
        u0, u1 = before[axis], after[axis]
        w0, w1 = before[1 - axis], after[1 - axis]
        for c, a, b in ws:
            beside = (neg(w0.ge(a)), w0.ge(b + 1), neg(w1.ge(a)), w1.ge(b + 1))
            cnf.add(g, u0.ge(c), u1.le(c), *beside)
            cnf.add(g, u1.ge(c), u0.le(c), *beside)


def one_way(cnf: Cnf, g: Lit, before: tuple[_Int, _Int], after: tuple[_Int, _Int],
            m: KinematicsModel) -> None:
    """While `g` is false: the move crosses no line of `m.line_walls` the wrong way with
    both ends beside its span (`kinematics.one_way`): one clause a line."""
    for line in m.line_walls:
        fixed = 0 if line.axis == "x" else 1
        f0, f1 = before[fixed], after[fixed]
        s0, s1 = before[1 - fixed], after[1 - fixed]
        if line.sign > 0:  # wrong way: from k + 1 or more to k or less
            across = (f0.le(line.k), f1.ge(line.k + 1))
        else:
            across = (f0.ge(line.k + 1), f1.le(line.k))
        cnf.add(g, *across, neg(s0.ge(line.lo)), s0.ge(line.hi + 1), neg(s1.ge(line.lo)),
                s1.ge(line.hi + 1))


def samples(cnf: Cnf, g: Lit, sx: _Scaled, sy: _Scaled, rects: tuple[Rect, ...]) -> None:
    """While `g` is false: the sample point (sx, sy) (`_point`) lies in none of `rects`
    (`kinematics.sample_walls`): one clause per rectangle over the literals [sx >= a]
    of its bounds."""
    for x0, x1, y0, y1 in rects:
        cnf.add(g, neg(sx.ge(x0)), sx.ge(x1 + 1), neg(sy.ge(y0)), sy.ge(y1 + 1))


def _point(cnf: Cnf, prev: _Int, new: _Int, v: _Int | None, j: int, n: int) -> _Scaled:
    """The coordinate n p + j v of the point p + (j / n) v of the move from `prev` to `new`
    (v = new - prev): over the velocity where the axis has one (its domain is the smaller),
    else as (n - j) prev + j new."""
    if v is not None:
        return _Scaled(cnf, prev, n, v, j)
    return _Scaled(cnf, prev, n - j, new, j)


def _displacement(cnf: Cnf, g: Lit, prev: _Int, new: _Int, cap: int) -> None:
    """While `g` is false: |new - prev| <= cap, two clauses per value of `prev`."""
    for a in range(prev.lo, prev.hi + 1):
        cnf.add(g, neg(prev.ge(a)), new.ge(a - cap))
        cnf.add(g, neg(prev.le(a)), new.le(a + cap))


def _differs_move(new: _Int, v: _Int | None, start: int, velocity: int) -> tuple[Lit, Lit]:
    """Two literals whose disjunction says the move's velocity is not `velocity`, given
    its start coordinate is `start`: over the velocity where the axis has one, else over
    the end coordinate."""
    return _differs(v, velocity) if v is not None else _differs(new, start + velocity)


class _Scaled:
    """The integer ca * a + cb * b (ca, cb > 0) of two order-encoded integers, with an
    order literal [>= k] made only for the thresholds k asked for (`_at_least`): a
    condition on a few of its values costs clauses per threshold, not per pair of
    values."""

    def __init__(self, cnf: Cnf, a: _Int, ca: int, b: _Int, cb: int) -> None:
        self.cnf, self.a, self.ca, self.b, self.cb = cnf, a, ca, b, cb
        self.made: dict[int, Lit] = {}

    def ge(self, k: int) -> Lit:
        if k not in self.made:
            self.made[k] = _at_least(self.cnf, self.a, self.ca, self.b, self.cb, k)
        return self.made[k]

    def le(self, k: int) -> Lit:
        return neg(self.ge(k + 1))


def _at_least(cnf: Cnf, a: _Int, ca: int, b: _Int, cb: int, k: int) -> Lit:
    """A literal equivalent to ca * a + cb * b >= k (ca, cb > 0), by clauses over the
    order literals of the smaller of the two domains: for each value u of a,
    [a >= u] and [b >= ceil((k - ca u) / cb)] imply it, and [a <= u] and
    [b <= floor((k - 1 - ca u) / cb)] imply its negation (only the values that matter;
    a constant where the sum's range decides)."""
    if ca * a.lo + cb * b.lo >= k:
        return True
    if ca * a.hi + cb * b.hi < k:
        return False
    if b.hi - b.lo < a.hi - a.lo:
        a, ca, b, cb = b, cb, a, ca
    lit = cnf.var()
    # the clauses of cnf.add(neg(a.ge(u)), neg(b.ge(w)), lit) and of cnf.add(neg(a.le(u)),
    # neg(b.le(w)), -lit), appended directly: u and w lie within their domains, so the only
    # constant among the literals is an end's False, which a clause drops
    clauses = cnf.clauses
    for u in range(a.lo, a.hi + 1):  # ca * a + cb * b >= k -> lit
        w = -((ca * u - k) // cb)  # ceil((k - ca u) / cb)
        if w > b.hi:
            continue
        clauses.append([x for x in (neg(a.ge(u)), neg(b.ge(w)), lit) if x is not False])
        if w <= b.lo:
            break
    for u in range(a.hi, a.lo - 1, -1):  # ca * a + cb * b <= k - 1 -> not lit
        w = (k - 1 - ca * u) // cb
        if w < b.lo:
            continue
        clauses.append([x for x in (neg(a.le(u)), neg(b.le(w)), -lit) if x is not False])
        if w >= b.hi:
            break
    return lit


def _step(cnf: Cnf, g: Lit, old: _Int, new: _Int) -> None:
    """While `g` is false: |new - old| <= 1."""
    for v in range(min(old.lo, new.lo) - 1, max(old.hi, new.hi) + 2):
        cnf.add(g, neg(new.ge(v + 1)), old.ge(v))
        cnf.add(g, neg(old.ge(v + 1)), new.ge(v))


def inside_rects(cnf: Cnf, g: Lit, x: _Int, y: _Int, rects: tuple[Rect, ...]) -> None:
    """While `g` is false: (x, y) lies in one of `rects`."""
    if len(rects) == 1:
        x0, x1, y0, y1 = rects[0]
        for lit in (x.ge(x0), x.le(x1), y.ge(y0), y.le(y1)):
            cnf.add(g, lit)
        return
    chosen = []
    for x0, x1, y0, y1 in rects:
        r = cnf.var()
        for lit in (x.ge(x0), x.le(x1), y.ge(y0), y.le(y1)):
            cnf.add(-r, lit)
        chosen.append(r)
    cnf.add(g, *chosen)


def _differs(z: _Int, value: int) -> tuple[Lit, Lit]:
    """Two literals whose disjunction says z != value."""
    return neg(z.ge(value)), z.ge(value + 1)


def crossing(cnf: Cnf, line: Line, before: tuple[_Int, _Int], after: tuple[_Int, _Int],
              lit: int) -> None:
    """`lit` implies the move crosses `line` the legal way with its bounding box meeting
    the line's span (the CP-SAT model's `crossing`)."""
    fixed, span = (0, 1) if line.axis == "x" else (1, 0)
    b, a = before[fixed], after[fixed]
    if line.sign > 0:
        cnf.add(-lit, b.le(line.k))
        cnf.add(-lit, a.ge(line.k + 1))
    else:
        cnf.add(-lit, b.ge(line.k + 1))
        cnf.add(-lit, a.le(line.k))
    cnf.add(-lit, before[span].le(line.hi), after[span].le(line.hi))
    cnf.add(-lit, before[span].ge(line.lo), after[span].ge(line.lo))


@dataclass(frozen=True)
class SatSolve:
    """One proof-logging solve of a model's CNF: the `KinematicsSolve` for `refine`, plus
    the sizes of the CNF and the proof and the checker's verdict (for the certificate)."""

    solve: KinematicsSolve
    nvars: int
    clauses: int
    midpoints: bool
    proof_lines: int
    proof_bytes: int
    checker: str
    rejected: bool = False  # UNSAT, but the DRUP checker refused the proof


@dataclass(frozen=True)
class CheckedSolve:
    """One proof-logging solve of a CNF within a conflict budget, its UNSAT answer's DRUP
    proof checked: ``feasible`` with the model's true literals, ``infeasible`` only when
    the proof checks, ``unknown`` when the budget ran out or the proof was rejected
    (`rejected`). The proof's size, the checker's words, the conflicts spent, a note."""

    status: Literal["feasible", "infeasible", "unknown"]
    true: frozenset[int]
    conflicts: int
    proof_lines: int
    proof_bytes: int
    checker: str
    note: str
    rejected: bool = False


def solve_checked(clauses: list[list[int]], conflict_budget: float, solver: str,
                  proof_path: Path | None) -> CheckedSolve:
    """Solve `clauses` within `conflict_budget` conflicts and check an UNSAT answer's DRUP
    proof (`check_drup`). When UNSAT and `proof_path` is given, the proof is written there
    and the formula beside it in DIMACS (suffix ``.cnf``), for an outside checker."""
    from pysat.solvers import Solver

    with (Solver(name=solver, bootstrap_with=clauses, with_proof=True) as sat,
          pysat_interrupts()):
        sat.conf_budget(max(int(conflict_budget), 1))
        answer = pysat_solve_limited(sat)
        conflicts = int(sat.accum_stats().get("conflicts", 0))
        model = sat.get_model() if answer else None
        proof = list(sat.get_proof() or ()) if answer is False else []

    def out(status: Literal["feasible", "infeasible", "unknown"], note: str,
            true: frozenset[int] = frozenset(), checker: str = "",
            rejected: bool = False) -> CheckedSolve:
        return CheckedSolve(status, true, conflicts, len(proof),
                            sum(len(line) + 1 for line in proof), checker, note, rejected)

    if answer is None:
        return out("unknown", f"{solver}: conflict budget of {int(conflict_budget):,} spent")
    if model is not None:
        return out("feasible", f"{solver}: a model", frozenset(model))
    if proof_path is not None:
        proof_path.write_text("".join(line + "\n" for line in proof))
        write_dimacs(clauses, proof_path.with_suffix(".cnf"))
    drup = check_drup(clauses, proof)
    if not drup.verified:
        return out("unknown", f"{solver}: UNSAT, but the DRUP proof was rejected: "
                   f"{drup.reason}", checker=drup.reason, rejected=True)
    return out("infeasible", f"{solver}: UNSAT, DRUP proof of {len(proof):,} lines checked",
               checker=drup.reason)


def solve_cnf(m: KinematicsModel, conflict_budget: float = DEFAULT_CONFLICT_BUDGET,
              *, solver: str = "glucose4", proof_path: Path | None = None) -> SatSolve:
    """Solve the CNF of `m` within `conflict_budget` conflicts: ``feasible`` with the
    positions up to the first arrival of the model, ``infeasible`` only when the solver's
    DRUP proof checks (`check_drup`), else ``unknown`` (the budget ran out, or the proof
    was rejected: `solve.solver_status` says which). `SizeBudgetExceeded` past
    `MAX_CLAUSES`, before anything is built. When UNSAT and `proof_path` is given, the
    proof is written there and the formula beside it in DIMACS (suffix ``.cnf``), for an
    outside checker (`solve_checked`)."""
    cnf = encode(m)
    r = solve_checked(cnf.clauses, conflict_budget, solver, proof_path)
    positions = _positions(cnf, r.true) if r.status == "feasible" else ()
    return SatSolve(KinematicsSolve(r.status, positions, float(r.conflicts), r.note),
                    cnf.nvars, len(cnf.clauses), cnf.midpoints, r.proof_lines,
                    r.proof_bytes, r.checker, r.rejected)


def _positions(cnf: KinematicsCnf, true: frozenset[int]) -> tuple[Position, ...]:
    """The model's positions p0..pt up to its first arrival t."""
    def value(z: _Int) -> int:
        return z.lo + sum(1 for a in range(z.lo + 1, z.hi + 1) if z.ge(a) in true)

    first = next(t for t, a in enumerate(cnf.arrive, start=1) if a in true)
    return tuple((value(cnf.xs[t]), value(cnf.ys[t])) for t in range(first + 1))


def sat_backend(solver: str = "glucose4", record: list[SatSolve] | None = None,
                proof_path: Path | None = None) -> Backend:
    """The CNF as `refine`'s solver: budgets in conflicts, UNSAT only with a checked proof.
    Each solve's `SatSolve` is appended to `record` when one is given (the certificate
    reports the CNF's and the proof's sizes); a refutation's proof and formula go to
    `proof_path` when one is given (`solve_cnf`)."""
    def run(m: KinematicsModel, budget: float) -> KinematicsSolve:
        r = solve_cnf(m, budget, solver=solver, proof_path=proof_path)
        if record is not None:
            record.append(r)
        return r.solve

    return Backend(f"SAT ({solver})", "conflicts", run)


__all__ = ["MAX_CLAUSES", "CheckedSolve", "KinematicsCnf", "SatSolve", "encode",
           "estimated_clauses", "sat_backend", "solve_checked", "solve_cnf"]
