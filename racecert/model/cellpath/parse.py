"""Read and write cell-path tracks: the two public map formats and a TOML form.

- The Momba / QComp map: a first line ``dim: H W``, then H rows of W characters,
  ``x`` blocked, ``.`` free, ``s`` start, ``g`` goal.
- The Bonet-Geffner / mdp-lib map: the width on line 1, the height on line 2, then H
  rows: ``X`` wall, space free, ``S`` start, ``G`` goal, ``o`` free (an "error" cell
  of the noisy variant; there is no noise here) and ``P`` blocked (a pothole, which
  ends a run as a wall does); ``x`` and ``.`` are read as wall and free too, since
  some published maps of this format draw their walls and blanks so. Editors strip
  trailing spaces, and a trailing space is a free cell, so a row shorter than W is
  padded with free cells; a longer one is an error.
- TOML: ``rules = "cell-path"``, ``name``, optional ``description``,
  ``max_acceleration`` (default 1) and ``speed_cap`` (default none), and
  ``map = '''...'''`` with rows in the Momba character set (the rows give the size).

A map file (a path ending in ``.track``, `racecert.model.parse.load_track`) has the
default rules A = 1, no cap, and is named by its file's stem. Every error is a
one-line `TrackError` naming the file, the line and the column. `to_toml` writes the
TOML form, which `parse_toml_doc` reads back to an equal track.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePath
from typing import Any

from racecert.model.cellpath.track import (
    CELL_CHARS,
    GOAL,
    MAX_ACCELERATION,
    MAX_SIDE,
    MAX_SPEED_CAP,
    START,
    CellPathTrack,
    start_cells,
)
from racecert.model.errors import TrackError

_MDP_LIB = {"X": "x", " ": ".", "S": "s", "G": "g", "o": ".", "P": "x", "x": "x", ".": "."}
_MOMBA = {c: c for c in CELL_CHARS}
_TOP_KEYS = {"rules", "name", "description", "max_acceleration", "speed_cap", "map"}
_NUMBER = "[0-9]{1,9}"
"""A size: ASCII digits only (`str.isdigit` and `\\d` accept other scripts' digits and
superscripts, which `int` refuses or reads), and few enough to stay a sane size."""
_DIM = re.compile(rf"dim:[ \t]*({_NUMBER})[ \t]+({_NUMBER})[ \t]*$")


def parse_map_bytes(data: bytes, path: str, name: str | None = None) -> CellPathTrack:
    """A map file's bytes (either format); its SHA-256 names the track."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrackError(path, "", f"not UTF-8 text (byte {exc.start})") from None
    return parse_map_text(text, path, name, sha256=hashlib.sha256(data).hexdigest())


def parse_map_text(text: str, path: str, name: str | None = None, *,
                   sha256: str | None = None) -> CellPathTrack:
    """A map in the Momba (``dim: H W``) or the mdp-lib (width, height) format.

    `name` defaults to the file's stem; `sha256` to that of the text's UTF-8 bytes.

    >>> parse_map_text("dim: 1 3\\ns.g\\n", "a/t.track")
    CellPathTrack('t', 3x1, 1 starts, 1 goal cells, A=1, path='a/t.track', sha256='fed05310fd44')
    """
    lines = text.replace("\r\n", "\n").split("\n")
    first = lines[0].strip()
    m = _DIM.match(first)
    if m is not None:
        height, width = int(m.group(1)), int(m.group(2))
        rows, chars, header, pad = lines[1:], _MOMBA, 1, False
    elif re.fullmatch(_NUMBER, first):
        second = lines[1].strip() if len(lines) > 1 else ""
        if not re.fullmatch(_NUMBER, second):
            raise TrackError(path, "height", f"line 2 must be the height (a number), got "
                             f"{second!r}", 2)
        width, height = int(first), int(second)
        rows, chars, header, pad = lines[2:], _MDP_LIB, 2, True
    else:
        raise TrackError(path, "", "not a cell-path map: line 1 must be 'dim: H W' (Momba) "
                         f"or the width (mdp-lib), got {first[:40]!r}", 1)
    for what, v in (("width", width), ("height", height)):
        if not 1 <= v <= MAX_SIDE:
            raise TrackError(path, what, f"{v} must be 1..{MAX_SIDE}", 1 if what == "width"
                             or m is not None else 2)
    grid = _rows(path, rows, width, height, chars, header, pad)
    sha = sha256 if sha256 is not None else hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _track(path, name or PurePath(path).stem, grid, header, 1, None, "", sha)


