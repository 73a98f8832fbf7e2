"""A move under the cell-path rules, written apart from the oracle's (docs/rules.md,
"The cell-path profile").

Here the cell of tick k is found with exact rationals: per axis, the car has gone
k/n of the way, so its coordinate is p + k d / n, and the cell is that value rounded
half up, floor(p + k d / n + 1/2), as `Fraction`s (the oracle uses one integer floor
division). The cells are looked up in the track's rows directly.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

from racecert.independent.race_rules import box_accels
from racecert.model.cellpath.track import CellPathTrack

State = tuple[int, int, int, int]
"""(x, y, vx, vy)."""

HALF = Fraction(1, 2)


def path_cells(x: int, y: int, dx: int, dy: int) -> list[tuple[int, int]]:
    """The cells the move of velocity (dx, dy) from (x, y) visits, tick by tick.

    >>> path_cells(0, 0, 2, -1)
    [(1, 0), (2, -1)]
    """
    return [(x + ox, y + oy) for ox, oy in offsets(dx, dy)]


@cache
def offsets(dx: int, dy: int) -> tuple[tuple[int, int], ...]:
    """The cells of the move of velocity (dx, dy) relative to its start (the walk is the
    same from every cell, since the start is a whole cell): tick k at
    floor(k d / n + 1/2) per axis.

    >>> offsets(3, 1)
    ((1, 0), (2, 1), (3, 1))
    """
    n = max(abs(dx), abs(dy))
    return tuple((math.floor(Fraction(k * dx, n) + HALF), math.floor(Fraction(k * dy, n) + HALF))
                 for k in range(1, n + 1))


def accelerations(track: CellPathTrack) -> list[tuple[int, int]]:
    """{-A..A}^2, in the order (ay, then ax), ascending (`race_rules.box_accels`)."""
    return list(box_accels(track.max_acceleration))


def successor(track: CellPathTrack, s: State, a: tuple[int, int]
              ) -> tuple[State, bool] | None:
    """(the state after the move, whether it arrives), or None for no valid move.

    >>> t = CellPathTrack("t", 4, 1, ("s.xg",), ((0, 0),))
    >>> successor(t, (0, 0, 0, 0), (1, 0)), successor(t, (1, 0, 1, 0), (1, 0))
    (((1, 0, 1, 0), False), None)
    """
    x, y, vx, vy = s
    dx, dy = vx + a[0], vy + a[1]
    cap = track.speed_cap
    if cap is not None and (abs(dx) > cap or abs(dy) > cap):
        return None
    for cx, cy in path_cells(x, y, dx, dy):
        if cx < 0 or cy < 0 or cx >= track.width or cy >= track.height:
            return None
        c = track.rows[cy][cx]
        if c == "x":
            return None
        if c == "g":
            return (cx, cy, dx, dy), True
    return (x + dx, y + dy, dx, dy), False
