"""Reading a RESULT.json: every malformed or oversized file is one ResultError line."""

from __future__ import annotations

import doctest
import os
import re
from pathlib import Path

import pytest

from racecert.certification import result_file
from racecert.certification.result_file import (
    MAX_DEPTH,
    MAX_DIGITS,
    MAX_RESULT_BYTES,
    ResultError,
    decode_result,
    read_result_file,
)


def test_doctests() -> None:
    assert doctest.testmod(result_file).failed == 0


def _read(tmp_path: Path, data: bytes):
    f = tmp_path / "r.json"
    f.write_bytes(data)
    return read_result_file(str(f))


def test_a_plain_file_reads(tmp_path: Path) -> None:
    assert _read(tmp_path, b'{"m_star": 4, "green": "5"}') == {"m_star": 4, "green": "5"}


def test_a_byte_order_mark_is_allowed(tmp_path: Path) -> None:
    assert _read(tmp_path, b'\xef\xbb\xbf{"m_star": 4}') == {"m_star": 4}


@pytest.mark.parametrize("data, words", [
    (b'{"m_star": 4,\n "k": "\xff"}', "not UTF-8: byte 21 (line 2) is 0xff"),
    (b'{"m_star": 4,,}', "malformed JSON at line 1 column 14"),
    (b"[" * 1000 + b"]" * 1000, f"nested deeper than {MAX_DEPTH} at line 1 column {MAX_DEPTH + 1}"),
    (b'{"a":\n' + b"[" * 20 + b"]" * 20 + b"}", "line 2 column 16"),
    (b'{"n": ' + b"7" * 4301 + b"}", "an integer of 4301 digits"),
    (b'{"n": -' + b"7" * (MAX_DIGITS + 1) + b"}", f"of {MAX_DIGITS + 1} digits"),
    (b'{"n": NaN}', "NaN is not a JSON number"),
    (b'{"n": -Infinity}', "-Infinity is not a JSON number"),
    (b"", "malformed JSON"),
])
def test_bad_files_are_one_line(tmp_path: Path, data: bytes, words: str) -> None:
    with pytest.raises(ResultError, match=re.escape(words)) as info:
        _read(tmp_path, data)
    assert "\n" not in str(info.value)


def test_brackets_inside_strings_do_not_count() -> None:
    text = '{"a": "' + "[" * 100 + '\\"[[["}'
    assert decode_result(text) == {"a": "[" * 100 + '"[[['}


def test_nesting_at_the_limit_is_allowed() -> None:
    assert decode_result("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    with pytest.raises(ResultError, match="nested deeper"):
        decode_result("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


def test_a_big_file_is_refused_before_decoding(tmp_path: Path) -> None:
    with pytest.raises(ResultError, match=f"at most {MAX_RESULT_BYTES} bytes"):
        _read(tmp_path, b" " * (MAX_RESULT_BYTES + 1))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ResultError, match="not a regular file"):
        read_result_file(str(fifo))


@pytest.mark.parametrize("path, words", [
    ("/dev/null", "not a regular file"),
    ("/nonexistent/r.json", "cannot read: No such file"),
])
def test_special_and_missing_files(path: str, words: str) -> None:
    with pytest.raises(ResultError, match=words):
        read_result_file(path)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultError, match="not a regular file"):
        read_result_file(str(tmp_path))
