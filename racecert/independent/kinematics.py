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

Necessary conditions on the points of each move keep the relaxed car from jumping walls.
Every cell a valid move touches is on the track on some layer (`Geometry._walk`), so:

- the *midpoint*: the doubled midpoint (x_{t-1} + x_t, y_{t-1} + y_t) is one a valid
  move may have (`midpoints`): a wall one or two cells thick is not jumped by a short move;
- the *row and column walls* (`crossing_walls`, always in the model): for a maximal run
  of off-track cells a..b in row c, a move with y_{t-1} < c < y_t (or the other way) has
  x_{t-1} or x_t outside a..b, since it meets the centre line of row c at an x between
  the two (and the same for columns). A thin wall is never jumped *across its length*,
  whatever the speed (llanura's six hedges: with them CP-SAT refutes T = m* - 1 at once);
- the *sample families* (`Sample`, added by the refinement): for n odd and 0 < j < n,
  gcd(j, n) = 1, the point p + (j/n) v of the move from p by v lies strictly inside one
  cell, never on an edge or a corner (scaled by n, n x + j vx is an integer and an edge
  n (c + 1/2) is not, n being odd), the cell that rounding (n x + j vx) / n names
  (`sample_point`); the move passes through that cell's interior, so the cell is on the
  track: (n x_{t-1} + j vx_t, n y_{t-1} + j vy_t) lies in none of the off-track
  rectangles scaled by n (`sample_walls`). With the families up to n = the largest speed
  a wall's cell is passed over only where the move grazes it (its samples all land
  elsewhere: (0, 0) to (2, 3) touches (0, 1) and (2, 2), no sample with n <= 3 lands in
  either); each costs a condition per step, so they come lazily.

