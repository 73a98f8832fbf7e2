"""Hand-worked cases for every move rule (docs/rules.md) on racecert.model.rules.apply_move.

Each track is drawn in the test; coordinates are (x, y) with y downward. The
expected values were worked out by hand (the comments say how) and are also
checked against the independent brute force (tests/bruteforce.py).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

from racecert.model.rules import CarState, MoveResult, apply_move, opening_allows
from racecert.model.track import Track
from tests import bruteforce
from tests.strategies import make_track

# Walls at (3,2) and (4,3) for the corner case; a shoulder at (5,1). S is the boundary
# x = 3/2 for row 1 only (y in [1/2, 3/2]); (1,2) is a wall so S is a cut.
CORNERS = make_track(
    """
########
#....:.#
##.#...#
#...#..#
########
""",
    start={"x": 1, "y": [1, 1], "dir": "+x"},
    finish={"x": 5, "y": [1, 3], "dir": "+x"},
)

# A bridge: ramps at (2,2) and (5,2), elevated-only cells (3,2) and (4,2) between
# them. F (x = 7/2) passes under the bridge: there it is on the other layer.
RAMPS = make_track(
    """
########
#......#
#./##/.#
#......#
########
""",
    elevated="""


  /==/
""",
    start={"x": 1, "y": [1, 3], "dir": "+x"},
    finish={"x": 3, "y": [1, 3], "dir": "+x"},
)

# Like RAMPS but (3,2) is asphalt in both layers: an overpass, not a connection.
OVERPASS = make_track(
    """
########
#......#
#./.#/.#
#......#
########
""",
    elevated="""


  /==/
""",
    start={"x": 1, "y": [1, 3], "dir": "+x"},
    finish={"x": 3, "y": [1, 1], "dir": "+x"},
)

# F (x = 5/2) lies behind S (x = 9/2): a move may cross F and then S.
F_THEN_S = make_track(
    """
#########
#.......#
#.......#
#########
""",
    car=(3, 1),
    start={"x": 4, "y": [1, 2], "dir": "+x"},
    finish={"x": 2, "y": [1, 2], "dir": "+x"},
)

S_THEN_F = make_track(
    """
#########
#.......#
#.......#
#########
""",
    start={"x": 1, "y": [1, 2], "dir": "+x"},
    finish={"x": 4, "y": [1, 2], "dir": "+x"},
)

OPENING = make_track(
    """
#########
#.......#
#.......#
#.......#
#########
""",
    car=(1, 2),
    start={"x": 1, "y": [1, 3], "dir": "+x"},
    finish={"x": 6, "y": [1, 3], "dir": "+x"},
    opening={"moves": 2, "max_speed": 1, "straight": True},
)


def move(track: Track, state: tuple[int, ...], accel: tuple[int, int]) -> MoveResult:
    """apply_move, cross-checked against the brute force's independent move."""
    s = CarState(*state)
    r = apply_move(track, s, accel)
    k = track.opening.moves if track.opening else 0
    other = bruteforce.move(track, (s.x, s.y, s.vx, s.vy, s.layer, s.progress), accel,
                            s.phase < k)
    assert r.valid == (other is not None), (r, other)
    if r.valid and other is not None:
        assert r.state is not None and r.arrives == other.arrives
        assert r.state.kinematic == other.kinematic
        if not r.arrives:
            assert r.state.progress == other.state[5]
    return r


def invalid(reason: str) -> MoveResult:
    return MoveResult(False, reason)


# -- cells, corners, shoulders, zero velocity ---------------------------------------------


def test_diagonal_between_two_walls_through_their_corner_is_valid() -> None:
    # (3,3) -> (4,2) passes the corner (7/2, 5/2); the walls (3,2) and (4,3) only touch it there.
    r = move(CORNERS, (3, 3, 0, 0), (1, -1))
    assert r == MoveResult(True, "ok", CarState(4, 2, 1, -1), False, ((3, 3, 0), (4, 2, 0)), ())
    r = move(CORNERS, (4, 2, 0, 0), (-1, 1))
    assert r.valid and r.touched == ((4, 2, 0), (3, 3, 0))


