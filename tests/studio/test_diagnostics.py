"""The validator's messages placed on their cells, and the reachability notes.

The notes claim "no trajectory can reach the finish"; the BFS oracle is the
independent truth for that claim on every track where a note appears, and the
vectorised flood is checked against the model's own `flood_directed`.
"""

from __future__ import annotations

import pytest

from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs
from racecert.studio.diagnostics import reachability_notes, validate_draft
from racecert.studio.document import draft_from_json, track_to_json
from tests.studio.conftest import TRACKS


def doc(name: str = "tiny_straight.toml") -> dict:
    return track_to_json(load_track(TRACKS / name))


def verdict_of(d: dict):
    return validate_draft(draft_from_json(d))


def test_a_valid_track_has_no_message_and_its_toml() -> None:
    v = verdict_of(doc())
    assert v.valid and v.messages == () and v.toml.startswith('name = "Tiny straight"')
    assert v.to_json()["summary"] == "10x3, 1 layer(s)"


def test_car_off_asphalt_is_placed_on_the_car_cell() -> None:
    d = doc()
    d["car"]["position"] = [0, 1]
    v = verdict_of(d)
    (m,) = v.messages
    assert not v.valid and m.where == "[car].position" and "not asphalt" in m.message
    assert m.target.cells == ((0, 1, 0),)


def test_a_slot_message_names_the_slot_cell() -> None:
    d = doc()
    d["car"]["slots"] = [[2, 1], [5, 0]]
    (m,) = verdict_of(d).messages
    assert m.where == "[car].slots" and m.target.cells == ((5, 0, 0),)


def test_a_line_that_is_not_a_cut_targets_the_line() -> None:
    d = doc("4_esquinas.toml")
    d["start"]["span"] = [1, 2]  # the road is rows 1..4: a car drives round the line's end
    (m,) = verdict_of(d).messages
    assert m.where == "[start]" and "not a cut" in m.message and m.target.line == "start"


def test_a_ramp_in_one_grid_is_placed_on_its_cell_and_layer() -> None:
    d = doc("ocho.toml")
    row = d["elevated"][10]
    d["elevated"][10] = row[:14] + "=" + row[15:]  # the ramp at (14, 10) only on the ground
    (m,) = verdict_of(d).messages
    assert m.target.cells == ((14, 10, 0),) and "ramp" in m.message


def test_opening_and_name_messages_target_their_fields() -> None:
    d = doc()
    d["name"] = " "
    (m,) = verdict_of(d).messages
    assert m.target.field == "name" and m.target.cells == ()


def wall_column(d: dict, x: int) -> dict:
    d = dict(d)
    d["ground"] = [row[:x] + "#" + row[x + 1:] for row in d["ground"]]
    return d


def test_a_wall_across_the_road_says_unreachable_and_the_bfs_agrees() -> None:
    d = wall_column(doc(), 4)  # between S (x = 1.5) and F (x = 6.5)
    v = verdict_of(d)
    assert v.valid
    (m,) = v.messages
    assert m.level == "unreachable" and m.where == "[finish]" and m.target.line == "finish"
    assert not layered_bfs(v.track, "exact").reachable


def test_a_wall_along_the_start_line_is_the_parsers_error_on_the_line() -> None:
    d = doc("4_esquinas.toml")
    d["ground"] = [row[:15] + "#" + row[16:] if 1 <= y <= 4 else row
                   for y, row in enumerate(d["ground"])]  # the S side of the line is walled
    v = verdict_of(d)
    (m,) = v.messages
    assert not v.valid and m.level == "error"
    assert m.where == "[start]" and m.target.line == "start"
    assert "cannot be crossed" in m.message


@pytest.mark.parametrize("name", sorted(p.name for p in TRACKS.glob("*.toml")))
def test_no_note_on_the_bundled_tracks_that_are_reachable(name: str) -> None:
    assert reachability_notes(load_track(TRACKS / name)) == ()


# -- the vectorised flood against the model's flood -------------------------------------