Two more families of the refinement state rules the relaxation leaves out: a *line wall*
(a start or finish line that no valid move crosses against its direction with both ends
beside its span: it meets the line inside the span, and where the cells beyond are on the
line's layer alone, `one_way`, the geometry counts that crossing, the wrong way) and *no
standstill* (no move has zero velocity).

Every valid trajectory arriving within T moves is a solution (the walls a move passes
over between its points, the layers, the exact crossing point and the order of the lines
are left out), so "infeasible at T = m* - 1" proves that nothing arrives sooner: a lower
bound. A solution is replayed by the independent geometry (`Geometry.replay`); where one
of its moves is invalid whatever the layer and the context (it touches a wall or the
grid's edge, ends where no move may end, crosses a line the wrong way, or has zero
velocity), the refinement strengthens the model and solves it again (`Families`): no
standstill for a move with zero velocity; else the sample family whose point of that
move lies off the track (`explaining_sample`: least n, then least j); else the wall of a
line it crosses the wrong way; each added at every step, so that one family removes
every move of that kind everywhere. A move no family explains (one that grazes a wall's
corner, or touches a cell off its own layer only) is forbidden at every step (a *cut*,
`Cut`). A
counterexample-guided refinement that stays a relaxation, so each answer keeps its
meaning; it is bounded by `max_cuts` cuts and `max_samples` sample families, and
deterministic (the same families and cuts in the same order on every run); a solution
whose invalid moves add nothing new ends the refinement as `stuck` (only an encoding
error could give one). The bundled tracks need no cut; ocho's relaxed car leaves its
bridge's layer where no cut is sound.

`KinematicsModel.box_speeds` is the largest speed a car can reach between two cells of
the model's `box` (s moves of acceleration from rest cover s (s + 1) / 2 cells): implied
by the model, it bounds the CNF's velocity domains. `light` gives a weaker model for a
smaller CNF: one axis's velocity free (its displacement bounded by the box speed and t,
in both backends), no midpoint condition.

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
from functools import lru_cache
from math import gcd
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
Sample = tuple[int, int]
"""A sample family (j, n): the point p + (j/n) v of every move, n odd, 0 < j < n,
gcd(j, n) = 1 (`explaining_sample`, `sample_walls`)."""
Wall = tuple[int, int, int]
"""A crossing wall (c, a, b): the off-track cells a..b of row c (a row wall) or of column c
(a column wall), a maximal run (`crossing_walls`)."""
MAX_CUTS = 16
"""Cuts one refinement may add before it gives up (a deterministic work bound). With the
walls and the families the bundled tracks need none; before them the
relaxed car jumped walls in ever new places (llanura still had new jumps after 600 cuts)."""
MAX_SAMPLES = 12
"""Sample families one refinement may add before it gives up (a deterministic work
bound). The bundled tracks need at most one (candelabro (1, 5) below m*, llanura (2, 3) at
m*): the row and column walls stop the jumps across thin walls' length already."""
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
    car's initial position, the two lines, the opening rule, the horizon T; the cells off
    the track on every layer inside `box` (the bounding box of the cells a move may start
    or end on) as rectangles (`off_rects`), the row and column walls a move may not cross
    (`crossing_walls`); the cuts and the sample families (`samples`) of the refinement."""

    width: int
    height: int
    end_rects: tuple[Rect, ...]
    mid_rects: tuple[Rect, ...]
    initial: Position
    start: Line
    finish: Line
    opening: OpeningRule
    horizon: int
    box: Rect | None = None
    off_rects: tuple[Rect, ...] = ()
    row_walls: tuple[Wall, ...] = ()
    col_walls: tuple[Wall, ...] = ()
    cuts: tuple[Cut, ...] = ()
    samples: tuple[Sample, ...] = ()
    free_axes: str = ""
    line_walls: tuple[Line, ...] = ()
    moving: bool = False

    @classmethod
    def of(cls, track: Track, horizon: int, geometry: Geometry | None = None
           ) -> KinematicsModel:
        """The model of `track` at horizon T = `horizon` (no cuts, no sample families
        yet)."""
        g = geometry or Geometry(track)
        layers = range(layer_count(track))
        cells = tuple((x, y) for y in range(track.height) for x in range(track.width)
                      if any(g.endable(lay, x, y) for lay in layers))
        on = {(x, y) for y in range(track.height) for x in range(track.width)
              if any(g.surface(lay, x, y) for lay in layers)}
        ends = (*cells, track.car.position)
        box = (min(x for x, _ in ends), max(x for x, _ in ends),
               min(y for _, y in ends), max(y for _, y in ends))
        off = tuple((x, y) for y in range(box[2], box[3] + 1)
                    for x in range(box[0], box[1] + 1) if (x, y) not in on)
        rows, cols = crossing_walls(off, ends)
        return cls(track.width, track.height, tuple(rectangles(cells)),
                   tuple(rectangles(midpoints(on, track.width, track.height))),
                   track.car.position, track.start, track.finish, OpeningRule.of(track),
                   horizon, box, tuple(rectangles(off)) if off else (), rows, cols)

    @property
    def bounds(self) -> Rect:
        """`box`, or the whole grid where the model has none."""
        return self.box or (0, self.width - 1, 0, self.height - 1)

    @property
    def box_speeds(self) -> tuple[int, int]:
        """The largest |vx| and |vy| of a move up to the arrival: the largest s with
        s (s + 1) / 2 <= the extent of `bounds` less one on that axis. A velocity
        component s is reached from rest one unit a move, so the s moves up to it have
        components at least 1, 2, ..., s in its direction: they cover s (s + 1) / 2 cells
        between two positions of the car inside `bounds`.

        >>> KinematicsModel(40, 78, (), (), (1, 6), None, None, None, 1,
        ...                 box=(1, 38, 1, 76)).box_speeds
        (8, 11)
        """
        x0, x1, y0, y1 = self.bounds
        return _triangular_root(x1 - x0), _triangular_root(y1 - y0)

    @property
    def size(self) -> int:
        """Step-rectangles: the horizon times the rectangles of both conditions (each
        step has one literal per rectangle), what `MAX_STEP_RECTANGLES` bounds."""
        return self.horizon * (len(self.end_rects) + len(self.mid_rects))


def _triangular_root(d: int) -> int:
    """The largest s >= 0 with s (s + 1) / 2 <= d."""
    s = 0
    while (s + 1) * (s + 2) // 2 <= d:
        s += 1
    return s


def sample_walls(m: KinematicsModel, n: int) -> tuple[Rect, ...]:
    """The rectangles, in coordinates scaled by n, where a sample point
    (n x_{t-1} + j vx_t, n y_{t-1} + j vy_t) of a valid move never lies: each off-track
    rectangle (x0, x1, y0, y1) of `m.off_rects` widened to the points that round to its
    cells, [n x0 - h, n x1 + h] (h = (n - 1) / 2) and the same for y, clipped to `m.box`
    scaled by n (a sample point lies between the move's two ends, so inside it).

    >>> m = KinematicsModel(9, 9, (), (), (1, 1), None, None, None, 3,
    ...                     box=(1, 7, 1, 7), off_rects=((1, 7, 4, 4),))
    >>> sample_walls(m, 3)
    ((3, 21, 11, 13),)
    """
    h = (n - 1) // 2
    bx0, bx1, by0, by1 = m.bounds
    out = []
    for x0, x1, y0, y1 in m.off_rects:
        rect = (max(n * x0 - h, n * bx0), min(n * x1 + h, n * bx1),
                max(n * y0 - h, n * by0), min(n * y1 + h, n * by1))
        if rect[0] <= rect[1] and rect[2] <= rect[3]:
            out.append(rect)
    return tuple(out)


def mid_walls(m: KinematicsModel) -> tuple[Rect, ...]:
    """The doubled midpoints (x + x', y + y') that no valid move has, as rectangles: the
    points of `m.bounds` doubled that lie in none of `m.mid_rects` (the midpoint of two
    positions inside `bounds` lies inside it doubled). The complement of the midpoint
    condition, for an encoding that forbids a few rectangles rather than asks for one of
    many.

    >>> m = KinematicsModel(9, 9, (), ((2, 14, 2, 6), (2, 14, 10, 14)), (1, 1), None, None,
    ...                     None, 3, box=(1, 7, 1, 7))
    >>> mid_walls(m)
    ((2, 14, 7, 9),)
    """
    return _mid_walls(m.mid_rects, m.bounds)


@lru_cache(maxsize=64)
def _mid_walls(mid_rects: tuple[Rect, ...], bounds: Rect) -> tuple[Rect, ...]:
    bx0, bx1, by0, by1 = bounds
    runs_of: dict[int, list[tuple[int, int]]] = {}
    for sy in range(2 * by0, 2 * by1 + 1):
        covered = sorted((x0, x1) for x0, x1, y0, y1 in mid_rects if y0 <= sy <= y1)
        runs, at = [], 2 * bx0  # the first point not yet covered or banned
        for x0, x1 in covered:
            if x0 > at:
                runs.append((at, min(x0 - 1, 2 * bx1)))
            at = max(at, x1 + 1)
        if at <= 2 * bx1:
            runs.append((at, 2 * bx1))
        runs_of[sy] = [r for r in runs if r[0] <= r[1]]
    return tuple(_stack(runs_of))


def sample_point(x: int, y: int, vx: int, vy: int, j: int, n: int) -> Position:
    """The cell that holds the point (x, y) + (j/n)(vx, vy), n odd: (n x + j vx) / n
    rounded, never half way between two cells (n x + j vx times 2 is never an odd
    multiple of n when n is odd), and the same for y.

    >>> sample_point(0, 0, 1, 7, 1, 3)  # (1/3, 7/3) lies in cell (0, 2)
    (0, 2)
    """
    return (n * x + j * vx + n // 2) // n, (n * y + j * vy + n // 2) // n


def one_way(line: Line, g: Geometry, layers: int) -> bool:
    """Whether every move that crosses `line` the wrong way with both ends beside its span
    is invalid, so that the model may forbid it (`KinematicsModel.line_walls`).

    Such a move meets the line at a point of its span and passes there into a cell of
    the row (column) on the far side whose other coordinate is in the span; where each
    such cell is off the track on every layer but the line's, the move is on the line's
    layer there: the geometry counts the crossing, the wrong way. (On one layer, always.)
    """
    far = line.k if line.sign > 0 else line.k + 1  # the side a wrong-way move goes to
    for u in range(line.lo, line.hi + 1):
        x, y = (far, u) if line.axis == "x" else (u, far)
        if any(g.surface(lay, x, y) for lay in range(layers) if lay != line.layer):
            return False
    return True


def crossing_walls(off: tuple[Position, ...], ends: tuple[Position, ...]
                   ) -> tuple[tuple[Wall, ...], tuple[Wall, ...]]:
    """The row walls and the column walls of the off-track cells `off`: each maximal run
    (c, a, b) of off cells a..b in row c (in column c), kept where a move could cross it,
    that is where some cell of `ends` (the cells a move may start or end on) lies before
    the row (column) with its x (y) in a..b and another after it.

    A valid move from (x, y) to (x', y') with y < c < y' (or y' < c < y) meets the line
    through the centres of row c at a point (x*, c) with x* between x and x'. With both
    in a..b, x* is inside a cell of a..b (an open interval (u - 1/2, u + 1/2)), or on the
    edge between two of them, x* = u + 1/2: then x != x' (x* is no integer) and the move
    passes from one of the two cells' interiors into the other's. Either way it touches
    an off-track cell, so a valid move has x or x' outside a..b.

    >>> crossing_walls(((1, 2), (2, 2), (5, 0)), ((1, 1), (2, 3), (5, 1)))
    (((2, 1, 2),), ())
    """
    def runs(cells: list[Position]) -> list[Wall]:
        lines: dict[int, list[int]] = {}
        for c, u in cells:
            lines.setdefault(c, []).append(u)
        out = []
        for c in sorted(lines):
            us = sorted(lines[c])
            a = us[0]
            for u, nxt in zip(us, [*us[1:], None], strict=True):
                if nxt != u + 1:
                    out.append((c, a, u))
                    a = nxt
        return out

    def useful(walls: list[Wall], ends_by: dict[int, tuple[int, int]]) -> tuple[Wall, ...]:
        keep = []
        for c, a, b in walls:
            spans = [ends_by[u] for u in range(a, b + 1) if u in ends_by]
            if any(lo < c for lo, _ in spans) and any(hi > c for _, hi in spans):
                keep.append((c, a, b))
        return tuple(keep)

    def extremes(pairs: list[Position]) -> dict[int, tuple[int, int]]:
        out: dict[int, tuple[int, int]] = {}
        for u, c in pairs:
            lo, hi = out.get(u, (c, c))
            out[u] = (min(lo, c), max(hi, c))
        return out

    rows = useful(runs([(y, x) for x, y in off]), extremes(list(ends)))
    cols = useful(runs(list(off)), extremes([(y, x) for x, y in ends]))
    return rows, cols


def light(m: KinematicsModel) -> KinematicsModel:
    """A weaker model of `m`, much smaller as a CNF: the velocity of one axis is left
    free (`free_axes`: its displacement is only bounded, |v_t| <= min(t, the box speed),
    without |v_t - v_{t-1}| <= 1) and the midpoint condition is dropped (its one rectangle
    is `bounds` doubled, where every midpoint lies). The free axis is the one whose
    order-encoded sums x_t = x_{t-1} + v_t cost more (its extent times its box speed;
    y on a tie). Every solution of `m` is one of its solutions: a relaxation of a
    relaxation.

    >>> m = KinematicsModel(40, 78, (), (), (1, 6), None, None, None, 1, box=(1, 38, 1, 76))
    >>> lm = light(m)
    >>> lm.free_axes, lm.mid_rects
    ('y', ((2, 76, 2, 152),))
    """
    x0, x1, y0, y1 = m.bounds
    sx, sy = m.box_speeds
    free = "y" if m.height * sy >= m.width * sx else "x"
    return replace(m, free_axes=free, mid_rects=((2 * x0, 2 * x1, 2 * y0, 2 * y1),))


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
    out = []
    for sy in range(2 * height - 1):
        hy = sy // 2
        for sx in range(2 * width - 1):
            hx = sx // 2
            if sx % 2 == 0 and sy % 2 == 0:  # a cell centre
                ok = (hx, hy) in on
            elif sx % 2 == 0:  # a horizontal edge: the cells below and above it
                ok = (hx, hy) in on and (hx, hy + 1) in on
            elif sy % 2 == 0:  # a vertical edge: the cells left and right of it
                ok = (hx, hy) in on and (hx + 1, hy) in on
            else:  # a corner: the cells of either diagonal
                ok = (((hx, hy) in on and (hx + 1, hy + 1) in on)
                      or ((hx + 1, hy) in on and (hx, hy + 1) in on))
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
    runs_of: dict[int, list[tuple[int, int]]] = {}
    for y, row in rows.items():
        xs = sorted(set(row))
        runs, start = [], xs[0]
        for a, b in zip(xs, xs[1:] + [None], strict=True):
            if b != a + 1:
                runs.append((start, a))
                start = b
        runs_of[y] = runs
    return _stack(runs_of)


def _stack(runs_of: dict[int, list[tuple[int, int]]]) -> list[Rect]:
    """Rows of runs (row -> runs (x0, x1)) as rectangles: a run continued by the same run
    in the next row is one rectangle (`rectangles`)."""
    done: list[Rect] = []
    open_: dict[tuple[int, int], int] = {}  # run (x0, x1) -> first row, continuing
    last_y = -2
    for y in sorted(runs_of):
        runs = runs_of[y]
        if not runs:
            continue
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


class _Bounds:
    """Literals b -> (expr <= k) or b -> (expr >= k) of one step, made once each."""

    def __init__(self, model: cp_model.CpModel, when: cp_model.IntVar) -> None:
        self.model, self.when, self.made = model, when, {}

    def below(self, key: object, expr: cp_model.LinearExprT, k: int) -> cp_model.IntVar:
        """A literal that implies expr <= k."""
        return self._lit((key, "<=", k), expr <= k)

    def above(self, key: object, expr: cp_model.LinearExprT, k: int) -> cp_model.IntVar:
        """A literal that implies expr >= k."""
        return self._lit((key, ">=", k), expr >= k)

    def _lit(self, key: tuple, bound: object) -> cp_model.IntVar:
        lit = self.made.get(key)
        if lit is None:
            lit = self.model.NewBoolVar("")
            self.model.Add(bound).OnlyEnforceIf(lit)
            self.made[key] = lit
        return lit

    def outside(self, key: object, x: cp_model.LinearExprT, y: cp_model.LinearExprT,
                rect: Rect) -> None:
        """While `when`: (x, y) is not in `rect` (x0, x1, y0, y1)."""
        x0, x1, y0, y1 = rect
        self.model.AddBoolOr([self.below((key, "x"), x, x0 - 1),
                              self.above((key, "x"), x, x1 + 1),
                              self.below((key, "y"), y, y0 - 1),
                              self.above((key, "y"), y, y1 + 1)]).OnlyEnforceIf(self.when)


def _walls(b: _Bounds, before: tuple, after: tuple, m: KinematicsModel) -> None:
    """While `b.when`: the move from `before` to `after` crosses no row or column wall
    (`crossing_walls`) with both its ends beside the wall."""
    for axis, walls in ((1, m.row_walls), (0, m.col_walls)):
        u0, u1 = before[axis], after[axis]  # the coordinate across the wall
        w0, w1 = before[1 - axis], after[1 - axis]  # the coordinate along it
        for c, a, hi in walls:
            beside = [b.below(("w0", axis), w0, a - 1), b.above(("w0", axis), w0, hi + 1),
                      b.below(("w1", axis), w1, a - 1), b.above(("w1", axis), w1, hi + 1)]
            # forwards: not (u0 <= c - 1 and u1 >= c + 1); backwards: the other way round
            forwards = [b.above(("u0", axis), u0, c), b.below(("u1", axis), u1, c)]
            backwards = [b.above(("u1", axis), u1, c), b.below(("u0", axis), u0, c)]
            for side in (forwards, backwards):
                b.model.AddBoolOr(side + beside).OnlyEnforceIf(b.when)


def _one_way(b: _Bounds, before: tuple, after: tuple, m: KinematicsModel) -> None:
    """While `b.when`: the move crosses no line of `m.line_walls` the wrong way with both
    its ends beside the line's span."""
    for i, line in enumerate(m.line_walls):
        fixed = 0 if line.axis == "x" else 1
        f0, f1 = before[fixed], after[fixed]
        s0, s1 = before[1 - fixed], after[1 - fixed]
        key = ("line", i)
        if line.sign > 0:  # wrong way: from k + 1 or more to k or less
            across = [b.below((key, 0), f0, line.k), b.above((key, 1), f1, line.k + 1)]
        else:
            across = [b.above((key, 0), f0, line.k + 1), b.below((key, 1), f1, line.k)]
        beside = [b.below((key, 2), s0, line.lo - 1), b.above((key, 3), s0, line.hi + 1),
                  b.below((key, 4), s1, line.lo - 1), b.above((key, 5), s1, line.hi + 1)]
        b.model.AddBoolOr(across + beside).OnlyEnforceIf(b.when)


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
    walls_of = {n: sample_walls(m, n) for _, n in m.samples}
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
        for i, (v, prev, extent) in enumerate(((vx, vxs[-1], m.width), (vy, vys[-1], m.height))):
            if "xy"[i] in m.free_axes:  # the displacement alone, bounded as the CNF's
                cap = min(t, extent - 1, m.box_speeds[i])
                model.AddLinearConstraint(v, -cap, cap).OnlyEnforceIf(a)
                continue
            model.Add(v - prev <= 1).OnlyEnforceIf(a)
            model.Add(v - prev >= -1).OnlyEnforceIf(a)
        _inside(model, x, y, m.end_rects, a)  # the end cell lies in one of the rectangles
        sx = model.NewIntVar(0, 2 * m.width - 2, f"sx{t}")
        sy = model.NewIntVar(0, 2 * m.height - 2, f"sy{t}")
        model.Add(sx == xs[-1] + x).OnlyEnforceIf(a)
        model.Add(sy == ys[-1] + y).OnlyEnforceIf(a)
        _inside(model, sx, sy, m.mid_rects, a)
        bounds = _Bounds(model, a)
        _walls(bounds, (xs[-1], ys[-1]), (x, y), m)
        _one_way(bounds, (xs[-1], ys[-1]), (x, y), m)
        if m.moving and not m.free_axes:  # zero velocity is no move
            model.AddBoolOr([bounds.below(("vx",), vx, -1), bounds.above(("vx",), vx, 1),
                             bounds.below(("vy",), vy, -1), bounds.above(("vy",), vy, 1)]
                            ).OnlyEnforceIf(a)
        for j, n in m.samples:
            px, py = n * xs[-1] + j * vx, n * ys[-1] + j * vy
            for rect in walls_of[n]:
                bounds.outside((j, n), px, py, rect)
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
class Families:
    """What a refinement adds to the model at every step, beyond single-move cuts: the
    sample families (`Sample`), the line walls (a start or finish line that no valid move
    crosses the wrong way with both ends beside its span, `one_way`) and `moving` (no move
    has zero velocity; a model with a free axis has no velocity there to read and leaves
    it out). Each is a necessary condition of every valid move, added where a solution
    breaks it (`refine`).

    >>> Families(((2, 3),), (), True).describe()
    '1 sample family, no standstill'
    """

    samples: tuple[Sample, ...] = ()
    lines: tuple[Line, ...] = ()
    moving: bool = False

    def on(self, m: KinematicsModel) -> KinematicsModel:
        """`m` with these families (and no others)."""
        return replace(m, samples=self.samples, line_walls=self.lines, moving=self.moving)

    def describe(self) -> str:
        """The families in words, '' for none."""
        parts = []
        if self.samples:
            n = len(self.samples)
            parts.append(f"{n} sample famil{'y' if n == 1 else 'ies'}")
        if self.lines:
            n = len(self.lines)
            parts.append(f"{n} line wall{'' if n == 1 else 's'}")
        if self.moving:
            parts.append("no standstill")
        return ", ".join(parts)


