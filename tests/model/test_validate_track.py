"""`validate_track`: a Track built in code is checked exactly like a track file.

Two independent routes to the same mistake: the TOML text with one change
(through `parse_track`) and the parsed Track with the same change made on the
dataclass (through `validate_track`) must give the same place and message;
only the file line is missing on the code route. Valid tracks come back equal.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given

from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track, validate_track
from racecert.model.track import Car, Line, Opening, Track
from tests.model.test_parse import BASE, BRIDGE, sub
from tests.strategies import TRACKS, small_tracks

T = parse_track(BASE.encode(), "t.toml")
TB = parse_track(BRIDGE.encode(), "t.toml")


def code_error(track: Track) -> TrackError:
    with pytest.raises(TrackError) as info:
        validate_track(track)
    return info.value


def file_error(text: str) -> TrackError:
    with pytest.raises(TrackError) as info:
        parse_track(text.encode(), "t.toml")
    return info.value


def test_every_bundled_track_is_valid_in_code() -> None:
    paths = sorted(TRACKS.glob("*.toml")) + sorted(TRACKS.glob("limits/*.toml"))
    for path in paths:
        t = load_track(path)
        assert validate_track(t) == t


@given(small_tracks())
def test_generated_tracks_are_valid_in_code(g) -> None:  # noqa: ANN001
    assert validate_track(g.track) == g.track


def _car(**kw: object) -> Car:
    return dataclasses.replace(T.car, **kw)


# (the TOML change, the same change on the Track)
SAME_MISTAKE = [
    (('position = [1, 2]', 'position = [1, 0]'), {"car": _car(position=(1, 0))}),
    (('position = [1, 2]', 'position = [9, 2]'), {"car": _car(position=(9, 2))}),
    (('position = [1, 2]', 'position = [2, 2]'), {"car": _car(position=(2, 2))}),
    (('position = [1, 2]', 'position = [1, true]'), {"car": _car(position=(1, True))}),
    (('direction = "+x"', 'direction = "east"'), {"car": _car(direction="east")}),
    (('direction = "+x"', 'direction = "+x"\nlayer = 2'), {"car": _car(layer=2)}),
    (('direction = "+x"', 'direction = "+x"\nlayer = 1'), {"car": _car(layer=1)}),
    (('direction = "+x"', 'direction = "+x"\nslots = [[1, 1], [1, 1]]'),
     {"car": _car(slots=((1, 1), (1, 1)))}),
    (('name = "Base"', 'name = "  "'), {"name": "  "}),
    (('name = "Base"', 'name = "a\\u0007"'), {"name": "a\x07"}),
    (('kind = "stage"', 'kind = "rally"'), {"kind": "rally"}),
    (("x = 6\ny = [1, 3]", "x = 8\ny = [1, 3]"), {"finish": Line("x", 8, 1, 3, "+x")}),
    (("x = 6\ny = [1, 3]", "x = 6\ny = [3, 1]"), {"finish": Line("x", 6, 3, 1, "+x")}),
    (("x = 6\ny = [1, 3]", "x = 6\ny = [1, 2]"), {"finish": Line("x", 6, 1, 2, "+x")}),
    (("x = 6\ny = [1, 3]", "x = 1\ny = [1, 3]"), {"finish": Line("x", 1, 1, 3, "+x")}),
    (('y = [1, 3]\ndir = "+x"\n\n[map]', 'y = [1, 3]\ndir = "+y"\n\n[map]'),
     {"finish": Line("x", 6, 1, 3, "+y")}),  # type: ignore[arg-type]
    (("x = 1\ny = [1, 3]", "x = 7\ny = [1, 3]"), {"start": Line("x", 7, 1, 3, "+x")}),
    (("#.......#\n#.......#\n#.......#", "#.......#\n#...x...#\n#.......#"),
     {"ground": ("#########", "#.......#", "#...x...#", "#.......#", "#########")}),
    (("#.......#\n#.......#\n#.......#", "#.......#\n#./.....#\n#.......#"),
     {"ground": ("#########", "#.......#", "#./.....#", "#.......#", "#########")}),
    (("[map]", "[opening]\nmoves = 0\n\n[map]"), {"opening": Opening(0)}),
    (("[map]", "[opening]\nmoves = 2147483648\n\n[map]"), {"opening": Opening(2**31)}),
    (("[map]", "[opening]\nmoves = 2\nmax_speed = 0\n\n[map]"), {"opening": Opening(2, 0)}),
    (("[map]", "[opening]\nmoves = 2\nstraight = 1\n\n[map]"),
     {"opening": Opening(2, None, 1)}),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("change", "fields"), SAME_MISTAKE,
                         ids=[f"{c[1][:24]!r}" for c, _ in SAME_MISTAKE])
def test_the_same_mistake_gives_the_same_error(change: tuple[str, str],
                                               fields: dict[str, object]) -> None:
    from_file = file_error(sub(*change))
    from_code = code_error(dataclasses.replace(T, **fields))  # type: ignore[arg-type]
    assert (from_code.path, from_code.where, from_code.message, from_code.line) == (
        "t.toml", from_file.where, from_file.message, None)


def test_a_bridge_line_and_a_car_on_the_bridge() -> None:
    e = code_error(dataclasses.replace(TB, car=dataclasses.replace(TB.car, layer=1)))
    assert (e.where, e.message) == ("[car].position", "(1, 2) is not asphalt in layer 1 "
                                                      "(found '#')")
    on_bridge = dataclasses.replace(TB, finish=Line("x", 4, 2, 2, "+x", 1))
    assert validate_track(on_bridge) == on_bridge
    empty = dataclasses.replace(on_bridge, elevated=("", "", "  /   /"))  # ramps only
    assert code_error(empty).message == ("the line cannot be crossed: no two cells drivable "
                                         "in layer 1 face each other across it")


def test_mistakes_only_code_can_make() -> None:
    assert code_error(dataclasses.replace(T, width=10)).message == (
        "must be the grid's width 9, got 10")
    assert code_error(dataclasses.replace(T, height=0)).where == "height"
    e = code_error(dataclasses.replace(T, ground="#########"))  # type: ignore[arg-type]
    assert (e.where, e.message) == ("[map].ground", "must be a sequence of row strings, got "
                                                    "'#########'")
    e = code_error(dataclasses.replace(T, car=(1, 2)))  # type: ignore[arg-type]
    assert (e.where, e.message) == ("car", "must be a Car, got (1, 2)")
    e = code_error(dataclasses.replace(T, start=Line("z", 1, 1, 3, "+x")))  # type: ignore
    assert e.where == "[start]" and e.message.startswith("give exactly one boundary")
    e = code_error(dataclasses.replace(T, start=Line("x", 1.0, 1, 3, "+x")))  # type: ignore
    assert (e.where, e.message) == ("[start].x", "must be an integer, got 1.0")
    e = code_error(dataclasses.replace(T, car=_car(slots=[(1, 1), 3])))  # type: ignore
    assert (e.where, e.message) == ("[car].slots", "must be a pair of integers [a, b], got 3")
    with pytest.raises(TrackError) as info:
        validate_track("tracks/ocho.toml")  # type: ignore[arg-type]
    assert info.value.message == "not a Track: 'tracks/ocho.toml'"


def test_the_path_names_the_track() -> None:
    unnamed = dataclasses.replace(T, path="", car=_car(position=(1, 0)))
    assert str(code_error(unnamed)).startswith("<track>: [car].position: ")


def test_rows_given_as_lists_come_back_as_tuples() -> None:
    t = dataclasses.replace(T, ground=list(T.ground),  # type: ignore[arg-type]
                            car=_car(position=[1, 2], slots=[[1, 1]]))  # type: ignore
    checked = validate_track(t)
    assert checked.ground == T.ground and checked.car.position == (1, 2)
    assert checked.car.slots == ((1, 1),)


def test_load_track_path_types(tmp_path: Path) -> None:
    p = tmp_path / "t.toml"
    p.write_text(BASE)
    assert load_track(p) == load_track(str(p)) == T


def test_the_documented_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    import doctest
    root = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(root)  # the example loads tracks/tiny_straight.toml
    result = doctest.testfile(str(root / "docs" / "track-format.md"), module_relative=False)
    assert result.attempted >= 5 and result.failed == 0
