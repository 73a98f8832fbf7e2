"""Every error of the track parser/validator names the file, the place and the problem.

The base documents below have known line numbers; each test changes one
thing and checks the whole `TrackError`: file, place (key, or grid row and
column), file line, and message. The command line turns any of them into one
line on stderr and exit status 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.cli import main
from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from tests.strategies import TRACKS

BASE = '''name = "Base"
kind = "stage"

[car]
position = [1, 2]
direction = "+x"

[start]
x = 1
y = [1, 3]
dir = "+x"

[finish]
x = 6
y = [1, 3]
dir = "+x"

[map]
ground = """
#########
#.......#
#.......#
#.......#
#########
"""
'''
# line numbers in BASE
L_NAME, L_KIND, L_CAR, L_POSITION, L_DIRECTION = 1, 2, 4, 5, 6
L_START, L_START_X, L_START_Y, L_START_DIR = 8, 9, 10, 11
L_FINISH, L_FINISH_X, L_FINISH_Y, L_FINISH_DIR = 13, 14, 15, 16
L_MAP, L_GROUND = 18, 19  # ground row r is on line L_GROUND + 1 + r

# A bridge from the ramp (2,2) to the ramp (6,2) over asphalt.
BRIDGE = BASE.replace('''#########
"""
''', '''#########
"""
elevated = """


  /===/
