"""Lattice track files: what parses, and one-line errors naming the key and line."""

from __future__ import annotations

import pytest

from racecert.model.errors import TrackError
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import parse_track
from racecert.model.profiles import GRID, LATTICE, profile_of

GOOD = """rules = "lattice"
name = "small"
description = "a test"

[bounds]
x = [-2, 3]
y = [10, 14]

[[walls]]
points = [[-2, 10], [3, 10]]

[[walls]]
points = [[0, 12], [1, 12], [1, 13]]

[[circles]]
center = [2, 13]
radius = 1

[start]
positions = [[-1, 11], [0, 11]]

[finish]
from = [3, 11]
to = [3, 14]
direction = [1, 0]
laps = 1
"""


def parse(text: str) -> LatticeTrack:
    t = parse_track(text.encode(), "t.toml")
    assert isinstance(t, LatticeTrack)
    return t


def test_a_good_file_is_stored_in_local_coordinates() -> None:
    t = parse(GOOD)
    assert profile_of(t) is LATTICE
    assert (t.width, t.height, t.origin) == (6, 5, (-2, 10))
    assert t.polylines == (((0, 0), (5, 0)), ((2, 2), (3, 2), (3, 3)))
    assert t.starts == ((1, 1), (2, 1)) and t.start == (1, 1)
    assert t.to_file(t.start) == (-1, 11)
    assert t.circles[0].center == (4, 3) and t.circles[0].radius == 1
    f = t.finish
    assert (f.a, f.b, f.direction, f.laps) == ((5, 1), (5, 4), (1, 0), 1)
    assert len(t.segments) == 3
    assert t.bounds_in_file() == ((-2, 10), (3, 14))


def test_the_grid_format_is_untouched() -> None:
    t = parse_track(open("tracks/tiny_straight.toml", "rb").read())
    assert profile_of(t) is GRID


def err(text: str) -> TrackError:
    with pytest.raises(TrackError) as e:
        parse_track(text.encode(), "t.toml")
    assert "\n" not in str(e.value)
    return e.value


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ('rules = "lattice"', 'rules = "latice"', "rules", 'must be "lattice" or "cell-path"'),
    ('name = "small"', 'name = ""', "name", "missing or empty"),
    ('description = "a test"', "colour = 3", "colour", "unknown key"),
    ("x = [-2, 3]", "x = [3, 3]", "[bounds].x", "at least 2 lattice points"),
    ("x = [-2, 3]", "x = [0, 5000]", "[bounds].x", "at most 4,096"),
    ("y = [10, 14]", "y = 10", "[bounds].y", "pair of integers"),
    ("points = [[-2, 10], [3, 10]]", "points = [[-2, 10]]", "[[walls]] 1 .points",
     "at least 2"),
    ("points = [[0, 12], [1, 12], [1, 13]]", "points = [[0, 12], [1.5, 12]]",
     "[[walls]] 2 .points", "pair of integers"),
    ("radius = 1", "radius = 0", "[[circles]] 1 .radius", "from 1 to"),
    ("radius = 1", "radius = 1\ncolor = 2", "[[circles]] 1 .color", "unknown key"),
    ("positions = [[-1, 11], [0, 11]]", "positions = [[-1, 11], [-1, 11]]",
     "[start].positions", "listed twice"),
    ("positions = [[-1, 11], [0, 11]]", "positions = [[9, 11]]", "[start].positions",
     "outside the bounds x -2..3, y 10..14"),
    ("positions = [[-1, 11], [0, 11]]", "positions = [[0, 10]]", "[start].positions",
     "lies on the wall [-2, 10]-[3, 10]"),
    ("positions = [[-1, 11], [0, 11]]", "positions = [[2, 13]]", "[start].positions",
     "inside the circle"),
    ("to = [3, 14]", "to = [3, 11]", "[finish].to", "no length"),
    ("direction = [1, 0]", "direction = [0, 2]", "[finish].direction", "parallel"),
    ("direction = [1, 0]\n", "", "[finish].laps", "give [finish].direction"),
    ("laps = 1", "laps = 0", "[finish].laps", "from 1 to"),
    ("laps = 1", "laps = true", "[finish].laps", "must be an integer"),
    ("[finish]", "[finis]", "finis", "unknown key"),
])
def test_errors_name_the_key(old: str, new: str, where: str, message: str) -> None:
    assert old in GOOD
    e = err(GOOD.replace(old, new, 1))
    assert e.where == where, str(e)
    assert message in e.message, str(e)


def test_missing_tables_and_wrong_shapes() -> None:
    e = err(GOOD[: GOOD.index("[finish]")])
    assert (e.where, e.message) == ("finish", "missing required table [finish]")
    walls = GOOD[GOOD.index("[[walls]]"): GOOD.index("[[circles]]")]
    e = err(GOOD.replace(walls, "").replace('description = "a test"',
                                            'description = "a test"\nwalls = 3'))
    assert e.where == "walls" and "array of tables" in e.message
    e = err(GOOD.replace("[bounds]", "[bounds]\n").replace("x = [-2, 3]\n", ""))
    assert (e.where, e.message) == ("[bounds].x", "missing required key")


def test_errors_carry_the_line_of_the_key() -> None:
    e = err(GOOD.replace("radius = 1", "radius = -3"))
    assert e.line == GOOD.splitlines().index("radius = 1") + 1
    e = err(GOOD.replace("points = [[0, 12], [1, 12], [1, 13]]", "points = 7"))
    assert e.line == GOOD.splitlines().index("points = [[0, 12], [1, 12], [1, 13]]") + 1
    assert str(e).startswith(f"t.toml:{e.line}: [[walls]] 2 .points:")


def test_a_plain_finish_may_not_touch_a_start() -> None:
    text = GOOD.replace("direction = [1, 0]\nlaps = 1\n", "").replace(
        "to = [3, 14]", "to = [-1, 11]")
    e = err(text)
    assert e.where == "[start].positions" and "finish segment" in e.message


def test_a_directed_finish_may_run_through_a_start() -> None:
    """The Riddler's car starts on its finish line: a directed finish allows that."""
    t = parse(GOOD.replace("from = [3, 11]", "from = [-1, 11]"))
    assert t.finish.a == (1, 1) == t.start


# -- the acceleration set ----------------------------------------------------------------


def test_the_acceleration_set_defaults_to_moore_and_reads_von_neumann() -> None:
    assert parse(GOOD).accelerations == "moore"
    vn = parse(GOOD.replace('description = "a test"',
                            'description = "a test"\naccelerations = "von-neumann"'))
    assert vn.accelerations == "von-neumann"
    assert "von-neumann accelerations" in repr(vn) and "accelerations" not in repr(parse(GOOD))
    assert parse(GOOD.replace('description = "a test"',
                              'accelerations = "moore"')).accelerations == "moore"


@pytest.mark.parametrize("value", ['"diagonal"', '"Moore"', '"von_neumann"', "5", "[1, 2]"])
def test_an_unknown_acceleration_set_is_a_one_line_error(value: str) -> None:
    text = GOOD.replace('description = "a test"', f"accelerations = {value}")
    e = err(text)
    assert e.where == "accelerations", str(e)
    assert e.message.startswith('must be "moore" (the default) or "von-neumann", got '), str(e)
    assert e.line == text.splitlines().index(f"accelerations = {value}") + 1
