"""Bad input beyond the ordinary messages: special files, sizes, nesting, huge numbers,
control characters, value ranges the engine represents, and lines no car can cross.

Each case must end in one `TrackError` (one printable line, exit 2 at the
command line), never a traceback; the limits are those of
`racecert.model.limits`, documented in docs/track-format.md.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from racecert.cli import main
from racecert.model import limits
from racecert.model import parse as parse_module
from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.states import StateCodec
from tests.model.test_parse import BASE, BRIDGE, L_FINISH, L_MAP, L_NAME, L_POSITION, sub
from tests.strategies import TRACKS


def error(text: str | bytes) -> TrackError:
    with pytest.raises(TrackError) as info:
        parse_track(text if isinstance(text, bytes) else text.encode(), "t.toml")
    e = info.value
    assert str(e).isprintable() and len(str(e)) < 400, str(e)
    return e


def with_opening(body: str) -> str:
    return BASE.replace("[map]", f"[opening]\n{body}\n\n[map]")


# -- files that are not track files -----------------------------------------------------


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "t.toml"
    os.mkfifo(fifo)
    with pytest.raises(TrackError) as info:
        load_track(fifo)  # no writer: opening it for reading would block forever
    assert info.value.message == "not a regular file (a FIFO): a track must be a file"


def test_a_device_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "/dev/zero"]) == 2
    assert capsys.readouterr().err == ("error: /dev/zero: not a regular file (a character "
                                       "device): a track must be a file\n")


def test_a_directory_keeps_the_system_reason(tmp_path: Path) -> None:
    with pytest.raises(TrackError) as info:
        load_track(tmp_path)
    assert info.value.message == "cannot read file: Is a directory"


def test_a_file_over_the_size_cap_is_refused_before_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: nothing is written but the size
        f.truncate(limits.MAX_FILE_BYTES + 1)
    with pytest.raises(TrackError) as info:
        load_track(big)
    assert info.value.message == "file larger than the limit of 67,108,864 bytes (64 MiB)"
    # The boundary, on a cap of 4 MiB (parsing 64 MiB of zeros costs seconds): a file at
    # the cap is read (and is not TOML), one byte more is refused.
    monkeypatch.setattr(parse_module, "MAX_FILE_BYTES", 4 * 2**20)
    at_cap = tmp_path / "cap.toml"
    with open(at_cap, "wb") as f:
        f.truncate(4 * 2**20)
    assert "larger than" not in str(pytest.raises(TrackError, load_track, at_cap).value)
    with open(at_cap, "ab") as f:
        f.write(b"\0")
    assert "larger than the limit of 4,194,304 bytes" in str(
        pytest.raises(TrackError, load_track, at_cap).value)


def test_parse_track_takes_text_or_bytes_and_names_it_by_the_utf8_bytes() -> None:
    text = BASE.replace("Base", "Bäse")
    a, b = parse_track(text, "t.toml"), parse_track(text.encode(), "t.toml")
    assert a == b and a.sha256 == b.sha256 and a.name == "Bäse"
    e = error(b"x" * (limits.MAX_FILE_BYTES + 1))
    assert e.message.startswith("file larger than the limit")
    with pytest.raises(TrackError) as info:
        parse_track("name = '\ud800'", "t.toml")  # a lone surrogate has no UTF-8 form
    assert info.value.message == "not valid Unicode text (character 8)"


# -- TOML structure --------------------------------------------------------------------


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ("{a = ", "}")])
@pytest.mark.parametrize("depth", [33, 5000])
def test_nesting_deeper_than_the_limit(opening: str, closing: str, depth: int) -> None:
    text = sub('kind = "stage"', 'kind = "stage"\nx = ' + opening * depth + "1" + closing * depth)
    e = error(text)
    assert (e.where, e.line) == ("", 3)
    assert e.message == "arrays or inline tables nested more than 32 levels deep"


def test_nesting_at_the_limit_reaches_the_ordinary_checks() -> None:
    e = error(sub('kind = "stage"', 'kind = "stage"\nx = ' + "[" * 32 + "]" * 32))
    assert (e.where, e.message) == ("x", "unknown key (allowed: car, description, finish, "
                                         "kind, map, name, opening, start)")


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    deep = "[" * 100 + "{" * 100
    text = sub('name = "Base"', f'name = "{deep}" # {deep}').replace(
        "kind = ", f"description = '''{deep}'''\nkind = ")
    assert parse_track(text.encode()).name == deep


def test_a_number_too_long_to_read() -> None:
    e = error(with_opening("moves = " + "9" * 4301))
    assert (e.where, e.line) == ("", L_MAP + 1)
    assert e.message == "a number or bare key of more than 4300 characters"


def test_the_readers_own_digit_limit_is_a_clean_error() -> None:
    # a backstop behind the scan: with a lower conversion limit, tomllib's int() refuses
    # a literal the scan lets through
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(1000)
    try:
        e = error(with_opening("moves = " + "9" * 1001))
    finally:
        sys.set_int_max_str_digits(old)
    assert (e.line, e.message) == (L_MAP + 1, "a number of more than 1000 digits")


def test_integers_beyond_int64_are_named_by_size() -> None:
    huge = "0x" + "f" * 1000  # 4000 bits: read by TOML, outside every range
    e = error(sub("position = [1, 2]", f"position = [{huge}, 2]"))
    assert (e.where, e.line) == ("[car].position", L_POSITION)
    assert e.message == ("must be an integer in -9223372036854775808..9223372036854775807, "
                         "got <an integer of 4000 bits>")
    e = error(with_opening(f"moves = {huge}"))
    assert e.message == "must be <= 2147483646, got <an integer of 4000 bits>"


def test_long_values_are_shortened_in_messages() -> None:
    e = error(sub('direction = "+x"', f'direction = "{"u" * 100_000}"'))
    assert e.message.startswith("must be one of +x, -x, +y, -y, got 'uuuu")
    assert len(e.message) < 120


# -- keys and names ---------------------------------------------------------------------


@pytest.mark.parametrize(("escape", "shown"), [("\\n", "\\n"), ("\\r", "\\r"),
                                               ("\\u2028", "\\u2028"), ("\\u0000", "\\x00"),
                                               ("\\u001b", "\\x1b")])
def test_a_key_with_a_control_character_is_reported_on_one_line(escape: str,
                                                                shown: str) -> None:
    e = error(sub('direction = "+x"', f'direction = "+x"\n"a{escape}b" = 1'))
    assert e.where == f"[car].'a{shown}b'" and e.message.startswith("unknown key")


def test_a_name_with_control_characters_is_refused() -> None:
    for raw, shown, at in (("\\u001b[31m", "'\\x1b'", 0), ("a\\tb", "'\\t'", 1),
                           ("x\\u2028", "'\\u2028'", 1), ("\\u0085", "'\\x85'", 0)):
        e = error(sub('name = "Base"', f'name = "{raw}Base"'))
        assert (e.where, e.line) == ("name", L_NAME)
        assert e.message == (f"contains the control character {shown} at index {at} "
                             "(a name is one line of plain text)")
    ok = parse_track(sub('name = "Base"', 'name = "Óvalo\u00a0№ 3 — 東京"').encode())
    assert ok.name == "Óvalo\u00a0№ 3 — 東京"


# -- value ranges ------------------------------------------------------------------------


def test_opening_moves_within_the_int32_phase() -> None:
    e = error(with_opening("moves = 2147483648"))
    assert (e.where, e.line) == ("[opening].moves", L_MAP + 1)
    assert e.message == "must be <= 2147483646, got 2147483648"
    assert parse_track(with_opening("moves = 2147483646").encode()).opening.moves == 2**31 - 2


def test_opening_moves_within_the_state_keys_of_the_grid() -> None:
    row = "#" + "." * 118 + "#"
    ground = "\n".join(["#" * 120] + [row] * 118 + ["#" * 120])
    text = BASE.replace(BASE[BASE.index('ground = """'):], f'ground = """\n{ground}\n"""\n')
    text = text.replace("y = [1, 3]", "y = [1, 118]")
    room = limits.max_opening_moves(120, 120)
    assert room < limits.MAX_OPENING_MOVES
    assert StateCodec(120, 120, room + 1).key_bound <= limits.STATE_KEY_LIMIT
    assert StateCodec(120, 120, room + 2).key_bound > limits.STATE_KEY_LIMIT
    e = error(text.replace("[map]", f"[opening]\nmoves = {room + 1}\n\n[map]"))
    assert e.message == (f"must be <= {room} on a 120x120 grid (its state keys must fit in "
                         f"64 bits), got {room + 1}")
    ok = parse_track(text.replace("[map]", f"[opening]\nmoves = {room}\n\n[map]").encode())
    assert ok.opening is not None and ok.opening.moves == room


