r"""The displacement relaxation as CNF: a checked lower bound of m* on long straight tracks.

The order-encoded kinematics CNF (`racecert.independent.kinematics_cnf`) states
x_t = x_{t-1} + v_t for every pair of a position and a velocity: positions times
velocities clauses per move and axis, about 200 million on a 5000-cell corridor with
m* = 100, far past its size budget. This CNF drops what makes it quadratic, the velocity:
per move t and axis only the *displacement* is bounded,

    |x_t - x_{t-1}| <= c_t,   c_t = min(t, extent - 1, the opening rule's cap at t)

(0 on the opening's straight axis), which every valid trajectory satisfies: the car
starts at rest and each move changes each velocity component by at most 1, so the t-th
move's displacement v_t has |v_t| <= t (the same caps as the kinematics CNF's velocity
domains, `kinematics_cnf.velocity_cap`). Velocity continuity is dropped: a relaxation
(the speed-capped relaxation that `racecert.independent.onehot` uses for its cells), so
"no arrival within T moves" of this CNF is a lower bound. It is tight where the optimal
trajectory accelerates all the way to the finish (a straight corridor: m* moves cover at
most 1 + 2 + ... + m* cells), and weak where the car has to brake or turn; there the
solver finds a model and the check confirms nothing.

Each coordinate x_t ranges over the whole grid, 0..extent - 1 (never a reach bound: the
finish stays representable at every move), order-encoded at a set of thresholds
[x_t >= a]; values between two thresholds share their literals. Per move t and axis:

- for each threshold a of x_{t-1}: x_{t-1} < a -> x_t < a' and x_{t-1} >= a -> x_t >= a'',
  with a' the least threshold of x_t at or above a + c_t and a'' the greatest at or below
  a - c_t. Both follow from the displacement bound *whatever the thresholds are*
  (rounding outwards only weakens them), so the thresholds decide how much the CNF says,
  never whether what it says is true;
- the end cell (x_t, y_t) in one of the rectangles of cells where a move may end
  (`KinematicsModel.end_rects`, from the independent geometry);
- the start and finish crossings as in the kinematics CNF (`kinematics_cnf.crossing`:
  the fixed coordinate passes the line the legal way, the bounding box meets its span),
  an arrival only once the start was crossed, and the goal "arrived by move T";

every clause guarded by "arrived before move t", as in the kinematics CNF. Resolution
``grid``: every value is a threshold (2 x extent displacement clauses per move and axis;
1.47 million clauses on a 5000 x 5 corridor at T = 99, about 6 s for the pure-Python
checker). Resolution ``intervals`` (the default): the thresholds the rectangles and lines
read, plus the two ends of the interval that the caps alone let x_t reach from x_0
(x_0 -+ (c_1 + ... + c_t), clipped to the grid): a few per move, whatever the grid's
size. The refutation (unit propagation: on a corridor the bound x_t < x_0 + 1 + c_1 +
... + c_t carried from move to move, then every arrival literal refuted) is the solver's
and is checked by `racecert.independent.drup.check_drup`; the encoder never states that
the finish is out of reach. What the encoder does choose is where to look: with the
interval ends among the thresholds, unit propagation carries the bound without rounding;
a worse choice (or a wrong sum) only rounds clauses outwards, so the CNF may then fail
to refute, never refute wrongly.

The bundled straight (m* = 3): 1 + 2 = 3 cells in two moves do not reach the finish.

>>> from racecert.model.bundled import track_path
>>> from racecert.model.parse import load_track
>>> from racecert.independent.kinematics import KinematicsModel
>>> t = load_track(track_path("tiny_straight"))
>>> [solve_displacement(KinematicsModel.of(t, h)).status for h in (2, 3)]
['infeasible', 'feasible']
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.kinematics import KinematicsModel
from racecert.independent.kinematics_cnf import (
    CheckedSolve,
    Cnf,
    Lit,
    inside_rects,
    lines_and_arrival,
    neg,
    solve_checked,
    velocity_cap,
)

MAX_CLAUSES = 3_000_000
"""Size budget: the clauses `encode` would write (`estimated_clauses`, before any is
built). At resolution ``intervals`` a 5000 x 5 corridor with m* = 100 needs about
5,000; at ``grid`` about 1.5 million."""
DISPLACEMENT_CONFLICTS = 5_000
"""Conflicts one solve may use (a deterministic work budget). Where the relaxation is
tight it is refuted by unit propagation (0 conflicts); where it is weak a model is
found in a few conflicts. As the kinematics CNF's, it also bounds the proof that the
DRUP checker must replay (a proof grows with the conflicts)."""


Resolution = Literal["intervals", "grid"]


@dataclass(frozen=True)
class _Axis:
    """One coordinate x_t over [lo, hi] (the grid), order-encoded at the thresholds `cuts`
    (sorted, lo < a <= hi): [x >= cuts[i]] is variable base + i. Values between two
    thresholds share their literals (a coarser domain, never a smaller one)."""

    lo: int
    hi: int
    cuts: tuple[int, ...]
    base: int

    def ge(self, a: int) -> Lit:
        """[x >= a] for a threshold a (or a constant outside the domain); a KeyError for
        any other value: a constraint reads only the thresholds it was given."""
        if a <= self.lo:
            return True
        if a > self.hi:
            return False
        i = bisect_left(self.cuts, a)
        if i == len(self.cuts) or self.cuts[i] != a:
            raise KeyError(f"{a} is not a threshold of this coordinate")
        return self.base + i

    def le(self, a: int) -> Lit:
        return neg(self.ge(a + 1))

    def at_least_up(self, a: int) -> Lit:
        """[x >= a'] for the least threshold a' >= a (False past the last one): it implies
        [x >= a], so "x < a" implies "not [x >= a']"."""
        if a <= self.lo:
            return True
        i = bisect_left(self.cuts, a)
        return False if i == len(self.cuts) else self.base + i

    def at_least_down(self, a: int) -> Lit:
        """[x >= a'] for the greatest threshold a' <= a: implied by [x >= a]."""
        if a > self.hi:
            a = self.hi + 1
        i = bisect_right(self.cuts, a) - 1
        return True if i < 0 else self.base + i


def _axis(cnf: Cnf, lo: int, hi: int, cuts: set[int]) -> _Axis:
    """A fresh coordinate over [lo, hi] with the thresholds `cuts` (those in (lo, hi])
    and the ordering clauses [x >= b] -> [x >= a] of consecutive thresholds a < b."""
    kept = tuple(sorted(a for a in cuts if lo < a <= hi))
    z = _Axis(lo, hi, kept, cnf.nvars + 1)
    cnf.nvars += len(kept)
    for i in range(1, len(kept)):
        cnf.add(-(z.base + i), z.base + i - 1)
    return z


def constraint_thresholds(m: KinematicsModel, axis: str) -> set[int]:
    """The thresholds that the end-cell rectangles and the two lines read on `axis`
    ([x >= a] and [x <= a - 1] for each a): every coordinate has them at every move."""
    i = 0 if axis == "x" else 1
    out = set()
    for rect in m.end_rects:
        out |= {rect[2 * i], rect[2 * i + 1] + 1}
    for line in (m.start, m.finish):
        if line.axis == axis:
            out.add(line.k + 1)
        else:
            out |= {line.lo, line.hi + 1}
    return out


@dataclass(frozen=True)
class DisplacementCnf:
    """The CNF of one horizon: clauses, variable count, per step the order-encoded
    coordinates (to read a model back) and the arrival variable of each move."""

    clauses: list[list[int]]
    nvars: int
    xs: tuple[_Axis, ...]
    ys: tuple[_Axis, ...]
    arrive: tuple[int, ...]
    resolution: Resolution


def estimated_clauses(m: KinematicsModel, resolution: Resolution = "intervals") -> int:
    """An upper bound on the clauses `encode` writes: per move and axis, one ordering and
    two displacement clauses per threshold, and a few more per rectangle and line."""
    per_move = 4 * len(m.end_rects) + 20
    if resolution == "grid":
        return m.horizon * (3 * (m.width + m.height) + per_move)
    cuts = sum(len(constraint_thresholds(m, a)) + 2 for a in ("x", "y"))
    return m.horizon * (3 * cuts + per_move)


def _displacement(cnf: Cnf, g: Lit, old: _Axis, new: _Axis, cap: int) -> None:
    """While `g` is false: |new - old| <= cap, read at the thresholds: for each threshold
    a of `old`, x_{t-1} < a -> x_t < a' (a' >= a + cap, the least threshold of `new`
    there) and x_{t-1} >= a -> x_t >= a'' (a'' <= a - cap, the greatest); the ends of
    `old`'s domain count as thresholds (constants). Both follow
    from the bound whatever the thresholds are: they only decide how much is said."""
    for a in (old.lo, *old.cuts, old.hi + 1):  # the domain's ends too: x_0 is a constant
        lit = old.ge(a)
        cnf.add(g, lit, neg(new.at_least_up(a + cap)))
        cnf.add(g, neg(lit), new.at_least_down(a - cap))


def encode(m: KinematicsModel, resolution: Resolution = "intervals") -> DisplacementCnf:
    """The CNF of `m`'s grid, end cells, lines, opening rule and horizon (module
    docstring; `m`'s midpoints and cuts are not used) at `resolution`;
    `SizeBudgetExceeded` past `MAX_CLAUSES`, before anything is built."""
    size = estimated_clauses(m, resolution)
    if size > MAX_CLAUSES:
        raise SizeBudgetExceeded("the displacement CNF", size, MAX_CLAUSES, "clauses",
                                 note="thresholds x moves, three per threshold")
    cnf = Cnf()
    fixed = {"x": constraint_thresholds(m, "x"), "y": constraint_thresholds(m, "y")}
    extent = {"x": m.width, "y": m.height}
    ends = {"x": (m.initial[0], m.initial[0]), "y": (m.initial[1], m.initial[1])}
    x = _axis(cnf, m.initial[0], m.initial[0], set())
    y = _axis(cnf, m.initial[1], m.initial[1], set())
    done: Lit = False
    started: Lit = False
    xs, ys, arrivals = [x], [y], []
    for t in range(1, m.horizon + 1):
        g = done  # every clause of move t holds unless the car arrived before it
        new = {}
        for axis, old in (("x", x), ("y", y)):
            cap = velocity_cap(m, t, extent[axis], axis)
            lo, hi = ends[axis]
            ends[axis] = lo, hi = max(lo - cap, 0), min(hi + cap, extent[axis] - 1)
            cuts = (set(range(1, extent[axis])) if resolution == "grid"
                    else fixed[axis] | {lo, hi + 1})
            new[axis] = _axis(cnf, 0, extent[axis] - 1, cuts)
            _displacement(cnf, g, old, new[axis], cap)
        nx, ny = new["x"], new["y"]
        inside_rects(cnf, g, nx, ny, m.end_rects)
        started, done, arrive = lines_and_arrival(cnf, m, g, (x, y), (nx, ny), started, done)
        x, y = nx, ny
        xs.append(x), ys.append(y), arrivals.append(arrive)
    cnf.add(done)
    return DisplacementCnf(cnf.clauses, cnf.nvars, tuple(xs), tuple(ys), tuple(arrivals),
                           resolution)


@dataclass(frozen=True)
class DisplacementSolve(CheckedSolve):
    """One proof-logging solve (`CheckedSolve`: ``infeasible`` only when the DRUP proof
    checked, ``unknown`` when the conflict budget ran out or the proof was rejected), with
    the relaxation's arrival for ``feasible`` (`positions` up to it, not necessarily a
    valid trajectory) and the CNF's size."""

    positions: tuple[tuple[int, int], ...] = ()
    nvars: int = 0
    clauses: int = 0


