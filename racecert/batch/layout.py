"""Random corridor layouts for generated tracks: the outline of a random polyomino, drawn thick.

A *polyomino* here is a set of unit faces of an A x B lattice grown at random one
face at a time, keeping it a topological disk without pinch points (two faces that
touch only at a corner). Its outline is then a simple closed lattice path: a loop
of lattice points in travel order. `draw_loop` draws that loop on a cell grid:
every lattice point is a `width` x `width` block of asphalt, every unit lattice
edge a straight corridor of the same width between two blocks, `spacing` cells
from block to block. Parallel corridors are therefore separated by at least
`spacing - width` (>= 2) wall cells, so the loop has no shortcuts and every
straight corridor cell has a wall (or its own corridor) beside it.

The growth rule keeps the disk property locally: a face may join when the edges
it shares with the polyomino form one contiguous arc (1, 2 adjacent, or 3 of its
4 sides) and none of its 4 corners becomes a pinch. Gluing a square to a disk
along an arc gives a disk, so no global check is needed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

Point = tuple[int, int]
Cell = tuple[int, int]

STEPS: dict[str, Point] = {"+x": (1, 0), "-x": (-1, 0), "+y": (0, 1), "-y": (0, -1)}


def _pinch_at(faces: set[Point], vertex: Point) -> bool:
    """True when the 4 faces round lattice `vertex` meet in a diagonal (checkerboard) pattern."""
    i, j = vertex
    a, b = (i - 1, j - 1) in faces, (i, j - 1) in faces
    c, d = (i - 1, j) in faces, (i, j) in faces
    return a == d and b == c and a != b


def can_join(faces: set[Point], f: Point) -> bool:
    """Whether adding face `f` keeps `faces` a disk without pinch points (module docstring)."""
    i, j = f
    shared = [(i, j - 1) in faces, (i + 1, j) in faces, (i, j + 1) in faces, (i - 1, j) in faces]
    k = sum(shared)
    if k == 0 or k == 4:
        return False
    if k == 2 and (shared[0] == shared[2]):  # two opposite sides: would close a ring
        return False
    grown = faces | {f}
    return not any(_pinch_at(grown, v) for v in ((i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)))


def random_polyomino(rng: random.Random, a: int, b: int, size: int) -> set[Point]:
    """A random disk-like polyomino of about `size` faces inside the a x b lattice of faces."""
    start = (rng.randrange(a), rng.randrange(b))
    faces = {start}
    frontier: list[Point] = []
    listed: set[Point] = set()

    def offer(f: Point) -> None:
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            g = (f[0] + di, f[1] + dj)
            if 0 <= g[0] < a and 0 <= g[1] < b and g not in faces and g not in listed:
                listed.add(g)
                frontier.append(g)

    offer(start)
    attempts = 0
    while len(faces) < size and frontier and attempts < 40 * size:
        attempts += 1
        idx = rng.randrange(len(frontier))
        f = frontier[idx]
        if f in faces:
            frontier[idx] = frontier[-1]
            frontier.pop()
            continue
        if can_join(faces, f):
            faces.add(f)
            frontier[idx] = frontier[-1]
            frontier.pop()
            offer(f)
    return faces


def outline(faces: set[Point]) -> list[Point]:
    """The outline of a pinch-free disk polyomino: its lattice points in cyclic order."""
    neighbours: dict[Point, list[Point]] = {}

    def edge(p: Point, q: Point) -> None:
        neighbours.setdefault(p, []).append(q)
        neighbours.setdefault(q, []).append(p)

    for i, j in sorted(faces):
        if (i, j - 1) not in faces:
            edge((i, j), (i + 1, j))
        if (i, j + 1) not in faces:
            edge((i, j + 1), (i + 1, j + 1))
        if (i - 1, j) not in faces:
            edge((i, j), (i, j + 1))
        if (i + 1, j) not in faces:
            edge((i + 1, j), (i + 1, j + 1))
    first = min(neighbours)
    loop = [first]
    prev, cur = first, min(neighbours[first])
    while cur != first:
        loop.append(cur)
        nxt = [p for p in neighbours[cur] if p != prev]
        if len(neighbours[cur]) != 2 or len(nxt) != 1:
            raise ValueError("outline: the polyomino has a pinch point")
        prev, cur = cur, nxt[0]
    if len(loop) != len(neighbours):
        raise ValueError("outline: the polyomino is not a disk")
    return loop


@dataclass(frozen=True)
class Segment:
    """One unit lattice edge of the loop, as drawn: its straight corridor cells.

    `direction` is the travel direction; `cells[t]` are the cells at distance t from
    the block left behind (t = 0 .. spacing - width - 1), each a tuple across the
    corridor (lane 0 .. width - 1).
    """

    index: int
    direction: str
    cells: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class LoopDrawing:
    """A loop drawn on a grid: blocks per lattice point, segments per edge, in travel order."""

    width: int
    spacing: int
    origin: Cell
    points: tuple[Point, ...]
    segments: tuple[Segment, ...]

    def block(self, index: int) -> tuple[Cell, ...]:
        """The cells of the block of lattice point `index` (row by row)."""
        i, j = self.points[index % len(self.points)]
        x0, y0 = self.origin[0] + i * self.spacing, self.origin[1] + j * self.spacing
        return tuple((x0 + dx, y0 + dy) for dy in range(self.width) for dx in range(self.width))

    def block_corner(self, index: int) -> Cell:
        i, j = self.points[index % len(self.points)]
        return self.origin[0] + i * self.spacing, self.origin[1] + j * self.spacing


def draw_loop(points: list[Point], width: int, spacing: int, origin: Cell) -> LoopDrawing:
    """Segments of the closed loop through `points` (travel order), drawn at `origin`."""
    segments = []
    n = len(points)
    for k in range(n):
        (i0, j0), (i1, j1) = points[k], points[(k + 1) % n]
        direction = {(1, 0): "+x", (-1, 0): "-x", (0, 1): "+y", (0, -1): "-y"}[(i1 - i0, j1 - j0)]
        dx, dy = STEPS[direction]
        x0, y0 = origin[0] + i0 * spacing, origin[1] + j0 * spacing
        # the first straight cell along the travel direction, then step by (dx, dy)
        along0 = (x0 + width if dx > 0 else x0 - 1) if dx else (y0 + width if dy > 0 else y0 - 1)
        columns = []
        for t in range(spacing - width):
            a = along0 + t * (dx + dy)
            if dx:
                columns.append(tuple((a, y0 + lane) for lane in range(width)))
            else:
                columns.append(tuple((x0 + lane, a) for lane in range(width)))
        segments.append(Segment(k, direction, tuple(columns)))
    return LoopDrawing(width, spacing, origin, tuple(points), tuple(segments))