"""
''').replace("#.......#\n#.......#\n#.......#", "#.......#\n#./.../.#\n#.......#")
L_ELEVATED = 26  # elevated row r is on line L_ELEVATED + 1 + r


def error(text: str, path: str = "t.toml") -> TrackError:
    """The TrackError raised for `text` (fails if none is raised)."""
    with pytest.raises(TrackError) as info:
        parse_track(text.encode(), path)
    return info.value


def check(text: str, where: str, line: int | None, message: str) -> None:
    """The error has exactly this place, line and message, and prints as one line."""
    e = error(text)
    assert (e.path, e.where, e.line, e.message) == ("t.toml", where, line, message)
    place = f"t.toml:{line}" if line is not None else "t.toml"
    assert str(e) == f"{place}: {where}: {message}" if where else f"{place}: {message}"
    assert "\n" not in str(e)


def sub(old: str, new: str, text: str = BASE) -> str:
    """`text` with the one occurrence of `old` replaced (fails if it is not there once)."""
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_the_bases_are_valid() -> None:
    t = parse_track(BASE.encode(), "t.toml")
    assert (t.name, t.width, t.height, t.layers, t.kind) == ("Base", 9, 5, 1, "stage")
    b = parse_track(BRIDGE.encode(), "t.toml")
    assert b.layers == 2 and b.is_ramp(2, 2) and b.is_ramp(6, 2) and b.drivable(1, 4, 2)
    assert b.elevated == ("", "", "  /===/")


# -- reading and TOML ---------------------------------------------------------------------


def test_toml_syntax_error_gives_the_line() -> None:
    e = error(sub('dir = "+x"\n\n[finish]', 'dir = "+x\n\n[finish]'))
    assert e.where == "" and e.line == L_START_DIR
    assert e.message.startswith("TOML syntax error: ")
    assert str(e).startswith(f"t.toml:{L_START_DIR}: TOML syntax error")


def test_not_utf8() -> None:
    with pytest.raises(TrackError) as info:
        parse_track(BASE.encode().replace(b"Base", b"B\xe4se"), "t.toml")
    e = info.value
    assert (e.where, e.line, e.message) == ("", None, "not UTF-8 text (byte 9)")


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(TrackError) as info:
        load_track(missing)
    assert info.value.path == str(missing)
    assert info.value.message == "cannot read file: No such file or directory"


def test_windows_line_ends_are_accepted() -> None:
    t = parse_track(BASE.replace("\n", "\r\n").encode(), "t.toml")
    assert t.ground[1] == "#.......#"


# -- unknown keys at each level -----------------------------------------------------------

ALLOWED = {
    None: "car, description, finish, kind, map, name, opening, start",
    "car": "direction, layer, position, slots",
    "start": "dir, layer, x, y",
    "finish": "dir, layer, x, y",
    "opening": "max_speed, moves, straight",
    "map": "elevated, ground",
}


@pytest.mark.parametrize(("table", "anchor", "line"), [
    (None, 'kind = "stage"\n', L_KIND + 1),
    ("car", 'direction = "+x"\n', L_DIRECTION + 1),
    ("start", 'y = [1, 3]\ndir = "+x"\n\n[finish]', L_START_Y + 1),
    ("finish", 'y = [1, 3]\ndir = "+x"\n\n[map]', L_FINISH_Y + 1),
    ("map", '[map]\n', L_MAP + 1),
])
def test_unknown_key(table: str | None, anchor: str, line: int) -> None:
    text = sub(anchor, anchor.replace("\n", "\ncolour = 3\n", 1))
    where = f"[{table}].colour" if table else "colour"
    check(text, where, line, f"unknown key (allowed: {ALLOWED[table]})")


def test_unknown_key_in_opening() -> None:
    text = BASE.replace("[map]", "[opening]\nmoves = 2\nmaxspeed = 1\n\n[map]")
    check(text, "[opening].maxspeed", L_MAP + 2,
          f"unknown key (allowed: {ALLOWED['opening']})")


# -- top-level values and tables ----------------------------------------------------------


def test_name_kind_description() -> None:
    check(sub('name = "Base"', 'name = "  "'), "name", L_NAME,
          "missing or empty (a string is required)")
    check(sub('name = "Base"\n', ""), "name", None, "missing or empty (a string is required)")
    check(sub('kind = "stage"', 'kind = "rally"'), "kind", L_KIND,
          "must be \"stage\" or \"circuit\", got 'rally'")
    check(sub('kind = "stage"', "description = 7"), "description", L_KIND, "must be a string")


def test_missing_and_malformed_tables() -> None:
    check(BASE[:BASE.index("[map]")], "map", None, "missing required table [map]")
    check(sub("[car]\nposition = [1, 2]\ndirection = \"+x\"\n", ""), "car", None,
          "missing required table [car]")
    check(sub('kind = "stage"', 'kind = "stage"\nopening = 3'), "opening", L_KIND + 1,
          "must be a table")


# -- grids --------------------------------------------------------------------------------


def test_bad_characters_name_row_and_column() -> None:
    check(sub("#########\n#.......#\n#.......#\n#.......#\n#########",
              "#########\n#.......#\n#...x...#\n#.......#\n#########"),
          "[map].ground row 2 column 4", L_GROUND + 1 + 2,
          "bad character 'x' (allowed: '#' '.' ':' '/')")
    check(sub("  /===/\n", "  /=.=/\n", BRIDGE), "[map].elevated row 2 column 4",
          L_ELEVATED + 1 + 2, "bad character '.' (allowed: '#' ' ' '=' ':' '/')")


def test_a_one_line_grid_string_points_at_its_own_line() -> None:
    grid = BASE[BASE.index('ground = """'):]
    check(sub(grid, 'ground = "#####\\n#.x.#\\n#####"\n'), "[map].ground row 1 column 2",
          L_GROUND, "bad character 'x' (allowed: '#' '.' ':' '/')")


def test_ground_rows_of_unequal_length() -> None:
    check(sub("#.......#\n#########\n\"\"\"", "#......#\n#########\n\"\"\""),
          "[map].ground row 3 column 8", L_GROUND + 1 + 3,
          "row has 8 cells, row 0 has 9: ground rows must all have the same length")


def test_empty_or_missing_ground_and_non_string_grid() -> None:
    grid = BASE[BASE.index('ground = """'):]
    check(sub(grid, 'ground = ""\n'), "[map].ground", L_GROUND, "the grid is empty")
    check(sub(grid, 'elevated = """\n=\n"""\n'), "[map].ground", L_MAP,
          "missing required grid")
    check(sub(grid, "ground = 5\n"), "[map].ground", L_GROUND,
          'must be a string (use a multi-line """ string)')