def _rows(path: str, rows: list[str], width: int, height: int, chars: dict[str, str],
          header: int, pad: bool) -> tuple[str, ...]:
    """The H grid rows in the Momba character set; lines after them must be blank."""
    if not pad:  # a Momba row has at least one cell: trailing blank lines are no rows
        while rows and rows[-1].strip() == "":
            rows = rows[:-1]
    while rows and rows[-1].strip() == "" and len(rows) > height:
        rows = rows[:-1]
    if len(rows) != height:  # the line named: the first missing, or the first extra one
        more = len(rows) > height
        raise TrackError(path, "", f"{len(rows)} grid rows after the header, expected "
                         f"{height}" + (" (the lines after them must be blank)" if more
                                        else ""), header + (height if more else len(rows)) + 1)
    out = []
    for y, r in enumerate(rows):
        line = header + y + 1
        if len(r) > width or (len(r) < width and not pad):
            raise TrackError(path, f"row {y}", f"has {len(r)} cells, expected {width}", line)
        for x, c in enumerate(r):
            if c not in chars:
                allowed = "".join(chars)
                raise TrackError(path, f"row {y}, column {x}", f"cell {c!r} is none of "
                                 f"{allowed!r}", line)
        out.append("".join(chars[c] for c in r) + "." * (width - len(r)))
    return tuple(out)


def _track(path: str, name: str, grid: tuple[str, ...], first_line: int,
           accel: int, cap: int | None, description: str, sha: str) -> CellPathTrack:
    """The track, after the start and goal checks (errors at the grid's first line)."""
    starts = start_cells(grid)
    if not starts:
        raise TrackError(path, "map", f"no start cell ({START!r})", first_line)
    if not any(GOAL in r for r in grid):
        raise TrackError(path, "map", f"no goal cell ({GOAL!r})", first_line)
    return CellPathTrack(name, len(grid[0]), len(grid), grid, starts, accel, cap,
                         description, sha, path)


def parse_toml_doc(doc: dict[str, Any], text: str, path: str, sha: str) -> CellPathTrack:
    """A TOML document with ``rules = "cell-path"`` (module docstring)."""
    lines = text.replace("\r\n", "\n").split("\n")

    def line_of(key: str) -> int | None:
        pat = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
        return next((i for i, t in enumerate(lines, 1) if pat.match(t)), None)

    def err(key: str, message: str) -> TrackError:
        return TrackError(path, key, message, line_of(key))

    for k in doc:
        if k not in _TOP_KEYS:
            raise err(k, f"unknown key (allowed: {', '.join(sorted(_TOP_KEYS))})")
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise err("name", "missing or empty (a string is required)")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise err("description", "must be a string")
    accel = _int(doc, "max_acceleration", 1, MAX_ACCELERATION, err, 1)
    cap = _int(doc, "speed_cap", 1, MAX_SPEED_CAP, err, None)
    if "map" not in doc:
        raise err("map", "missing required key (the grid rows, x . s g)")
    m = doc["map"]
    if not isinstance(m, str):
        raise err("map", "must be a string (a multi-line ''' string of rows)")
    start = line_of("map") or 0
    opener = re.search(r"('''|\"\"\")(.*)$", lines[start - 1]) if start else None
    row0 = start if opener is not None and opener.group(2).strip() else start + 1
    rows = m.split("\n")
    if rows and rows[-1] == "":
        rows = rows[:-1]
    if not rows or not rows[0]:
        raise TrackError(path, "map", "has no rows", start or None)
    width = len(rows[0])
    if len(rows) > MAX_SIDE or width > MAX_SIDE:
        raise TrackError(path, "map", f"grid {width}x{len(rows)}: each side must be "
                         f"1..{MAX_SIDE}", start or None)
    for y, r in enumerate(rows):
        if len(r) != width:
            raise TrackError(path, f"map row {y}", f"has {len(r)} cells, expected {width} "
                             "(the first row's)", row0 + y if start else None)
        for x, c in enumerate(r):
            if c not in CELL_CHARS:
                raise TrackError(path, f"map row {y}, column {x}", f"cell {c!r} is none "
                                 f"of {CELL_CHARS!r}", row0 + y if start else None)
    return _track(path, name, tuple(rows), start, accel, cap, description, sha)


def _int(doc: dict[str, Any], key: str, lo: int, hi: int, err: Any,
         default: int | None) -> int | None:
    if key not in doc:
        return default
    v = doc[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise err(key, f"must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise err(key, f"must be from {lo} to {hi}, got {v}")
    return v


def to_toml(track: CellPathTrack) -> str:
    """The TOML form of `track` (module docstring); `parse_toml_doc` reads it back.

    >>> print(to_toml(CellPathTrack("t", 3, 1, ("s.g",), ((0, 0),), speed_cap=2)), end="")
    rules = "cell-path"
    name = "t"
    max_acceleration = 1
    speed_cap = 2
    map = '''
    s.g
    '''
    """
    out = ['rules = "cell-path"', f"name = {_string(track.name)}"]
    if track.description:
        out.append(f"description = {_string(track.description)}")
    out.append(f"max_acceleration = {track.max_acceleration}")
    if track.speed_cap is not None:
        out.append(f"speed_cap = {track.speed_cap}")
    out += ["map = '''", *track.rows, "'''"]
    return "\n".join(out) + "\n"


def _string(s: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's (\\uXXXX for control characters;
    DEL, which JSON leaves as it is, escaped too)."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")
