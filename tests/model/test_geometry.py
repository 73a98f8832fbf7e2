"""Exact move geometry (racecert.model.geometry), by hand and against the brute force.

Conventions (docs/rules.md): cell (x, y) is the closed square [x-1/2, x+1/2] x
[y-1/2, y+1/2]; a move touches a cell iff the segment meets its interior;
touched cells are ordered by the parameter t at which the segment enters them.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from racecert.model.geometry import line_crossing, touched_offsets
from racecert.model.track import Line
from tests.bruteforce import crossing, touched_cells


def test_diagonal_through_a_corner_skips_the_side_cells() -> None:
    # (0,0) -> (1,1) passes the corner (1/2, 1/2) at t = 1/2: it goes from cell (0,0)
    # straight into (1,1); (1,0) and (0,1) only share that corner point with it.
    assert touched_offsets(1, 1) == ((0, 0, F(0)), (1, 1, F(1, 2)))
    assert touched_offsets(-1, -1) == ((0, 0, F(0)), (-1, -1, F(1, 2)))
    assert touched_offsets(1, -1) == ((0, 0, F(0)), (1, -1, F(1, 2)))
    # (0,0) -> (2,2) passes the corners (1/2,1/2) at t=1/4 and (3/2,3/2) at t=3/4
    assert touched_offsets(2, 2) == ((0, 0, F(0)), (1, 1, F(1, 4)), (2, 2, F(3, 4)))


def test_slope_one_third_passes_one_corner() -> None:
    # (0,0) -> (3,1): y = x/3. x = 1/2 at t = 1/6 (y = 1/6: cell (1,0)); then the line
    # meets x = 3/2 and y = 1/2 together at t = 1/2 (a corner): into (2,1) directly,
    # so (2,0) and (1,1) are not touched; x = 5/2 at t = 5/6: cell (3,1).
    assert touched_offsets(3, 1) == ((0, 0, F(0)), (1, 0, F(1, 6)), (2, 1, F(1, 2)),
                                     (3, 1, F(5, 6)))


def test_slope_one_half_passes_no_corner() -> None:
    # (0,0) -> (2,1): x = 1/2 at t = 1/4 (y = 1/4), y = 1/2 at t = 1/2 (x = 1, mid-edge),
    # x = 3/2 at t = 3/4: (0,0) (1,0) (1,1) (2,1).
    assert touched_offsets(2, 1) == ((0, 0, F(0)), (1, 0, F(1, 4)), (1, 1, F(1, 2)),
                                     (2, 1, F(3, 4)))
    assert touched_offsets(-2, 1) == ((0, 0, F(0)), (-1, 0, F(1, 4)), (-1, 1, F(1, 2)),
                                      (-2, 1, F(3, 4)))
    # transposed: (0,0) -> (1,2)
    assert touched_offsets(1, 2) == ((0, 0, F(0)), (0, 1, F(1, 4)), (1, 1, F(1, 2)),
                                     (1, 2, F(3, 4)))


def test_axis_moves() -> None:
    assert touched_offsets(0, 3) == ((0, 0, F(0)), (0, 1, F(1, 6)), (0, 2, F(1, 2)),
                                     (0, 3, F(5, 6)))
    assert touched_offsets(-2, 0) == ((0, 0, F(0)), (-1, 0, F(1, 4)), (-2, 0, F(3, 4)))


@pytest.mark.parametrize("vmax", [9])
def test_touched_offsets_equal_slab_clipping(vmax: int) -> None:
    """Every velocity up to 9: the boundary walk equals Liang-Barsky clipping per cell."""
    for vx in range(-vmax, vmax + 1):
        for vy in range(-vmax, vmax + 1):
            if (vx, vy) == (0, 0):
                continue
            mine = tuple((c.x, c.y, c.entry) for c in touched_cells(0, 0, vx, vy))
            assert touched_offsets(vx, vy) == mine, (vx, vy)
            # a path of side or corner neighbours from (0,0) to (vx,vy), entries increasing
            cells = touched_offsets(vx, vy)
            assert cells[-1][:2] == (vx, vy)
            for (ax, ay, ta), (bx, by, tb) in zip(cells, cells[1:], strict=False):
                assert max(abs(bx - ax), abs(by - ay)) == 1 and ta < tb


def test_line_crossing_by_hand() -> None:
    s = Line("x", 4, 1, 6, "+x")  # x = 9/2, y in [1/2, 13/2]
    assert line_crossing(s, 3, 2, 3, 1) == F(1, 2)  # x = 3 + 3t = 9/2 at t = 1/2, y = 5/2
    assert line_crossing(s, 4, 2, 1, 0) == F(1, 2)
    assert line_crossing(s, 2, 2, 3, 0) == F(5, 6)  # 2 + 3t = 9/2
    assert line_crossing(s, 7, 2, -3, 1) == F(5, 6)  # the direction is not judged here
    assert line_crossing(s, 3, 2, 1, 0) is None  # stops at x = 4
    assert line_crossing(s, 4, 2, 0, 3) is None  # parallel
    assert line_crossing(s, 4, 7, 1, 0) is None  # passes below the span (y = 7 > 13/2)
    f = Line("y", 2, 0, 3, "+y")  # y = 5/2, x in [-1/2, 7/2]
    assert line_crossing(f, 1, 1, 2, 3) == F(1, 2)  # y = 1 + 3t = 5/2 at t = 1/2, x = 2
    assert line_crossing(f, 3, 1, 2, 3) is None  # x = 4 at the crossing: beyond the span


def test_line_crossing_at_a_span_end_counts() -> None:
    """The span is closed: crossing exactly at its end point counts."""
    s = Line("x", 4, 1, 1, "+x")  # x = 9/2, y in [1/2, 3/2]
    assert line_crossing(s, 4, 1, 1, 1) == F(1, 2)  # through the corner (9/2, 3/2)
    assert line_crossing(s, 4, 0, 1, 1) == F(1, 2)  # through the corner (9/2, 1/2)
    assert line_crossing(s, 5, 2, -1, -1) == F(1, 2)  # back through (9/2, 3/2)
    assert line_crossing(s, 4, 1, 1, 2) is None  # y = 2 at x = 9/2


def test_line_crossing_equals_independent_formula() -> None:
    lines = [Line("x", 3, 2, 4, "+x"), Line("y", 3, 1, 2, "-y"), Line("x", 0, 0, 0, "-x")]
    for line in lines:
        for px in range(-1, 7):
            for py in range(-1, 7):
                for vx in range(-5, 6):
                    for vy in range(-5, 6):
                        if (vx, vy) != (0, 0):
                            assert line_crossing(line, px, py, vx, vy) == crossing(
                                line, px, py, vx, vy), (line, px, py, vx, vy)
