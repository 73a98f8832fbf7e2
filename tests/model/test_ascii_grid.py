"""ASCII maps (`#` `.` `S` `F`): import, export, their round trip, and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racecert.cli import main
from racecert.model.ascii_grid import ascii_to_toml, parse_rows, to_ascii
from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Line, Track

ROOT = Path(__file__).resolve().parents[2]

STAGE = """\
#########
#S......#
#S......#
#######F#
"""


def test_a_stage_map_becomes_a_track_with_its_lines_on_the_run_boundaries() -> None:
    t = parse_track(ascii_to_toml(parse_rows(STAGE), "stage"), "stage.toml")
    assert isinstance(t, Track)
    assert (t.car.position, t.car.slots, t.car.direction) == ((1, 1), ((1, 2),), "+x")
    assert t.start == Line("x", 1, 1, 2, "+x")   # ahead of the S column: boundary x = 1.5
    assert t.finish == Line("y", 2, 7, 7, "+y")  # before the F cell: boundary y = 2.5
    assert t.ground[3] == "#######.#"


def test_export_gives_back_the_map_and_the_bundled_straight_round_trips() -> None:
    t = parse_track(ascii_to_toml(parse_rows(STAGE), "stage"), "stage.toml")
    assert isinstance(t, Track)
    assert to_ascii(t) == STAGE
    straight = load_track(ROOT / "tracks" / "tiny_straight.toml")
    assert isinstance(straight, Track)
    back = parse_track(ascii_to_toml(parse_rows(to_ascii(straight)), "x"))
    assert (back.ground, back.car, back.start, back.finish) == (
        straight.ground, straight.car, straight.start, straight.finish)


@pytest.mark.parametrize(("name", "why"), [
    ("ocho", "elevated layer"), ("arcenes", "shoulders"), ("apertura", "opening rule"),
    ("espiral", "car cells are not exactly"), ("tiny_circuit_nocont", "overlap"),
])
def test_export_refuses_what_the_format_cannot_say(name: str, why: str) -> None:
    t = load_track(ROOT / "tracks" / f"{name}.toml")
    assert isinstance(t, Track)
    with pytest.raises(TrackError, match=why):
        to_ascii(t)


LEFTWARD = """\
name = "leftward"
[car]
position = [%d, 1]
direction = "-x"
slots = [[%d, 2]]
[start]
x = %d
y = [1, 2]
dir = "-x"
[finish]
x = 1
y = [1, 2]
dir = "-x"
[map]
ground = \"\"\"
%s
%s
%s
%s
\"\"\"
"""


def test_export_refuses_a_line_that_the_import_rule_would_read_as_another() -> None:
    wall, inner = "#" * 10, "#" + "." * 8 + "#"
    # the car on column 8 against the wall, driving left: the rule finds +x walled, so -x
    ok = parse_track(LEFTWARD % (8, 8, 7, wall, inner, inner, wall))
    assert isinstance(ok, Track)
    assert to_ascii(ok).splitlines()[1] == "#F......S#"
    # the same with a free column behind the car: the rule would read the line as +x
    moved = parse_track(LEFTWARD % (7, 7, 6, wall, inner, inner, wall))
    assert isinstance(moved, Track)
    with pytest.raises(TrackError, match="would read back as another, invalid track"):
        to_ascii(moved)
    # the car on the second S cell in reading order: read back, it would be on the first
    swapped = parse_track(LEFTWARD.replace("position = [%d, 1]", "position = [%d, 2]")
                          .replace("slots = [[%d, 2]]", "slots = [[%d, 1]]")
                          % (8, 8, 7, wall, inner, inner, wall))
    assert isinstance(swapped, Track)
    with pytest.raises(TrackError, match="car position would read back as another"):
        to_ascii(swapped)


@st.composite
def maps(draw: st.DrawFn) -> str:
    """A walled rectangle crossed by an S column and, further on, an F column (both
    wall to wall, so both lines are cuts), with a few inner walls between them, or the
    same transposed (rows instead of columns)
    (never in the last inner row, which stays open: F is always reachable)."""
    w, h = draw(st.integers(7, 12)), draw(st.integers(4, 8))
    rows = [["#"] * w] + [["#"] + ["."] * (w - 2) + ["#"] for _ in range(h - 2)] + [["#"] * w]
    sx = draw(st.integers(1, w - 6))
    fx = draw(st.integers(sx + 4, w - 2))
    for y in range(1, h - 1):
        rows[y][sx], rows[y][fx] = "S", "F"
    for _ in range(draw(st.integers(0, 3))):  # inner walls, off the cells beside the runs
        x, y = draw(st.integers(sx + 2, fx - 2)), draw(st.integers(1, h - 3))
        rows[y][x] = "#"
    if draw(st.booleans()):  # transposed: S and F rows, lines y = k crossed +y
        rows = [list(col) for col in zip(*rows, strict=True)]
    return "".join("".join(r) + "\n" for r in rows)


@settings(max_examples=60, deadline=None)
@given(maps())
def test_export_of_an_import_is_the_map_again(text: str) -> None:
    t = parse_track(ascii_to_toml(parse_rows(text), "m"), "m.toml")
    assert isinstance(t, Track)
    assert to_ascii(t) == text
    assert parse_track(ascii_to_toml(parse_rows(to_ascii(t)), "m"), "m.toml") == t


@pytest.mark.parametrize(("text", "message"), [
    ("", "the map is empty"),
    ("#x#\n", "bad character 'x'"),
    ("###\n#.\n", "rows must all have the same length"),
    ("#S.F#\n#..S#\n", "one straight unbroken run"),
    ("#..F#\n", "no 'S' cell"),
    ("#S..#\n", "no 'F' cell"),
    ("#SF#\n", "no side free of walls"),
])
def test_malformed_maps_are_one_line_errors_exit_2(tmp_path: Path, text: str, message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(text)
    assert main(["import", "ascii", str(f)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("error: ")


def test_a_missing_file_or_a_folder_is_one_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "ascii", str(tmp_path / "none.txt")]) == 2
    assert "cannot read file" in capsys.readouterr().err
    assert main(["import", "ascii", str(tmp_path)]) == 2
    assert "cannot read file: Is a directory" in capsys.readouterr().err


def test_the_cli_imports_and_exports_atomically(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "stage.txt"
    src.write_text(STAGE)
    toml, txt = tmp_path / "stage.toml", tmp_path / "back.txt"
    assert main(["import", "ascii", str(src), "-o", str(toml)]) == 0
    assert main(["export", "ascii", str(toml), "-o", str(txt)]) == 0
    assert txt.read_text() == STAGE
    assert main(["export", "ascii", str(ROOT / "tracks" / "ocho.toml")]) == 2
    assert "elevated layer" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["back.txt", "stage.toml", "stage.txt"]