NO_FAMILIES = Families()
"""A model as `KinematicsModel.of` builds it: no family yet."""


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
    families: Families = NO_FAMILIES


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
           max_samples: int = MAX_SAMPLES, families: Families = NO_FAMILIES,
           geometry: Geometry | None = None, model: KinematicsModel | None = None,
           backend: Backend | None = None) -> Refinement:
    """Solve the relaxation at `horizon`, adding families and cutting replayed-invalid
    moves until it is infeasible, a solution replays as valid, or a bound is reached (see
    `Refinement`); `SizeBudgetExceeded` past `MAX_STEP_RECTANGLES`, before any solve.

    `budget` is the work of all the solves together in the backend's unit (CP-SAT's
    deterministic time by default; `backend` may be another solver of the same model,
    e.g. `racecert.independent.kinematics_cnf.sat_backend`). Each invalid move of a
    solution adds, at every step (`Families`): `moving` where it has zero velocity; else
    the first sample family (`explaining_sample`) whose point lies off the track (at most
    `max_samples` in all); else the wall of a line it crosses the wrong way with both ends
    beside its span, where the line is `one_way`; a move none explains is cut (at most
    `max_cuts` cuts in all). `model`: the track's model built once
    (`KinematicsModel.of`) for several horizons; `cuts` and `families`: those of an
    earlier refinement, to start from."""
    backend = backend or cpsat_backend(workers)
    g = geometry or Geometry(track)
    layers = layer_count(track)
    base = NO_FAMILIES.on(replace(model or KinematicsModel.of(track, horizon, g),
                                 horizon=horizon, cuts=()))
    if base.size > MAX_STEP_RECTANGLES:
        raise SizeBudgetExceeded("the kinematics model", base.size, MAX_STEP_RECTANGLES,
                                 "step-rectangles", note="horizon x rectangles of the end "
                                 "cells and the midpoints")
    off = off_cells(base)
    lines = [line for line in (track.start, track.finish) if one_way(line, g, layers)]
    spent, solves, found, fam = 0.0, 0, list(cuts), families

    def end(status: Status, positions: tuple[Position, ...], reason: str) -> Refinement:
        return Refinement(status, horizon, positions, tuple(found), solves, spent, reason,
                          backend.unit, fam)

    def spent_all(note: str = "") -> Refinement:
        return end("unknown", (), f"{backend.name} used its budget of {budget:g} "
                                  f"{backend.unit} over {solves} solves{note}")

    while True:
        left = budget - spent
        if left <= 0:
            return spent_all()
        r = backend.solve(fam.on(replace(base, cuts=tuple(found))), left)
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
        samples, walls, moving, new_cuts = list(fam.samples), list(fam.lines), fam.moving, []
        for _, cut in bad:
            family = explaining_sample(off, cut.x, cut.y, cut.vx, cut.vy)
            wall = next((line for line in lines
                         if wrong_way(line, cut.x, cut.y, cut.vx, cut.vy)), None)
            if (cut.vx, cut.vy) == (0, 0) and not base.free_axes:
                moving = True
            elif family is not None:
                if family not in samples:
                    samples.append(family)
            elif wall is not None:
                if wall not in walls:
                    walls.append(wall)
            elif cut not in found and cut not in new_cuts:
                new_cuts.append(cut)
        if (tuple(samples), tuple(walls), moving) == (fam.samples, fam.lines, fam.moving) \
                and not new_cuts:
            return end("stuck", r.positions, "a relaxed solution whose invalid moves the "
                       "model already forbids: nothing new to add (an encoding error)")
        if len(samples) > max_samples:
            return end("stuck", r.positions, f"{len(fam.samples)} sample families added, "
                       f"the next solution needs {len(samples) - len(fam.samples)} more "
                       f"(at most {max_samples})")
        if len(found) + len(new_cuts) > max_cuts:
            return end("stuck", r.positions, f"{len(found)} cuts made, the next solution "
                       f"needs {len(new_cuts)} more (at most {max_cuts})")
        fam = Families(tuple(samples), tuple(walls), moving)
        found.extend(new_cuts)