def test_elevated_larger_than_ground() -> None:
    check(sub("  /===/\n", "  /===/\n\n\n\n", BRIDGE), "[map].elevated row 5 column 0",
          L_ELEVATED + 1 + 5, "elevated has 6 rows, ground has 5")
    check(sub("  /===/\n", "  /===/   =\n", BRIDGE), "[map].elevated row 2 column 9",
          L_ELEVATED + 1 + 2, "row is longer than the ground (9)")


def test_a_ramp_in_one_grid_only() -> None:
    msg = "a ramp '/' must appear at the same cell in both the ground and the elevated grid"
    # in the ground only: (6,2) is asphalt in the elevated grid
    check(sub("  /===/\n", "  /====\n", BRIDGE), "[map].ground row 2 column 6",
          L_GROUND + 1 + 2, msg)
    # in the elevated grid only: (2,2) is asphalt in the ground
    check(sub("#./.../.#", "#.....\\.#".replace("\\", "/"), BRIDGE),
          "[map].elevated row 2 column 2", L_ELEVATED + 1 + 2, msg)
    # a ramp in the ground with no elevated grid at all
    check(sub("#.......#\n#.......#\n#.......#", "#.......#\n#./.....#\n#.......#"),
          "[map].ground row 2 column 2", L_GROUND + 1 + 2, msg)


# -- the car --------------------------------------------------------------------------------


def test_car_values() -> None:
    check(sub("position = [1, 2]\n", ""), "[car].position", L_CAR, "missing required key")
    check(sub("position = [1, 2]", "position = [1, 2, 3]"), "[car].position", L_POSITION,
          "must be a pair of integers [a, b], got [1, 2, 3]")
    check(sub("position = [1, 2]", "position = [1, true]"), "[car].position", L_POSITION,
          "must be a pair of integers [a, b], got [1, True]")
    check(sub('direction = "+x"', 'direction = "east"'), "[car].direction", L_DIRECTION,
          "must be one of +x, -x, +y, -y, got 'east'")
    check(sub('direction = "+x"', 'direction = "+x"\nlayer = 2'), "[car].layer", L_DIRECTION + 1,
          "must be 0 (ground) or 1 (elevated), got 2")
    check(sub('direction = "+x"', 'direction = "+x"\nlayer = 1'), "[car].layer", L_DIRECTION + 1,
          "layer 1 needs an [map].elevated grid")
    check(sub('direction = "+x"', 'direction = "+x"\nlayer = 1.0'), "[car].layer",
          L_DIRECTION + 1, "must be an integer, got 1.0")


def test_car_off_grid_off_asphalt_or_beyond_the_start() -> None:
    check(sub("position = [1, 2]", "position = [9, 2]"), "[car].position", L_POSITION,
          "(9, 2) is off the grid 9x5")
    check(sub("position = [1, 2]", "position = [1, 0]"), "[car].position", L_POSITION,
          "(1, 0) is not asphalt in layer 0 (found '#')")
    shoulder = sub("#########\n#.......#\n#.......#", "#########\n#.......#\n#:......#")
    check(shoulder, "[car].position", L_POSITION, "(1, 2) is not asphalt in layer 0 (found ':')")
    on_bridge = sub('direction = "+x"', 'direction = "+x"\nlayer = 1', BRIDGE)
    check(on_bridge, "[car].position", L_POSITION, "(1, 2) is not asphalt in layer 1 (found '#')")
    check(sub("position = [1, 2]", "position = [2, 2]"), "[car].position", L_POSITION,
          "(2, 2) is not on the side from which the start line is crossed (+x)")


def test_slots() -> None:
    def with_slots(s: str) -> str:
        return sub('direction = "+x"', f'direction = "+x"\nslots = {s}')

    assert parse_track(with_slots("[[1, 1], [1, 3]]").encode()).car.slots == ((1, 1), (1, 3))
    line = L_DIRECTION + 1
    check(with_slots("3"), "[car].slots", line, "must be a list of [x, y] pairs")
    check(with_slots("[[1, 1], [1]]"), "[car].slots", line,
          "must be a pair of integers [a, b], got [1]")
    check(with_slots("[[1, 0]]"), "[car].slots", line, "slot (1, 0) is not asphalt in layer 0")
    check(with_slots("[[1, 1], [1, 1]]"), "[car].slots", line, "slot (1, 1) is listed twice")
    check(with_slots("[[1, 2]]"), "[car].slots", line, "slot (1, 2) is listed twice")
    check(with_slots("[[12, 1]]"), "[car].slots", line, "slot (12, 1) is off the grid 9x5")
    check(with_slots("[[3, 1]]"), "[car].slots", line,
          "slot (3, 1) is not on the side from which the start line is crossed (+x)")