def test_a_move_into_a_wall_is_invalid() -> None:
    # (3,3) -> (5,2): x = 7/2 at t = 1/4 with y = 11/4, inside the wall (4,3).
    assert move(CORNERS, (3, 3, 1, -1), (1, 0)) == invalid("cell (4, 3) not drivable in layer 0")


def test_shoulder_passable_but_not_an_end() -> None:
    assert move(CORNERS, (4, 1, 0, 0), (1, 0)) == invalid("ends on (5, 1), not asphalt in layer 0")
    # (4,1) -> (6,1) passes over the shoulder (5,1) and crosses F (x = 11/2) at t = 3/4
    r = move(CORNERS, (4, 1, 1, 0, 0, 1), (1, 0))
    assert r.valid and r.arrives and r.touched == ((4, 1, 0), (5, 1, 0), (6, 1, 0))
    assert r.crossings == (("finish", F(3, 4)),)


def test_zero_velocity_is_invalid() -> None:
    assert move(CORNERS, (2, 1, 1, 0), (-1, 0)) == invalid("zero velocity")
    assert move(CORNERS, (2, 1, 0, 0), (0, 0)) == invalid("zero velocity")


def test_leaving_the_grid_is_invalid() -> None:
    assert not move(CORNERS, (6, 1, 1, 0), (1, 0)).valid  # (8,1) is off the 8-wide grid


# -- lines: span ends, order of two crossings, wrong way ----------------------------------


def test_crossing_exactly_at_the_span_end_counts() -> None:
    # S is x = 3/2 for y in [1/2, 3/2]; (1,1) -> (2,2) meets it at (3/2, 3/2), t = 1/2:
    # the span is closed, so the start line is crossed.
    r = move(CORNERS, (1, 1, 0, 0), (1, 1))
    assert r == MoveResult(True, "ok", CarState(2, 2, 1, 1, 0, 1), False,
                           ((1, 1, 0), (2, 2, 0)), (("start", F(1, 2)),))
    # Backwards through the same point: the wrong way.
    assert move(CORNERS, (2, 2, 0, 0), (-1, -1)) == invalid(
        "crosses the start line the wrong way")
    # (1,3) -> (2,2) meets x = 3/2 at y = 5/2, beyond the span: no crossing.
    r = move(CORNERS, (1, 3, 0, 0), (1, -1))
    assert r.valid and r.crossings == () and r.state is not None and r.state.progress == 0


def test_wrong_way_on_the_finish_line() -> None:
    assert move(CORNERS, (6, 2, 0, 0), (-1, 0)) == invalid(
        "crosses the finish line the wrong way")


def test_start_then_finish_in_one_move_arrives() -> None:
    # (1,1) -> (5,1): S (x = 3/2) at t = 1/8, F (x = 9/2) at t = 7/8: S first, so it arrives.
    r = move(S_THEN_F, (1, 1, 3, 0), (1, 0))
    assert r.valid and r.arrives
    assert r.crossings == (("start", F(1, 8)), ("finish", F(7, 8)))
    assert r.state is not None and r.state.progress == 0  # no start crossing after F


def test_finish_then_start_in_one_move() -> None:
    # (2,1) -> (5,1): F (x = 5/2) at t = 1/6, then S (x = 9/2) at t = 5/6.
    crossings = (("finish", F(1, 6)), ("start", F(5, 6)))
    # Start not yet crossed: F does not count; then S is crossed: progress 1, no arrival.
    r = move(F_THEN_S, (2, 1, 2, 0, 0, 0), (1, 0))
    assert r == MoveResult(True, "ok", CarState(5, 1, 3, 0, 0, 1), False,
                           ((2, 1, 0), (3, 1, 0), (4, 1, 0), (5, 1, 0)), crossings)
    # Start already crossed: it arrives at F; the S crossing after F is the next lap's,
    # so the arrived state carries progress 1 (docs/continuity.md, race rule).
    r = move(F_THEN_S, (2, 1, 2, 0, 0, 1), (1, 0))
    assert r.valid and r.arrives and r.crossings == crossings
    assert r.state == CarState(5, 1, 3, 0, 0, 1)