def wrong_way(line: Line, x: int, y: int, vx: int, vy: int) -> bool:
    """Whether the move from (x, y) by (vx, vy) crosses `line`'s boundary against its
    direction with both ends beside its span (what a line wall forbids).

    >>> from racecert.model.track import Line
    >>> line = Line("x", 4, 1, 6, "+x", 0)  # the boundary x = 4.5, rows 1..6, crossed +x
    >>> wrong_way(line, 6, 2, -3, 1), wrong_way(line, 6, 2, -3, 5), wrong_way(line, 3, 2, 3, 1)
    (True, False, False)
    """
    f0, s0, vf, vs = (x, y, vx, vy) if line.axis == "x" else (y, x, vy, vx)
    f1, s1 = f0 + vf, s0 + vs
    across = (f0 >= line.k + 1 and f1 <= line.k) if line.sign > 0 else \
        (f0 <= line.k and f1 >= line.k + 1)
    return across and line.lo <= s0 <= line.hi and line.lo <= s1 <= line.hi


def off_cells(m: KinematicsModel) -> frozenset[Position]:
    """The cells of `m.off_rects`: off the track on every layer, inside `m.box`."""
    return frozenset((x, y) for x0, x1, y0, y1 in m.off_rects
                     for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def explaining_sample(off: frozenset[Position], x: int, y: int, vx: int, vy: int
                      ) -> Sample | None:
    """The first sample family (j, n) (least n, then least j; n odd, up to the move's
    largest speed rounded up to odd) whose point of the move from (x, y) by (vx, vy)
    lies in a cell of `off`, or None.

    >>> explaining_sample(frozenset({(0, 3), (1, 3)}), 0, 0, 1, 7)  # jumps row 3
    (2, 5)
    """
    top = max(abs(vx), abs(vy), 3)
    for n in range(3, top + 2, 2):
        for j in range(1, n):
            if gcd(j, n) == 1 and sample_point(x, y, vx, vy, j, n) in off:
                return (j, n)
    return None


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
