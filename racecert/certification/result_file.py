"""Read another engine's RESULT.json with bounds on everything (docs/crosscheck.md).

A file under test may be anything: a FIFO, a device, megabytes of brackets,
bytes that are not UTF-8, an integer of 5,000 digits, `NaN`. `read_result_file`
turns each of these into one `ResultError` line naming the place, before any
JSON value is built:

- a regular file of at most `MAX_RESULT_BYTES` bytes (a FIFO or device is refused
  before it is opened for reading, so nothing blocks);
- UTF-8 (a leading byte-order mark is allowed);
- arrays and objects nested at most `MAX_DEPTH` deep (checked by a scan of the
  text, so the JSON decoder never recurses deeper);
- JSON integers of at most `MAX_DIGITS` digits; `NaN` / `Infinity` refused.

>>> decode_result('{"m_star": 4}')
{'m_star': 4}
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

import numpy as np

MAX_RESULT_BYTES = 4 * 1024 * 1024
MAX_DEPTH = 16
MAX_DIGITS = 1000

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OPEN = np.array([ord("["), ord("{")], dtype=np.uint32)
_CLOSE = np.array([ord("]"), ord("}")], dtype=np.uint32)


class ResultError(ValueError):
    """The RESULT.json cannot be used; the message names the place and the problem."""


def read_result_file(path: str) -> Any:
    """The decoded JSON value of the file at `path`, or ResultError (see the module docstring).

    The message does not repeat the path; the caller prefixes it.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise ResultError("not a regular file")
        if info.st_size > MAX_RESULT_BYTES:
            raise ResultError(_too_big(info.st_size))
        with open(path, "rb") as fh:
            data = fh.read(MAX_RESULT_BYTES + 1)
    except OSError as exc:
        raise ResultError(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_RESULT_BYTES:
        raise ResultError(_too_big(len(data)))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ResultError(f"not UTF-8: byte {exc.start} (line {line}) is "
                          f"0x{data[exc.start]:02x}") from None
    return decode_result(text)


def _too_big(size: int) -> str:
    return f"{size} bytes; a RESULT.json may have at most {MAX_RESULT_BYTES} bytes"


def decode_result(text: str) -> Any:
    """Decode JSON text with bounded nesting and integer sizes; ResultError otherwise."""
    _check_depth(text)
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ResultError(f"malformed JSON at line {exc.lineno} column {exc.colno}: "
                          f"{exc.msg}") from None
    except RecursionError:  # cannot happen after _check_depth; kept as a last guard
        raise ResultError(f"nested deeper than {MAX_DEPTH}") from None


def _check_depth(text: str) -> None:
    """ResultError naming the line and column where arrays/objects nest past MAX_DEPTH.

    Strings are blanked (same length, so positions stay), then the running depth is
    a cumulative sum over the brackets. A prefix where it goes negative is already
    malformed JSON, which the decoder rejects there, so no clamping is needed.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    blanked = _STRING.sub(lambda m: " " * len(m.group()), text)
    codes = np.frombuffer(blanked.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    step = (np.isin(codes, _OPEN).astype(np.int32) - np.isin(codes, _CLOSE).astype(np.int32))
    over = np.flatnonzero(np.cumsum(step) > MAX_DEPTH)
    if over.size:
        at = int(over[0])
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise ResultError(f"arrays and objects nested deeper than {MAX_DEPTH} "
                          f"at line {line} column {col}")


def _bounded_int(token: str) -> int:
    digits = len(token) - token.startswith("-")
    if digits > MAX_DIGITS:
        raise ResultError(f"an integer of {digits} digits; at most {MAX_DIGITS} are allowed")
    return int(token)


def _no_constant(token: str) -> Any:
    raise ResultError(f"{token} is not a JSON number (only finite numbers are allowed)")
