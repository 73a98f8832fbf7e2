"""Parse and validate track files (TOML, docs/track-format.md).

`load_track(path)` returns a `Track` or raises `TrackError` naming the file,
the key or the grid row and column (with its line in the file), and what is
wrong. Validation is strict: unknown keys and bad characters are errors,
because a silently ignored typo would change the numbers racecert certifies.

This module reads the file and the TOML structure (tables, keys, the shape
of each value); the checks of the values themselves live in
`racecert.model.validate`, shared with `validate_track` for tracks built in
code. Reading is bounded: only regular files of at most `MAX_FILE_BYTES`,
TOML nesting and number lengths bounded (`racecert.model.toml_read`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from racecert.model.cellpath.parse import parse_map_bytes, parse_toml_doc
from racecert.model.errors import TrackError
from racecert.model.file_read import read_bounded, too_big
from racecert.model.lattice.parse import parse_with_rules
from racecert.model.limits import MAX_FILE_BYTES
from racecert.model.toml_read import read_toml
from racecert.model.track import Car, Line, Opening, Track
from racecert.model.validate import (
    Places,
    check_direction,
    check_grids,
    check_header,
    check_layer,
    check_line,
    check_opening,
    check_pair,
    check_semantics,
    is_int,
    show,
    validate_track,
)

if TYPE_CHECKING:
    from racecert.model.profiles import AnyTrack

__all__ = ["load_track", "parse_track", "validate_track"]

_TOP_KEYS = {"name", "kind", "description", "car", "start", "finish", "opening", "map"}
_CAR_KEYS = {"position", "direction", "layer", "slots"}
_LINE_KEYS = {"x", "y", "dir", "layer"}
_OPENING_KEYS = {"moves", "max_speed", "straight"}
_MAP_KEYS = {"ground", "elevated"}


class _Source(Places):
    """The raw file, for error messages that point at a line."""

    def __init__(self, path: str, text: str) -> None:
        super().__init__(path)
        self.lines = text.splitlines()

    def key_line(self, table: str | None, key: str | None) -> int | None:
        """Best-effort 1-based line of `key` inside `[table]` (or the table header)."""
        in_table = table is None
        header = re.compile(r"^\s*\[\s*" + re.escape(table) + r"\s*\]") if table else None
        any_header = re.compile(r"^\s*\[")
        key_re = re.compile(r"^\s*" + re.escape(key) + r"\s*=") if key else None
        table_line = None
        for i, text in enumerate(self.lines, start=1):
            if header is not None and header.match(text):
                in_table, table_line = True, i
                continue
            if any_header.match(text) and (header is None or not header.match(text)):
                if in_table and table is not None:
                    break
                in_table = table is None and False
                continue
            if in_table and key_re is not None and key_re.match(text):
                return i
        return table_line

    def grid_line(self, key: str, row: int) -> int | None:
        """1-based file line of grid row `row` of `[map].key` (multi-line strings)."""
        start = self.key_line("map", key)
        if start is None:
            return None
        first = self.lines[start - 1]
        # Text after the opening quotes on the same line is row 0 only if non-empty.
        m = re.search(r'("""|\'\'\')(.*)$', first)
        if m is None:  # a one-line string: every row is on the key's line
            return start
        if m.group(2).strip():
            return start + row
        return start + 1 + row


def load_track(path: str | Path) -> AnyTrack:
    """Read, parse and validate a track file: a `Track`, `LatticeTrack` or `CellPathTrack`
    as the file says (`racecert.model.profiles.profile_of` tells which, by type).

    Only a regular file is read (a FIFO would block, a device never ends), and
    at most `MAX_FILE_BYTES` of it; it is checked with `os.stat` before it is
    opened, and again on the open descriptor.

    >>> t = load_track("tracks/tiny_straight.toml")  # doctest: +SKIP
    >>> t.name  # doctest: +SKIP
    'Tiny straight'
    """
    return parse_track(_read_file(str(path)), str(path))


def _read_file(path: str) -> bytes:
    return read_bounded(path, MAX_FILE_BYTES, "track")


def parse_track(data: bytes | str, path: str = "<string>") -> AnyTrack:
    """Parse track bytes or text.

    Bytes are the file's exact bytes: their SHA-256 names the track; text is
    named by the SHA-256 of its UTF-8 encoding (the same, for a UTF-8 file).
    A `path` ending in ``.track`` is a cell-path map (`racecert.model.cellpath.parse`);
    a TOML document with ``rules = "cell-path"`` a cell-path track, with any other
    ``rules`` a lattice track.
    """
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            message = f"not valid Unicode text (character {exc.start})"
            raise TrackError(path, "", message) from None
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TrackError(path, "", f"not bytes or text: {show(data)}")
    data = bytes(data)
    if len(data) > MAX_FILE_BYTES:
        raise too_big(path, MAX_FILE_BYTES)
    if path.endswith(".track"):
        return parse_map_bytes(data, path)
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrackError(path, "", f"not UTF-8 text (byte {exc.start})") from None
    src = _Source(path, text)
    doc = read_toml(text, path)
    if doc.get("rules") == "cell-path":
        return parse_toml_doc(doc, text, path, sha)
    if "rules" in doc:
        return parse_with_rules(doc, text, path, sha)
    return _build(doc, src, sha)


