r"""The integer-kinematics relaxation as CNF (order encoding): a lower bound with a proof.

`racecert.independent.kinematics` poses "arrive within T moves" over integer positions
and velocities for CP-SAT, refined by cuts of moves the independent geometry refuses.
CP-SAT's "infeasible" is only the solver's word. This module writes the *same* model
(the same `KinematicsModel` data: end-cell and midpoint rectangles, the lines, the
opening rule, the cuts) as a CNF, so that a proof-logging SAT solver's refutation comes
with a DRUP proof that `racecert.independent.drup.check_drup` checks.

Order encoding: an integer z with domain [lo, hi] has one variable per threshold,
[z >= a] for lo < a <= hi ([z >= lo] is true, [z >= hi + 1] false), with
[z >= a + 1] -> [z >= a]. The domains are what the rules state directly, never a
bound worked out here: a position lies on the grid; the car starts at rest and each move
changes each velocity component by at most 1, so |v_t| <= t, and a velocity component
cannot exceed the grid's extent less one (the move would leave the grid); the opening
rule's cap and straight axis are bounds as in the CP-SAT model. Everything else (how
far the car can get by move t) is left to the clauses, so the refutation is the
solver's and the checker's unit propagation, not this encoder's arithmetic.

Per move t (x and y alike), all guarded by "not arrived before move t" (`done[t-1]`):

- x_t = x_{t-1} + vx_t: for every pair of thresholds,
  [x_{t-1} >= a] and [vx_t >= b] -> [x_t >= a + b], and
  [x_{t-1} <= a] and [vx_t <= b] -> [x_t <= a + b];
- |vx_t - vx_{t-1}| <= 1: [vx_t >= b + 1] -> [vx_{t-1} >= b] and
  [vx_{t-1} >= b + 1] -> [vx_t >= b];
- the end cell in one of the end rectangles, the doubled midpoint 2 x_{t-1} + vx_t in
  one of the midpoint rectangles (left out where it follows from the end cells: one end
  rectangle that the car starts in, a midpoint rectangle containing it doubled);
- no cut move: not (x_{t-1} = x, y_{t-1} = y, vx_t = vx, vy_t = vy);
- line crossings as in the CP-SAT model: the fixed coordinate passes the line the legal
  way and the bounding box meets the span; an arrival needs the start crossed by then;
  ``done[t] -> done[t-1] or arrive[t]``, and the goal is ``done[T]``.

Every valid trajectory arriving within T moves satisfies every clause (after its
arrival only the domains bind the later steps, and staying put satisfies them), so an
UNSAT answer whose proof checks is a lower bound. `sat_backend` makes this CNF the
solver of `racecert.independent.kinematics.refine`: the same cuts, the same replay of
every solution by the independent geometry, and a witness at m* read off a model.

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
    return (not lit) if isinstance(lit, bool) else -lit


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


def _midpoints_implied(m: KinematicsModel) -> bool:
    """Whether the midpoint condition follows from the end cells: one end rectangle, the
    car inside it, and a midpoint rectangle containing it doubled (a segment between two
    points of a rectangle has its midpoint in it)."""
    if len(m.end_rects) != 1:
        return False
    x0, x1, y0, y1 = m.end_rects[0]
    cx, cy = m.initial
    return (x0 <= cx <= x1 and y0 <= cy <= y1
            and any(a <= 2 * x0 and 2 * x1 <= b and c <= 2 * y0 and 2 * y1 <= d
                    for a, b, c, d in m.mid_rects))


def estimated_clauses(m: KinematicsModel) -> int:
    """The clauses `encode` writes, up to a few per step: the sums dominate (positions
    times velocities per move and axis, twice over, and again for the midpoints)."""
    mid = 1 if _midpoints_implied(m) else 2
    total = 0
    for t in range(1, m.horizon + 1):
        for extent, axis in ((m.width, "x"), (m.height, "y")):
            v = 2 * velocity_cap(m, t, extent, axis) + 1
            total += 2 * mid * extent * v
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
    mid = not _midpoints_implied(m)
    x = cnf.integer(m.initial[0], m.initial[0])
    y = cnf.integer(m.initial[1], m.initial[1])
    vx = vy = cnf.integer(0, 0)
    done: Lit = False
    started: Lit = False
    xs, ys, arrivals = [x], [y], []
    for t in range(1, m.horizon + 1):
        g = done  # every clause of move t holds unless the car arrived before it
        cx, cy = (velocity_cap(m, t, m.width, "x"), velocity_cap(m, t, m.height, "y"))
        nvx, nvy = cnf.integer(-cx, cx), cnf.integer(-cy, cy)
        nx, ny = cnf.integer(0, m.width - 1), cnf.integer(0, m.height - 1)
        for prev, v, new in ((x, nvx, nx), (y, nvy, ny)):
            _sum(cnf, g, prev, 1, v, new)
        for old, new in ((vx, nvx), (vy, nvy)):
            _step(cnf, g, old, new)
        inside_rects(cnf, g, nx, ny, m.end_rects)
        if mid:
            sx, sy = cnf.integer(0, 2 * m.width - 2), cnf.integer(0, 2 * m.height - 2)
            _sum(cnf, g, x, 2, nvx, sx)
            _sum(cnf, g, y, 2, nvy, sy)
            inside_rects(cnf, g, sx, sy, m.mid_rects)
        for cut in m.cuts:
            cnf.add(g, *_differs(x, cut.x), *_differs(y, cut.y), *_differs(nvx, cut.vx),
                    *_differs(nvy, cut.vy))
        started, done, arrive = lines_and_arrival(cnf, m, g, (x, y), (nx, ny), started, done)
        x, y, vx, vy = nx, ny, nvx, nvy
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
    for va in range(a.lo, a.hi + 1):
        ga, la = a.ge(va), a.le(va)
        for vb in range(b.lo, b.hi + 1):
            s = scale * va + vb
            cnf.add(g, neg(ga), neg(b.ge(vb)), out.ge(s))
            cnf.add(g, neg(la), neg(b.le(vb)), out.le(s))


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
