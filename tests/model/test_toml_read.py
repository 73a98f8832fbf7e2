"""`read_toml` reads exactly what `tomllib` reads, only faster and within bounds.

Independent truth: `tomllib.loads` itself. For multi-line basic strings of
every shape (quotes, apostrophes, backslashes, escapes, tabs, CRLF, control
characters, extra closing quotes, unterminated) the document, or the error
message, must be the same; the scan must also skip brackets and long words
inside strings and comments, and count them outside.
"""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from racecert.model.errors import TrackError
from racecert.model.toml_read import _LITERAL_FROM, _scan, read_toml

_PIECES = ["#", ".", "=", " ", ":", "/", "\n", "\t", "'", "''", "'''", '"', '""', "\\", "\\n",
           "\\u00e9", "\\\n", "\r\n", "\r", "\x00", "\x1b", "\x7f", "é", "[", "{", "#x"]


def _same(text: str) -> None:
    try:
        expected = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        with pytest.raises(TrackError) as info:
            read_toml(text, "t.toml")
        assert info.value.message == f"TOML syntax error: {exc}"
        return
    assert read_toml(text, "t.toml") == expected


@given(st.lists(st.sampled_from(_PIECES), max_size=40), st.integers(0, 3),
       st.booleans())
def test_long_multiline_strings_read_as_tomllib_reads_them(pieces: list[str], extra: int,
                                                            closed: bool) -> None:
    body = "".join(pieces)
    pad = "." * (_LITERAL_FROM + 10)  # long enough for the literal fast path
    text = 'a = 1\ng = """\n' + pad + body + '"' * extra + ('"""\nb = 2\n' if closed else "")
    _same(text)
    _same(text.replace(pad, ""))  # and the same text, short


def test_a_grid_takes_the_fast_path_and_keeps_its_lines() -> None:
    grid = "\n".join(["#" * 50] * 40)
    text = f'name = "x"\nground = """\n{grid}\n"""\nkind = 3\n'
    assert _scan(text, "t.toml") == [(text.index('"""'), text.rindex('"""') + 3)]
    assert read_toml(text, "t.toml")["ground"] == grid + "\n"
    crlf = text.replace("\n", "\r\n")
    assert read_toml(crlf, "t.toml") == tomllib.loads(crlf)
    _same(text.replace("kind = 3", "kind = "))  # an error after it: same message and line


def test_escapes_keep_the_slow_path() -> None:
    body = "." * 2000 + "\\u0041"
    text = f'g = """{body}"""\n'
    assert _scan(text, "t.toml") == []
    assert read_toml(text, "t.toml") == {"g": "." * 2000 + "A"}


def test_depth_counts_only_outside_strings_and_comments() -> None:
    deep = "[" * 40
    assert _scan(f"a = '{deep}'\nb = \"{deep}\"  # {deep}\nc = '''{deep}'''\n", "t") == []
    with pytest.raises(TrackError) as info:
        _scan("x = 1\n" + "a = " + "[" * 33 + "]" * 33 + "\n", "t.toml")
    assert info.value.line == 2
    with pytest.raises(TrackError) as info:
        _scan("t = 1979-05-27\n\nx = " + "1" * 4301 + "\n", "t.toml")
    assert info.value.line == 3
    assert _scan("s = '" + "1" * 5000 + "'\n", "t") == []  # a long word inside a string