# -- lines ----------------------------------------------------------------------------------


def test_line_shape_errors() -> None:
    check(sub("x = 6\ny = [1, 3]", "x = 6\ny = 2"), "[finish]", L_FINISH,
          "give exactly one boundary: x = k with y = [a, b], or y = k with x = [a, b]")
    check(sub("x = 6\ny = [1, 3]", "x = [6, 6]\ny = [1, 3]"), "[finish]", L_FINISH,
          "give exactly one boundary: x = k with y = [a, b], or y = k with x = [a, b]")
    check(sub("x = 6\ny = [1, 3]\n", "x = 6\n"), "[finish].y", L_FINISH,
          "missing: with x = k give y = [a, b]")
    check(sub("x = 6\ny = [1, 3]", "x = 6\ny = [3, 1]"), "[finish].y", L_FINISH_Y,
          "span [3, 1] is empty (need a <= b)")
    check(sub("x = 6\ny = [1, 3]", "x = 6\ny = [1, 3.5]"), "[finish].y", L_FINISH_Y,
          "must be a pair of integers [a, b], got [1, 3.5]")


def test_line_direction() -> None:
    check(sub('y = [1, 3]\ndir = "+x"\n\n[map]', 'y = [1, 3]\n\n[map]'), "[finish].dir",
          L_FINISH, "missing required key")
    check(sub('y = [1, 3]\ndir = "+x"\n\n[map]', 'y = [1, 3]\ndir = "+y"\n\n[map]'),
          "[finish].dir", L_FINISH_DIR, "must be +x or -x for a line at x = k, got '+y'")
    check(sub('y = [1, 3]\ndir = "+x"\n\n[finish]', 'y = [1, 3]\ndir = "x"\n\n[finish]'),
          "[start].dir", L_START_DIR, "must be +x or -x for a line at x = k, got 'x'")


def test_lines_off_the_grid() -> None:
    check(sub("x = 6\ny = [1, 3]", "x = 8\ny = [1, 3]"), "[finish].x", L_FINISH_X,
          "line x = 8 (boundary 8.5) is off the grid (needs 0 <= x <= 7)")
    check(sub("x = 6\ny = [1, 3]", "x = -1\ny = [1, 3]"), "[finish].x", L_FINISH_X,
          "line x = -1 (boundary -0.5) is off the grid (needs 0 <= x <= 7)")
    check(sub("x = 6\ny = [1, 3]", "x = 6\ny = [1, 5]"), "[finish].y", L_FINISH_Y,
          "span [1, 5] is off the grid (0..4)")
    check(sub('x = 1\ny = [1, 3]\ndir = "+x"', 'y = 4\nx = [1, 3]\ndir = "+y"'), "[start].y",
          L_START_X,
          "line y = 4 (boundary 4.5) is off the grid (needs 0 <= y <= 3)")


def test_line_layer() -> None:
    check(sub('x = 6\ny = [1, 3]\ndir = "+x"', 'x = 6\ny = [1, 3]\ndir = "+x"\nlayer = 1'),
          "[finish].layer", L_FINISH_DIR + 1, "layer 1 needs an [map].elevated grid")


def test_a_line_that_is_not_a_cut() -> None:
    # the finish spans rows 1..2 only: at row 3 both (6,3) and (7,3) are asphalt
    check(sub("x = 6\ny = [1, 3]", "x = 6\ny = [1, 2]"), "[finish]", L_FINISH,
          "the line is not a cut: an end does not touch off-track in layer 0, so a car could "
          "drive round it")
    # on the bridge's layer every cell beside the bridge is off-track: a one-cell line
    # across the bridge is a cut
    on_bridge = sub('x = 6\ny = [1, 3]\ndir = "+x"', 'x = 4\ny = [2, 2]\ndir = "+x"\nlayer = 1',
                    BRIDGE)
    assert parse_track(on_bridge.encode()).finish.layer == 1