def solve_displacement(m: KinematicsModel, conflict_budget: int = DISPLACEMENT_CONFLICTS,
                       *, solver: str = "glucose4", proof_path: Path | None = None,
                       resolution: Resolution = "intervals") -> DisplacementSolve:
    """Solve the CNF of `m` within `conflict_budget` conflicts and check an UNSAT answer's
    DRUP proof (`DisplacementSolve`; the solve and the check are
    `kinematics_cnf.solve_checked`'s). When UNSAT and `proof_path` is given, the proof is
    written there and the formula beside it (suffix ``.cnf``)."""
    cnf = encode(m, resolution)
    r = solve_checked(cnf.clauses, conflict_budget, solver, proof_path)
    positions = _positions(cnf, r.true) if r.status == "feasible" else ()
    return DisplacementSolve(**vars(r), positions=positions, nvars=cnf.nvars,
                             clauses=len(cnf.clauses))


def _positions(cnf: DisplacementCnf, true: frozenset[int]) -> tuple[tuple[int, int], ...]:
    """The model's positions p0..pt up to its first arrival t."""
    def value(z: _Axis) -> int:  # the greatest threshold that holds: a lower end
        return max([a for i, a in enumerate(z.cuts) if z.base + i in true], default=z.lo)

    first = next(t for t, a in enumerate(cnf.arrive, start=1) if a in true)
    return tuple((value(cnf.xs[t]), value(cnf.ys[t])) for t in range(first + 1))


__all__ = ["DISPLACEMENT_CONFLICTS", "MAX_CLAUSES", "DisplacementCnf", "DisplacementSolve",
           "constraint_thresholds", "encode", "estimated_clauses",
           "solve_displacement"]