# -- layers: ramps, bridges over a line, overpasses ---------------------------------------


def test_ramp_switches_layer_only_into_a_cell_of_the_other_layer() -> None:
    # (1,2) -> (2,2): onto the ramp, still layer 0 (a ramp is drivable in both).
    r = move(RAMPS, (1, 2, 0, 0), (1, 0))
    assert r.valid and r.touched == ((1, 2, 0), (2, 2, 0)) and r.state is not None
    assert r.state.layer == 0 and r.crossings == (("start", F(1, 2)),)
    # (1,2) -> (3,2): ramp (2,2) then (3,2), drivable only in layer 1: switch.
    r = move(RAMPS, (1, 2, 1, 0), (1, 0))
    assert r == MoveResult(True, "ok", CarState(3, 2, 2, 0, 1, 1), False,
                           ((1, 2, 0), (2, 2, 0), (3, 2, 1)), (("start", F(1, 4)),))
    # diagonally onto the ramp and up: (1,1) -> (3,2) touches (2,1), (2,2), (3,2)
    r = move(RAMPS, (1, 1, 1, 0), (1, 1))
    assert r.valid and r.touched == ((1, 1, 0), (2, 1, 0), (2, 2, 0), (3, 2, 1))
    # down the far ramp: (4,2) layer 1 -> (6,2) through the ramp (5,2)
    r = move(RAMPS, (4, 2, 1, 0, 1, 1), (1, 0))
    assert r.valid and r.touched == ((4, 2, 1), (5, 2, 1), (6, 2, 0))
    assert r.state is not None and r.state.layer == 0


def test_layer_change_needs_the_previous_cell_to_be_a_ramp() -> None:
    # off the side of the bridge: (3,2) layer 1 -> (2,3) through the corner (5/2, 5/2)
    assert move(RAMPS, (3, 2, -1, 0, 1, 1), (0, 1)) == invalid(
        "cell (2, 3) not drivable in layer 1")
    # (4,2) layer 1 -> (5,3): diagonal past the ramp's corner, not from the ramp
    assert move(RAMPS, (4, 2, 1, 1, 1, 1), (0, 0)) == invalid(
        "cell (5, 3) not drivable in layer 1")
    # from the ramp in layer 1 down into (2,3): allowed, and ends in layer 0
    r = move(RAMPS, (2, 2, 0, 0, 1, 1), (0, 1))
    assert r.valid and r.touched == ((2, 2, 1), (2, 3, 0))


def test_a_crossing_on_the_other_layer_does_not_count() -> None:
    # F is x = 7/2 on layer 0. (2,2) -> (4,2) crosses it at t = 3/4 entering (4,2) on the
    # bridge (layer 1): not a crossing, so no arrival although S was crossed.
    r = move(RAMPS, (2, 2, 1, 0, 0, 1), (1, 0))
    assert r == MoveResult(True, "ok", CarState(4, 2, 2, 0, 1, 1), False,
                           ((2, 2, 0), (3, 2, 1), (4, 2, 1)), ())
    # the same move one row up, on the ground: arrives
    r = move(RAMPS, (2, 1, 1, 0, 0, 1), (1, 0))
    assert r.valid and r.arrives and r.crossings == (("finish", F(3, 4)),)
    # and backwards on the bridge: not the wrong way, since it is not a crossing at all
    r = move(RAMPS, (4, 2, 0, 0, 1, 1), (-1, 0))
    assert r.valid and r.crossings == ()
    # from the bridge down onto the start line's layer, backwards: the wrong way
    assert move(RAMPS, (2, 2, -1, 0, 1, 1), (0, 0)) == invalid(
        "crosses the start line the wrong way")