# -- small typed getters --------------------------------------------------------------


def _unknown(src: _Source, table: str | None, d: dict[str, Any], allowed: set[str]) -> None:
    for k in d:
        if k not in allowed:
            raise src.error(table, k, f"unknown key (allowed: {', '.join(sorted(allowed))})")


def _table(src: _Source, d: dict[str, Any], key: str, required: bool) -> dict[str, Any] | None:
    if key not in d:
        if required:
            raise src.error(None, key, f"missing required table [{key}]")
        return None
    v = d[key]
    if not isinstance(v, dict):
        raise src.error(None, key, "must be a table")
    return v


def _present(src: _Source, table: str, d: dict[str, Any], key: str) -> Any:
    if key not in d:
        raise src.error(table, key, "missing required key")
    return d[key]


# -- the document -------------------------------------------------------------------


def _grid(src: _Source, mapt: dict[str, Any], key: str) -> tuple[str, ...]:
    v = mapt[key]
    if not isinstance(v, str):
        raise src.error("map", key, "must be a string (use a multi-line \"\"\" string)")
    rows = v.split("\n")
    if rows and rows[-1] == "":
        rows = rows[:-1]
    return tuple(rows)


def _line(src: _Source, doc: dict[str, Any], key: str, w: int, h: int,
          has_elevated: bool) -> Line:
    t = _table(src, doc, key, required=True)
    assert t is not None
    _unknown(src, key, t, _LINE_KEYS)
    ints = [a for a in ("x", "y") if is_int(t.get(a))]
    if len(ints) != 1:
        raise src.error(key, None, "give exactly one boundary: x = k with y = [a, b], "
                        "or y = k with x = [a, b]")
    fixed = ints[0]
    span = "y" if fixed == "x" else "x"
    if span not in t:
        raise src.error(key, span, f"missing: with {fixed} = k give {span} = [a, b]")
    lo, hi = check_pair(src, key, span, t[span])
    line = Line(fixed, t[fixed], lo, hi, _present(src, key, t, "dir"),  # type: ignore[arg-type]
                t.get("layer", 0))
    check_line(src, key, line, w, h, has_elevated)
    return line


def _build(doc: dict[str, Any], src: _Source, sha: str) -> Track:
    _unknown(src, None, doc, _TOP_KEYS)
    name, kind, description = doc.get("name"), doc.get("kind"), doc.get("description", "")
    check_header(src, name, kind, description)

    mapt = _table(src, doc, "map", required=True)
    assert mapt is not None
    _unknown(src, "map", mapt, _MAP_KEYS)
    if "ground" not in mapt:
        raise src.error("map", "ground", "missing required grid")
    ground = _grid(src, mapt, "ground")
    elevated = _grid(src, mapt, "elevated") if "elevated" in mapt else None
    check_grids(src, ground, elevated)
    w, h = len(ground[0]), len(ground)
    has_el = elevated is not None

    cart = _table(src, doc, "car", required=True)
    assert cart is not None
    _unknown(src, "car", cart, _CAR_KEYS)
    pos = check_pair(src, "car", "position", _present(src, "car", cart, "position"))
    direction = check_direction(src, cart.get("direction"))
    car_layer = check_layer(src, "car", cart.get("layer", 0), has_el)
    slots_raw = cart.get("slots", [])
    if not isinstance(slots_raw, list):
        raise src.error("car", "slots", "must be a list of [x, y] pairs")
    slots = tuple(check_pair(src, "car", "slots", s) for s in slots_raw)

    start = _line(src, doc, "start", w, h, has_el)
    finish = _line(src, doc, "finish", w, h, has_el)

    opening = None
    ot = _table(src, doc, "opening", required=False)
    if ot is not None:
        _unknown(src, "opening", ot, _OPENING_KEYS)
        moves = _present(src, "opening", ot, "moves")
        max_speed, straight = ot.get("max_speed"), ot.get("straight", False)
        check_opening(src, moves, max_speed, straight, w, h)
        opening = Opening(moves, max_speed, straight)

    track = Track(
        name=name, width=w, height=h, ground=ground, elevated=elevated,
        car=Car(pos, direction, car_layer, slots), start=start, finish=finish,  # type: ignore[arg-type]
        opening=opening, kind=kind, description=description, sha256=sha, path=src.path,
    )
    check_semantics(src, track)
    return track