def test_the_key_bound_formula_is_the_codecs() -> None:
    for w, h, k in ((10, 3, 0), (7, 5, 3), (4000, 4000, 1125), (1, 1, 2**31 - 2)):
        assert limits.state_key_bound(w, h, k) == StateCodec(w, h, k + 1).key_bound


def test_max_speed_within_int32() -> None:
    e = error(with_opening("moves = 2\nmax_speed = 2147483648"))
    assert (e.where, e.message) == ("[opening].max_speed", "must be <= 2147483647, got "
                                                           "2147483648")


def test_the_largest_values_run_through_the_analysis(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    track = tmp_path / "t.toml"
    track.write_text((TRACKS / "tiny_straight.toml").read_text()
                     + "\n[opening]\nmoves = 2147483646\nmax_speed = 2147483647\n")
    assert main(["analyze", str(track), "--json"]) == 0
    assert '"m_star": 3' in capsys.readouterr().out


def test_grid_size_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    import racecert.model.validate as v
    monkeypatch.setattr(v, "MAX_SIDE", 8)
    e = error(BASE)
    assert (e.where, e.message) == ("[map].ground", "the grid is 9x5: at most 8 cells a side "
                                                    f"and {limits.MAX_CELLS} in all")
    monkeypatch.setattr(v, "MAX_SIDE", 9)
    monkeypatch.setattr(v, "MAX_CELLS", 44)
    assert error(BASE).message == "the grid is 9x5: at most 9 cells a side and 44 in all"


# -- lines no car can cross ----------------------------------------------------------------


def test_a_line_on_an_empty_elevated_layer_is_refused() -> None:
    empty = BASE.replace('#########\n"""\n', '#########\n"""\nelevated = """\n\n"""\n')
    text = sub('x = 6\ny = [1, 3]\ndir = "+x"', 'x = 6\ny = [1, 3]\ndir = "+x"\nlayer = 1',
               empty)
    e = error(text)
    assert (e.where, e.line) == ("[finish]", L_FINISH)
    assert e.message == ("the line cannot be crossed: no two cells drivable in layer 1 face "
                         "each other across it")


def test_a_line_crossable_only_at_its_end_corner_is_accepted() -> None:
    # F: x = 11/2 over row 2 only. (5,2) is a wall, so no side step crosses it; the
    # corner step (5,1) -> (6,2) crosses it at its end point (11/2, 3/2). Its ends
    # touch off-track: (6,1) above, (5,3) and (6,3) below.
    ground = "#########\n#.....#.#\n#....#..#\n#....####\n#########"
    text = BASE.replace(BASE[BASE.index('ground = """'):], f'ground = """\n{ground}\n"""\n')
    text = sub("x = 6\ny = [1, 3]", "x = 5\ny = [2, 2]", text)
    t = parse_track(text.encode())
    assert (t.finish.k, t.finish.lo, t.finish.hi) == (5, 2, 2)
    e = error(sub("#.....#.#", "#....##.#", text))  # wall (5,1): nothing faces across
    assert (e.where, e.message) == ("[finish]", "the line cannot be crossed: no two cells "
                                                "drivable in layer 0 face each other across it")


def test_a_bridge_line_is_still_crossable() -> None:
    on_bridge = sub('x = 6\ny = [1, 3]\ndir = "+x"', 'x = 4\ny = [2, 2]\ndir = "+x"\nlayer = 1',
                    BRIDGE)
    assert parse_track(on_bridge.encode()).finish.layer == 1


def test_the_readers_recursion_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # a backstop behind the scan: with the depth limit lifted, tomllib's own recursion
    # ends in RecursionError, which is turned into the same kind of line
    import racecert.model.toml_read as toml_read
    monkeypatch.setattr(toml_read, "MAX_NESTING", 10**6)
    e = error(sub('kind = "stage"', 'kind = "stage"\nx = ' + "[" * 5000 + "]" * 5000))
    assert e.message == "arrays or inline tables nested too deeply (at most 1000000 levels)"


def test_an_error_is_one_line_whatever_the_path_holds(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    odd = tmp_path / "a\nb\u2028c.toml"
    odd.write_text(sub('direction = "+x"', 'direction = "up"'))
    assert main(["validate", str(odd)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err[:-1].isprintable()
    assert "a\\nb\\u2028c.toml:6: [car].direction: must be one of" in err