def test_overpass_layers_do_not_connect() -> None:
    # (3,2) is drivable in both layers but is not a ramp.
    r = move(OVERPASS, (2, 2, 1, 0, 0, 1), (0, 0))  # ramp -> (3,2): stays on the ground
    assert r.valid and r.touched == ((2, 2, 0), (3, 2, 0))
    assert move(OVERPASS, (3, 2, 1, 0, 0, 1), (0, 0)) == invalid(
        "cell (4, 2) not drivable in layer 0")
    assert move(OVERPASS, (2, 2, 1, 0, 0, 1), (1, 0)) == invalid(
        "cell (4, 2) not drivable in layer 0")
    r = move(OVERPASS, (4, 2, -1, 0, 1, 1), (0, 0))  # along the bridge: stays up
    assert r.valid and r.touched == ((4, 2, 1), (3, 2, 1))
    assert move(OVERPASS, (3, 2, 0, 0, 1, 1), (0, 1)) == invalid(
        "cell (3, 3) not drivable in layer 1")
    assert move(OVERPASS, (3, 2, 0, 0, 0, 1), (0, 1)).valid  # the same from below


# -- the opening rule ---------------------------------------------------------------------


def test_opening_max_speed_and_straight() -> None:
    # K = 2, max_speed 1, straight, d0 = +x: moves 1 and 2 (phase 0 and 1) are limited.
    r = move(OPENING, (1, 2, 0, 0, 0, 0, 0), (1, 0))
    assert r.valid and r.state == CarState(2, 2, 1, 0, 0, 1, 1)  # phase 0 -> 1
    assert move(OPENING, (1, 2, 0, 0, 0, 0, 0), (1, 1)) == invalid("opening rule")
    assert move(OPENING, (2, 2, 1, 0, 0, 1, 1), (1, 0)) == invalid("opening rule")  # speed 2
    assert move(OPENING, (2, 2, 1, 0, 0, 1, 1), (0, 1)) == invalid("opening rule")  # vy != 0
    r = move(OPENING, (3, 2, 1, 0, 0, 1, 2), (1, 1))  # phase 2 = K: free
    assert r.valid and r.state == CarState(5, 3, 2, 1, 0, 1, 2)
    # "straight" forbids the perpendicular component only: backwards along d0 is allowed
    r = move(OPENING, (4, 2, 0, 0, 0, 1, 1), (-1, 0))
    assert r.valid and r.state == CarState(3, 2, -1, 0, 0, 1, 2)


def test_opening_allows_each_constraint_alone() -> None:
    only_speed = dataclasses.replace(OPENING, opening=dataclasses.replace(
        OPENING.opening, straight=False))
    assert opening_allows(only_speed, 0, 1, 1) and not opening_allows(only_speed, 0, 2, 0)
    only_straight = dataclasses.replace(OPENING, opening=dataclasses.replace(
        OPENING.opening, max_speed=None))
    assert opening_allows(only_straight, 1, 5, 0) and not opening_allows(only_straight, 1, 1, 1)
    facing_y = dataclasses.replace(OPENING, car=dataclasses.replace(OPENING.car, direction="-y"))
    assert opening_allows(facing_y, 0, 0, 1) and not opening_allows(facing_y, 0, 1, 0)
    assert opening_allows(facing_y, 2, 1, 1)  # after K moves
    assert opening_allows(S_THEN_F, 0, 5, 5)  # no opening rule at all


@pytest.mark.parametrize("track", [CORNERS, RAMPS, OVERPASS, F_THEN_S, S_THEN_F, OPENING],
                         ids=["corners", "ramps", "overpass", "f-then-s", "s-then-f", "opening"])
def test_every_move_agrees_with_the_brute_force(track: Track) -> None:
    """Every state on the grid, velocities up to 2, both layers, both progress values."""
    k = track.opening.moves if track.opening else 0
    checked = 0
    for layer in range(track.layers):
        for y in range(track.height):
            for x in range(track.width):
                if not track.endable(layer, x, y):
                    continue
                for vx in range(-2, 3):
                    for vy in range(-2, 3):
                        for progress in (0, 1):
                            for phase in sorted({0, k}):
                                for a in bruteforce.ACCELS:
                                    move(track, (x, y, vx, vy, layer, progress, phase), a)
                                    checked += 1
    assert checked > 1000
