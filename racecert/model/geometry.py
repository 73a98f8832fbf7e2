"""Exact move geometry: which cells a move touches, and where it crosses a line.

A move is the closed segment from a cell centre p to q = p + v. A cell is
touched when the segment meets its open interior; a segment through a cell
corner touches only the two cells it passes between. The touched cells depend
only on v (translation invariance), so they are computed once per velocity and
cached, as offsets from p with the exact parameter t in [0, 1] at which the
segment enters each cell. All arithmetic is integer or `Fraction`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from racecert.model.track import Line


@lru_cache(maxsize=65536)
def touched_offsets(vx: int, vy: int) -> tuple[tuple[int, int, Fraction], ...]:
    """Cells touched by the segment from (0, 0) to (vx, vy), in entry order.

    Each item is (dx, dy, t): the cell's offset from the start cell and the
    parameter at which the segment enters it (0 for the start cell).

    >>> [(dx, dy) for dx, dy, _ in touched_offsets(2, 1)]
    [(0, 0), (1, 0), (1, 1), (2, 1)]
    >>> [(dx, dy, str(t)) for dx, dy, t in touched_offsets(1, 1)]
    [(0, 0, '0'), (1, 1, '1/2')]
    """
    ax, ay = abs(vx), abs(vy)
    sx = (vx > 0) - (vx < 0)
    sy = (vy > 0) - (vy < 0)
    cells: list[tuple[int, int, Fraction]] = [(0, 0, Fraction(0))]
    cx = cy = 0
    nx = ny = 1  # the next boundary in each axis is at t = n / (2 |v|), n odd
    while (cx, cy) != (vx, vy):
        if ay == 0 or (ax != 0 and nx * ay < ny * ax):
            t = Fraction(nx, 2 * ax)
            cx, nx = cx + sx, nx + 2
        elif ax == 0 or ny * ax < nx * ay:
            t = Fraction(ny, 2 * ay)
            cy, ny = cy + sy, ny + 2
        else:  # exactly through a corner: diagonal step, the two side cells are not touched
            t = Fraction(nx, 2 * ax)
            cx, cy, nx, ny = cx + sx, cy + sy, nx + 2, ny + 2
        cells.append((cx, cy, t))
    return tuple(cells)


def line_crossing(line: Line, px: int, py: int, vx: int, vy: int) -> Fraction | None:
    """The parameter t at which the move from (px, py) by (vx, vy) meets `line`, or None.

    Layers and direction are not considered here (see `racecert.model.rules`).
    Positions are cell centres and lines lie on cell boundaries, so a move never
    starts or ends on a line; the line's span is closed.

    >>> from racecert.model.track import Line
    >>> line_crossing(Line("x", 4, 1, 6, "+x"), 3, 2, 3, 1)
    Fraction(1, 2)
    """
    if line.axis == "x":
        p_fix, v_fix, p_span, v_span = px, vx, py, vy
    else:
        p_fix, v_fix, p_span, v_span = py, vy, px, vx
    if v_fix == 0:
        return None
    q_fix = p_fix + v_fix
    if not (min(p_fix, q_fix) <= line.k < max(p_fix, q_fix)):
        return None
    t = Fraction(2 * line.k + 1 - 2 * p_fix, 2 * v_fix)
    doubled_span = 2 * p_span + 2 * v_span * t  # the other coordinate at t, doubled
    if 2 * line.lo - 1 <= doubled_span <= 2 * line.hi + 1:
        return t
    return None
