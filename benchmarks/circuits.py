"""Small random circuits with opening rules (issue #14), as track file text.

A ring round a wall block, drawn in one orientation (the top lane driven +x) and
then turned by one of the 8 symmetries of the square: a W x H grid (4..10 x 4..8),
with or without a wall border, lanes 1 or 2 cells wide, asphalt, or with a few
shoulders, or with shoulders and walls (a wall can break the ring: a stage). Both
lines cross the top lane where they are cuts (one end on the border or the grid's
edge, the other on the inner block) and are crossed +x, in one of two layouts:

- ``long``: F just behind the car, S just ahead: the first lap goes round the ring;
- ``short``: S and then F ahead of the car on the top lane: the first lap is a few
  moves, so an opening rule of up to 6 moves often outlasts it (m* < K).

The opening rule has K = 1..6 moves, a max speed of 1..3 or none, straight or not
(at least one of the two). The car faces along the lane, or (sometimes) another way.

The generator reads its choices from a `Picker`, so the same drafts come from a
seeded `random.Random` (`RandomPicker`, for the sweep of
`benchmarks/sweep_opening_laps.py`) or from Hypothesis (`tests/strategies.py`).

>>> text = circuit_toml(RandomPicker(random.Random(0)))
>>> "[opening]" in text and "[map]" in text
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

T = TypeVar("T")

# lane surfaces, one per draft: clean, with shoulders, or rough (a wall can close the ring);
# 1-wide lanes are never rough (one wall always closes them) and get fewer shoulders
LANE_FILLS = {2: (".", ".", "." * 8 + ":", "." * 8 + ":", "." * 16 + "::#"),
              1: (".", ".", "." * 12 + ":")}
CAR_DIRECTIONS = ("+x",) * 6 + ("-x", "+y", "-y")  # along the lane, sometimes not


class Picker(Protocol):
    """Where the generator's choices come from."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        ...

    def choice(self, options: Sequence[T]) -> T:
        """One of `options`."""
        ...


@dataclass(frozen=True)
class RandomPicker:
    """Choices from a seeded `random.Random`."""

    rng: random.Random

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)


@dataclass(frozen=True)
class Line:
    """A line as the track file writes it: ``axis = k``, span [lo, hi], direction."""

    axis: str
    k: int
    lo: int
    hi: int
    direction: str

    def toml(self, table: str) -> str:
        span = "y" if self.axis == "x" else "x"
        return (f"[{table}]\n{self.axis} = {self.k}\n{span} = [{self.lo}, {self.hi}]\n"
                f'dir = "{self.direction}"\n')


@dataclass(frozen=True)
class Draft:
    """A one-layer circuit: grid rows, car, lines and the opening rule's table."""

    rows: tuple[str, ...]
    car: tuple[int, int]
    direction: str
    start: Line
    finish: Line
    opening: str

    def toml(self) -> str:
        """The track file text (docs/track-format.md)."""
        grid = "\n".join(self.rows)
        return (f'name = "circuit"\n\n[car]\nposition = [{self.car[0]}, {self.car[1]}]\n'
                f'direction = "{self.direction}"\n\n{self.start.toml("start")}\n'
                f'{self.finish.toml("finish")}\n{self.opening}\n'
                f'[map]\nground = """\n{grid}\n"""\n')


def _turn(direction: str, flip_x: bool, flip_y: bool, transpose: bool) -> str:
    sign, axis = direction
    if (flip_x and axis == "x") or (flip_y and axis == "y"):
        sign = "-" if sign == "+" else "+"
    if transpose:
        axis = "y" if axis == "x" else "x"
    return sign + axis


def transform(d: Draft, flip_x: bool, flip_y: bool, transpose: bool) -> Draft:
    """`d` under one symmetry of the square: the flips first, then the transposition."""
    h, w = len(d.rows), len(d.rows[0])

    def cell(x: int, y: int) -> tuple[int, int]:
        x, y = (w - 1 - x if flip_x else x), (h - 1 - y if flip_y else y)
        return (y, x) if transpose else (x, y)

    nw, nh = (h, w) if transpose else (w, h)
    grid = [["#"] * nw for _ in range(nh)]
    for y, row in enumerate(d.rows):
        for x, ch in enumerate(row):
            nx, ny = cell(x, y)
            grid[ny][nx] = ch

    def line(ln: Line) -> Line:
        flip_k, flip_span = (flip_x, flip_y) if ln.axis == "x" else (flip_y, flip_x)
        n_k, n_span = (w, h) if ln.axis == "x" else (h, w)
        k = n_k - 2 - ln.k if flip_k else ln.k
        lo, hi = (n_span - 1 - ln.hi, n_span - 1 - ln.lo) if flip_span else (ln.lo, ln.hi)
        axis = ("y" if ln.axis == "x" else "x") if transpose else ln.axis
        return Line(axis, k, lo, hi, _turn(ln.direction, flip_x, flip_y, transpose))

    return Draft(tuple("".join(r) for r in grid), cell(*d.car),
                 _turn(d.direction, flip_x, flip_y, transpose), line(d.start), line(d.finish),
                 d.opening)


def opening_table(p: Picker) -> str:
    """An ``[opening]`` table: K = 1..6, max speed 1..3 or none, straight or not."""
    moves = p.integer(1, 6)
    speed = p.choice((None, 1, 2, 3))
    straight = p.choice((False, False, True)) or speed is None
    out = f"[opening]\nmoves = {moves}\n"
    if speed is not None:
        out += f"max_speed = {speed}\n"
    return out + f"straight = {'true' if straight else 'false'}\n"


def draft_circuit(p: Picker) -> Draft:
    """One random circuit draft (see the module docstring)."""
    w, h = p.integer(4, 10), p.integer(4, 8)
    border, lane = p.integer(0, 1), p.integer(1, 2)
    if min(w, h) - 2 * (border + lane) < 1:
        border, lane = 0, 1
    inner = border + lane  # first row / column of the inner wall block
    fill = p.choice(LANE_FILLS[lane])
    grid = [["#"] * w for _ in range(h)]
    for y in range(border, h - border):
        for x in range(border, w - border):
            block = inner <= x < w - inner and inner <= y < h - inner
            if not block:
                grid[y][x] = p.choice(fill)
    cut = (inner - 1, w - 1 - inner)  # line positions k whose lower end meets the block
    span = (border, inner - 1)  # the top lane's rows
    a, b = sorted((p.integer(*cut), p.integer(*cut)))
    if a == b:
        a, b = (a - 1, b) if a > cut[0] else (a, b + 1)
    if p.choice(("long", "short")) == "long":  # F at a, S at b, the car between them
        finish, start, car_x = a, b, p.integer(a + 1, b)
    else:  # S at a, then F at b, the car before S
        start, finish, car_x = a, b, p.integer(border, a)
    car = (car_x, p.integer(*span))
    grid[car[1]][car[0]] = "."
    draft = Draft(tuple("".join(r) for r in grid), car, p.choice(CAR_DIRECTIONS),
                  Line("x", start, *span, "+x"), Line("x", finish, *span, "+x"),
                  opening_table(p))
    return transform(draft, p.choice((False, True)), p.choice((False, True)),
                     p.choice((False, True)))


def circuit_toml(p: Picker) -> str:
    """The track file text of one random circuit draft (the validator may still reject it)."""
    return draft_circuit(p).toml()
