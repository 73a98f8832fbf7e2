"""Cell-level reachability (racecert.model.topology): unit steps, line crossings, flood.

The flood is the validator's relaxation of the car's motion: unit steps
between cell centres (8 directions) with the same layer rules as a move.
"""

from __future__ import annotations

import dataclasses

import pytest

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.topology import flood, reaches_finish_before_start, step_crosses, unit_step
from racecert.model.track import Line
from tests.model.test_rules import CORNERS, RAMPS, S_THEN_F
from tests.strategies import make_track, track_toml


def test_unit_steps_follow_the_layer_rules() -> None:
    # RAMPS: ramps (2,2) and (5,2); (3,2) and (4,2) drivable only in layer 1.
    assert unit_step(RAMPS, (1, 2, 0), 1, 0) == (2, 2, 0)  # onto the ramp
    assert unit_step(RAMPS, (2, 2, 0), 1, 0) == (3, 2, 1)  # up: the next cell is layer 1 only
    assert unit_step(RAMPS, (2, 2, 1), 0, 1) == (2, 3, 0)  # down from the ramp
    assert unit_step(RAMPS, (3, 2, 1), 0, 1) is None  # off the bridge's side
    assert unit_step(RAMPS, (3, 2, 1), -1, 1) is None
    assert unit_step(RAMPS, (1, 2, 0), 1, -1) == (2, 1, 0)  # a corner step
    assert unit_step(RAMPS, (1, 1, 0), -1, 0) is None  # into the border wall
    # CORNERS: walls (3,2) and (4,3); the diagonal between them is a legal step
    assert unit_step(CORNERS, (3, 3, 0), 1, -1) == (4, 2, 0)


def test_step_crossings_are_signed_and_layered() -> None:
    s, f = RAMPS.start, RAMPS.finish  # x = 3/2 and x = 7/2, both layer 0, both +x
    assert step_crosses(s, (1, 2, 0), 1, 0, (2, 2, 0)) == 1
    assert step_crosses(s, (2, 2, 0), -1, 0, (1, 2, 0)) == -1
    assert step_crosses(s, (2, 2, 0), 0, 1, (2, 3, 0)) == 0
    assert step_crosses(f, (3, 1, 0), 1, 0, (4, 1, 0)) == 1
    assert step_crosses(f, (3, 2, 1), 1, 0, (4, 2, 1)) == 0  # on the bridge, over F
    # CORNERS: S is x = 3/2 for row 1 only; the diagonal through its end point crosses it
    assert step_crosses(CORNERS.start, (1, 1, 0), 1, 1, (2, 2, 0)) == 1
    assert step_crosses(CORNERS.start, (1, 3, 0), 1, -1, (2, 2, 0)) == 0


def test_flood_stops_at_blocked_lines() -> None:
    seen, hit = flood(RAMPS, [(1, 1, 0)], blocked=(RAMPS.start, RAMPS.finish),
                      stop_on=RAMPS.finish)
    assert seen == {(1, 1, 0), (1, 2, 0), (1, 3, 0)} and not hit
    # past S (F = x 7/2 blocked): the flood goes over F on the bridge and down the far
    # ramp (5,2): beyond F without crossing it, which the car can do as well.
    seen, hit = flood(RAMPS, [(2, 1, 0)], blocked=(RAMPS.finish,), stop_on=RAMPS.finish)
    assert hit  # e.g. (3,1) -> (4,1) would cross F legally
    assert {(3, 2, 1), (4, 2, 1), (5, 2, 1)} <= seen
    assert {(5, 1, 0), (4, 1, 0), (6, 3, 0), (5, 2, 0)} <= seen
    assert not any(n[:2] in ((3, 2), (4, 2)) and n[2] == 0 for n in seen)  # walls below
    # everything: 16 ground cells (rows 1 and 3, and 4 in row 2) and 4 on the bridge
    assert len(seen) == 16 + 4


def test_reaches_finish_before_start() -> None:
    assert not reaches_finish_before_start(S_THEN_F)
    # move S behind F (no validation on a dataclass copy): F is reachable directly
    swapped = dataclasses.replace(S_THEN_F, start=Line("x", 5, 1, 2, "+x"))
    assert reaches_finish_before_start(swapped)


def test_a_bridge_over_the_start_line_bypasses_it() -> None:
    ground = """
##########
#........#
#./...../#
#........#
##########
"""
    lines = {"start": {"x": 3, "y": [1, 3], "dir": "+x"},
             "finish": {"x": 6, "y": [1, 3], "dir": "+x"}}
    # A bridge (2,2)..(8,2) drawn over asphalt: (3,2)..(7,2) are overpasses, so after the
    # ramp (2,2) the car stays on the ground (the next cell is drivable in its layer) and
    # S still separates the car from F.
    over = make_track(ground, elevated="\n\n\n  /=====/\n", **lines)
    assert not reaches_finish_before_start(over)
    # Walls under a bridge from (2,2) to (6,2): up the ramp, over S on layer 1, down at
    # (6,2) before F, then across F on the ground: F is reachable without S.
    walled = ground.replace("#./...../#", "#./###/..#")
    with pytest.raises(TrackError) as err:
        parse_track(track_toml(walled, elevated="\n\n\n  /===/\n", **lines).encode(), "b.toml")
    assert err.value.where == "[finish]"
    assert err.value.message == ("the finish line can be crossed without crossing the start "
                                 "line first")
