"""Search small tracks for `editor` vs `exact` disagreements (docs/opening-limits.md).

The editor keys BFS states by (x, y, vx, vy, layer) and applies the opening
rule by the BFS layer index; a kinematic state first reached in an early
opening phase then shadows a later visit in another phase, whose future is
less constrained. `exact` keeps the phase min(t, K) in the key. This module
looks for tracks where the two keys give different (reachable, m*, optimal
count), under each opening-rule family (max_speed only, straight only, both;
K = 1..3), shrinks every case it finds to a minimal track, and writes it as a
track file.

Two sources of candidates:
- ``exhaustive``: a walled room whose first interior column is the start area
  (car in it, start line right behind it, full height) and whose finish is a
  full-height vertical line; every subset of walls over the other interior
  cells, every car row and every finish column, for rooms up to a size bound.
- ``random``: rooms of random size with random walls, finish vertical or
  horizontal (seeded, reproducible).

Shrinking is greedy and 1-minimal: turn an asphalt cell into a wall, or delete
a whole row or column (renumbering the car and lines), whenever the result is
still a valid track with the same kind of disagreement; repeat to a fixpoint.

>>> fam = OpeningFamily("straight", 2, None, True)
>>> fam.label
'straight K=2'
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs


@dataclass(frozen=True)
class OpeningFamily:
    """One opening rule: K moves, optional max speed, optional straight."""

    kind: str
    moves: int
    max_speed: int | None
    straight: bool

    @property
    def label(self) -> str:
        """Short human label, e.g. ``'both K=2 S=1'``."""
        s = f"{self.kind} K={self.moves}"
        return s + (f" S={self.max_speed}" if self.max_speed is not None else "")

    def toml(self) -> str:
        """The ``[opening]`` table of a track file."""
        lines = ["[opening]", f"moves = {self.moves}"]
        if self.max_speed is not None:
            lines.append(f"max_speed = {self.max_speed}")
        if self.straight:
            lines.append("straight = true")
        return "\n".join(lines) + "\n"


def opening_families(max_speeds: tuple[int, ...] = (1, 2)) -> tuple[OpeningFamily, ...]:
    """Every family searched: max_speed only, straight only, both; K = 1..3.

    >>> len(opening_families((1,)))
    9
    """
    out: list[OpeningFamily] = []
    for k in (1, 2, 3):
        out += [OpeningFamily("max_speed", k, s, False) for s in max_speeds]
        out.append(OpeningFamily("straight", k, None, True))
        out += [OpeningFamily("both", k, s, True) for s in max_speeds]
    return tuple(out)


@dataclass(frozen=True)
class LineSpec:
    """A line as written in a track file: ``axis = k``, span [lo, hi], direction."""

    axis: str
    k: int
    lo: int
    hi: int
    dir: str

    def toml(self, name: str) -> str:
        span = "y" if self.axis == "x" else "x"
        return (f"[{name}]\n{self.axis} = {self.k}\n{span} = [{self.lo}, {self.hi}]\n"
                f'dir = "{self.dir}"\n')


@dataclass(frozen=True)
class Candidate:
    """A one-layer track under construction: ground rows, car (facing +x), lines, rule."""

    ground: tuple[str, ...]
    car: tuple[int, int]
    start: LineSpec
    finish: LineSpec
    family: OpeningFamily
    name: str = "explore"
    description: str = ""

    def toml(self) -> str:
        """The track file text (docs/track-format.md)."""
        grid = "\n".join(self.ground)
        desc = self.description.replace('"', "'")
        return (f'name = "{self.name}"\nkind = "stage"\ndescription = "{desc}"\n\n'
                f"[car]\nposition = [{self.car[0]}, {self.car[1]}]\ndirection = \"+x\"\n\n"
                f"{self.start.toml('start')}\n{self.finish.toml('finish')}\n"
                f"{self.family.toml()}\n[map]\nground = \"\"\"\n{grid}\n\"\"\"\n")

    def track(self) -> Track | None:
        """The parsed, validated track, or None when the candidate is not a valid track."""
        try:
            return parse_track(self.toml().encode(), f"<{self.name}>")
        except TrackError:
            return None

    @property
    def cells(self) -> int:
        """Number of asphalt cells."""
        return sum(row.count(".") for row in self.ground)


@dataclass(frozen=True)
class Outcome:
    """What one key says: reachable, m*, optimal count."""

    reachable: bool
    m_star: int | None
    count: int


@dataclass(frozen=True)
class Discrepancy:
    """A track on which the editor and exact keys disagree."""

    candidate: Candidate
    editor: Outcome
    exact: Outcome

    @property
    def kind(self) -> str:
        """``'m*'`` when the minimum moves differ, ``'count'`` when only the counts do."""
        if (self.editor.reachable, self.editor.m_star) != (self.exact.reachable, self.exact.m_star):
            return "m*"
        return "count"


@dataclass(frozen=True)
class ExploreReport:
    """Counts of what was searched, per family and source, and the cases found."""

    searched: dict[str, int] = field(default_factory=dict)
    found: tuple[Discrepancy, ...] = ()
    minimal: tuple[Discrepancy, ...] = ()


def outcome(track: Track, mode: str) -> Outcome:
    """Run the BFS oracle with one key."""
    r = layered_bfs(track, mode)  # type: ignore[arg-type]
    return Outcome(r.reachable, r.m_star, r.optimal_count)


def check(c: Candidate) -> Discrepancy | None:
    """The disagreement on candidate `c`, or None (also None when `c` is not a valid track)."""
    t = c.track()
    if t is None:
        return None
    ed, ex = outcome(t, "editor"), outcome(t, "exact")
    return None if ed == ex else Discrepancy(c, ed, ex)


# -- candidate generators -----------------------------------------------------------


def room(width: int, height: int, walls: set[tuple[int, int]], car_y: int, finish: LineSpec,
         family: OpeningFamily) -> Candidate:
    """A walled `width` x `height` room, car at (1, car_y), start line x = 1 full height."""
    rows = []
    for y in range(height):
        row = []
        for x in range(width):
            border = x in (0, width - 1) or y in (0, height - 1)
            row.append("#" if border or (x, y) in walls else ".")
        rows.append("".join(row))
    start = LineSpec("x", 1, 1, height - 2, "+x")
    return Candidate(tuple(rows), (1, car_y), start, finish, family)


def exhaustive_rooms(max_free: int, families: tuple[OpeningFamily, ...]
                     ) -> Iterator[tuple[str, Candidate]]:
    """Every room whose interior beyond the start column has at most `max_free` cells.

    Walls range over every subset of the cells in columns 2..W-2; the finish is
    the full-height vertical line x = fx (2 <= fx <= W-3, crossed +x).
    """
    for h_in in range(1, max_free + 1):
        for w_in in range(3, max_free + 2):
            free = (w_in - 1) * h_in
            if free > max_free:
                continue
            width, height = w_in + 2, h_in + 2
            cells = [(x, y) for y in range(1, height - 1) for x in range(2, width - 1)]
            for n in range(len(cells) + 1):
                for walls in itertools.combinations(cells, n):
                    for car_y in range(1, height - 1):
                        for fx in range(2, width - 2):
                            fin = LineSpec("x", fx, 1, height - 2, "+x")
                            for fam in families:
                                yield fam.label, room(width, height, set(walls), car_y, fin, fam)


def random_rooms(count: int, seed: int, sizes: tuple[tuple[int, int], ...],
                 families: tuple[OpeningFamily, ...]) -> Iterator[tuple[str, Candidate]]:
    """`count` random rooms (seeded): random size from `sizes`, wall density, finish, rule."""
    rng = random.Random(seed)
    for _ in range(count):
        width, height = rng.choice(sizes)
        density = rng.choice((0.1, 0.2, 0.3, 0.4))
        walls = {(x, y) for y in range(1, height - 1) for x in range(2, width - 1)
                 if rng.random() < density}
        car_y = rng.randrange(1, height - 1)
        fam = rng.choice(families)
        if rng.random() < 0.5:
            fin = LineSpec("x", rng.randrange(2, width - 2), 1, height - 2, "+x")
        else:
            fy = rng.randrange(1, height - 2)
            x0 = rng.randrange(3, width - 1)
            fin = LineSpec("y", fy, x0, width - 2, rng.choice(("+y", "-y")))
        yield fam.label, room(width, height, walls, car_y, fin, fam)


# -- shrinking --------------------------------------------------------------------


def _delete(c: Candidate, axis: str, i: int) -> Candidate | None:
    """`c` without row `i` (axis "y") or column `i` (axis "x"), its car and lines moved
    to match; None when that removes the car, a line, or leaves fewer than 3 rows/cols."""
    a = 1 if axis == "y" else 0
    if c.car[a] == i or (len(c.ground) if a else len(c.ground[0])) <= 3:
        return None
    rows = (c.ground[:i] + c.ground[i + 1:] if a
            else tuple(row[:i] + row[i + 1:] for row in c.ground))

    def fix_line(ln: LineSpec) -> LineSpec | None:
        if ln.axis == axis:
            if ln.k == i or ln.k + 1 == i:
                return None
            return replace(ln, k=ln.k - (ln.k > i))
        lo, hi = ln.lo - (ln.lo > i), ln.hi - (ln.hi >= i)
        return None if lo > hi else replace(ln, lo=lo, hi=hi)

    s, f = fix_line(c.start), fix_line(c.finish)
    if s is None or f is None:
        return None
    car = list(c.car)
    car[a] -= car[a] > i
    return replace(c, ground=rows, car=(car[0], car[1]), start=s, finish=f)


def _wall(c: Candidate, x: int, y: int) -> Candidate | None:
    if (x, y) == c.car or c.ground[y][x] != ".":
        return None
    row = c.ground[y]
    rows = c.ground[:y] + (row[:x] + "#" + row[x + 1:],) + c.ground[y + 1:]
    return replace(c, ground=rows)


def shrink(d: Discrepancy, still: Callable[[Candidate], Discrepancy | None] = check
           ) -> Discrepancy:
    """A 1-minimal track with the same kind of disagreement (see the module docstring).

    A step is kept only if `still` reports a disagreement of the same kind ('m*'
    or 'count') on the smaller track; the loop stops when no step is kept.
    """
    best = d
    changed = True
    while changed:
        changed = False
        c = best.candidate
        steps: list[Candidate | None] = []
        steps += [_delete(c, "y", r) for r in range(len(c.ground))]
        steps += [_delete(c, "x", x) for x in range(len(c.ground[0]))]
        steps += [_wall(c, x, y) for y in range(len(c.ground)) for x in range(len(c.ground[0]))]
        for s in steps:
            if s is None:
                continue
            r = still(s)
            if r is not None and r.kind == best.kind:
                best = r
                changed = True
                break
    return best


def explore(sources: list[tuple[str, Iterator[tuple[str, Candidate]]]],
            stop_after: int | None = None,
            progress: Callable[[int], None] | None = None) -> ExploreReport:
    """Check every candidate of every source; shrink each disagreement found.

    `searched` counts valid tracks checked per ``"source / family"``; invalid
    candidates are counted under ``"source / invalid"``. Minimal tracks are
    deduplicated by their text (without the name).
    """
    searched: dict[str, int] = {}
    found: list[Discrepancy] = []
    minimal: dict[str, Discrepancy] = {}
    n = 0
    for source, cands in sources:
        for label, cand in cands:
            n += 1
            if progress is not None:
                progress(n)
            t = cand.track()
            key = f"{source} / {label}" if t is not None else f"{source} / invalid"
            searched[key] = searched.get(key, 0) + 1
            if t is None:
                continue
            ed, ex = outcome(t, "editor"), outcome(t, "exact")
            if ed == ex:
                continue
            d = Discrepancy(cand, ed, ex)
            found.append(d)
            small = shrink(d)
            minimal.setdefault(small.candidate.toml(), small)
            if stop_after is not None and len(minimal) >= stop_after:
                return ExploreReport(searched, tuple(found), tuple(minimal.values()))
    return ExploreReport(searched, tuple(found), tuple(minimal.values()))