def test_start_and_finish_same_or_intersecting() -> None:
    check(sub("x = 6\ny = [1, 3]", "x = 1\ny = [1, 3]"), "[finish]", L_FINISH,
          "start and finish are the same line")
    # F: y = 3/2 for x in [1/2, 15/2] crosses S (x = 3/2, y in [1/2, 7/2]) at (3/2, 3/2)
    cross = sub('x = 6\ny = [1, 3]\ndir = "+x"', 'y = 1\nx = [1, 7]\ndir = "+y"')
    check(cross, "[finish]", L_FINISH, "start and finish lines intersect")
    # F: y = 3/2 for x in [3/2, 15/2] only touches S's point (3/2, 3/2): still an
    # intersection (closed segments). (1,1) is walled so that F is a cut.
    touch = sub('x = 6\ny = [1, 3]\ndir = "+x"', 'y = 1\nx = [2, 7]\ndir = "+y"',
                sub("#########\n#.......#", "#########\n##......#"))
    check(touch, "[finish]", L_FINISH, "start and finish lines intersect")


def test_finish_reachable_without_start() -> None:
    # S at x = 7/2, F at x = 3/2: the car at (1,2) crosses F on its first step
    text = sub("x = 6\ny = [1, 3]", "x = 1\ny = [1, 3]",
               sub("x = 1\ny = [1, 3]", "x = 3\ny = [1, 3]"))
    check(text, "[finish]", L_FINISH,
          "the finish line can be crossed without crossing the start line first")


# -- the opening rule ---------------------------------------------------------------------


@pytest.mark.parametrize(("body", "where", "offset", "message"), [
    ("max_speed = 1", "[opening].moves", 0, "missing required key"),
    ("moves = 0", "[opening].moves", 1, "must be >= 1, got 0"),
    ('moves = "3"', "[opening].moves", 1, "must be an integer, got '3'"),
    ("moves = 2\nmax_speed = 0", "[opening].max_speed", 2, "must be >= 1, got 0"),
    ("moves = 2\nmax_speed = true", "[opening].max_speed", 2, "must be an integer, got True"),
    ("moves = 2\nstraight = 1", "[opening].straight", 2, "must be true or false, got 1"),
])
def test_opening_values(body: str, where: str, offset: int, message: str) -> None:
    text = BASE.replace("[map]", f"[opening]\n{body}\n\n[map]")
    check(text, where, L_MAP + offset, message)


def test_opening_parsed() -> None:
    text = BASE.replace("[map]", "[opening]\nmoves = 3\nmax_speed = 2\nstraight = true\n\n[map]")
    op = parse_track(text.encode()).opening
    assert op is not None and (op.moves, op.max_speed, op.straight) == (3, 2, True)
    op = parse_track(BASE.replace("[map]", "[opening]\nmoves = 1\n\n[map]").encode()).opening
    assert op is not None and (op.moves, op.max_speed, op.straight) == (1, None, False)


# -- the command line ---------------------------------------------------------------------


def test_cli_missing_file_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["validate", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"error: {missing}: cannot read file: No such file or directory\n"


def test_cli_bad_track_exits_2_with_one_line(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(sub('direction = "+x"', 'direction = "up"'))
    for command in ("validate", "analyze"):
        assert main([command, str(bad)]) == 2
        out, err = capsys.readouterr()
        assert out == ""
        assert err == (f"error: {bad}:{L_DIRECTION}: [car].direction: must be one of +x, -x, "
                       "+y, -y, got 'up'\n")


def test_cli_validates_a_good_track(capsys: pytest.CaptureFixture[str]) -> None:
    path = TRACKS / "tiny_straight.toml"
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"{path}: ok — 'Tiny straight', 10x3, 1 layer(s)\n" and err == ""
