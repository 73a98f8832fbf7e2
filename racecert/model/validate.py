"""The track checks, shared by track files and tracks built in code.

`validate_track(track)` applies to a `Track` built in Python exactly the
checks a track file gets from `racecert.model.parse` (types, grid characters,
ramps, the car on asphalt, lines on the grid that are cuts and can be
crossed, S before F, the value ranges of `racecert.model.limits`) and raises
the same one-line `TrackError` with the same place (`[car].position`,
`[map].ground row 2 column 4`); only the file line is missing. The parser
calls the same `check_*` functions, at the point where each value is read,
with a `Places` that knows the file's lines.
"""

from __future__ import annotations

import dataclasses
import re
import reprlib
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np

from racecert.model.errors import TrackError
from racecert.model.limits import (
    INT64_MAX,
    INT64_MIN,
    MAX_CELLS,
    MAX_OPENING_MOVES,
    MAX_SIDE,
    MAX_SPEED,
    max_opening_moves,
)
from racecert.model.topology import reaches_finish_before_start
from racecert.model.track import (
    DIRECTIONS,
    ELEVATED_CHARS,
    GROUND_CHARS,
    Car,
    Line,
    Opening,
    Track,
)


class Places:
    """Names the place of a problem: the path, a key or grid cell, and (for a file, see
    `racecert.model.parse`) the line it is on."""

    def __init__(self, path: str) -> None:
        self.path = path

    def key_line(self, table: str | None, key: str | None) -> int | None:
        """The file line of `key` in `[table]`; None without a file."""
        return None

    def grid_line(self, key: str, row: int) -> int | None:
        """The file line of grid row `row` of `[map].key`; None without a file."""
        return None

    def error(self, table: str | None, key: str | None, message: str) -> TrackError:
        shown_key = show_key(key) if key is not None else None
        where = (f"[{table}]" if table else "") + (
            f".{shown_key}" if table and key else shown_key or "")
        return TrackError(self.path, where, message, self.key_line(table, key))

    def cell_error(self, key: str, x: int, y: int, message: str) -> TrackError:
        return TrackError(self.path, f"[map].{key} row {y} column {x}", message,
                          self.grid_line(key, y))


# -- values in messages -----------------------------------------------------------------


class _ShortRepr(reprlib.Repr):
    """repr() bounded in length and depth; huge integers by their size."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 60
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict = 3, 6, 6, 4

    def repr_int(self, x: int, level: int) -> str:
        if INT64_MIN <= x <= INT64_MAX:
            return repr(x)
        return f"<an integer of {x.bit_length()} bits>"

    def repr_bool(self, x: bool, level: int) -> str:
        return repr(x)


_SHORT = _ShortRepr()


def show(value: Any) -> str:
    """A value for an error message: its repr, bounded in length, depth and size.

    >>> show([1, True]), show("up"), show(2**100)
    ('[1, True]', "'up'", '<an integer of 101 bits>')
    """
    return _SHORT.repr(value)


def show_key(key: str) -> str:
    """A key for an error message: as written when printable and short, else its repr."""
    if key.isprintable() and len(key) <= 60:
        return key
    return _SHORT.repr(key)


# -- scalar checks ------------------------------------------------------------------------


def is_int(v: Any) -> bool:
    """An integer that is not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def check_int(p: Places, table: str, key: str, v: Any, lo: int | None = None,
              hi: int | None = None) -> int:
    """An integer in int64 and in [lo, hi] (either bound optional)."""
    if not is_int(v):
        raise p.error(table, key, f"must be an integer, got {show(v)}")
    if lo is not None and v < lo:
        raise p.error(table, key, f"must be >= {lo}, got {show(v)}")
    if hi is not None and v > hi:
        raise p.error(table, key, f"must be <= {hi}, got {show(v)}")
    if not INT64_MIN <= v <= INT64_MAX:
        raise p.error(table, key, f"must be an integer in {INT64_MIN}..{INT64_MAX}, "
                      f"got {show(v)}")
    return v


def check_pair(p: Places, table: str, key: str, v: Any) -> tuple[int, int]:
    """A pair of int64 integers (a TOML array [a, b], or a tuple in code)."""
    if not (isinstance(v, list | tuple) and len(v) == 2 and all(is_int(c) for c in v)):
        shown = show(list(v) if isinstance(v, tuple) else v)  # as TOML writes it: [a, b]
        raise p.error(table, key, f"must be a pair of integers [a, b], got {shown}")
    for c in v:
        check_int(p, table, key, c)
    return (v[0], v[1])


def _control_char(text: str) -> str | None:
    """The first control character, line separator or non-character in `text`."""
    if text.isprintable():
        return None
    for c in text:
        if unicodedata.category(c) in ("Cc", "Cs", "Zl", "Zp") or c in "\ufffe\uffff":
            return c
    return None


def check_header(p: Places, name: Any, kind: Any, description: Any) -> None:
    """`name` a non-empty one-line string, `kind` stage or circuit, `description` a string."""
    if not isinstance(name, str) or not name.strip():
        raise p.error(None, "name", "missing or empty (a string is required)")
    bad = _control_char(name)
    if bad is not None:
        raise p.error(None, "name", f"contains the control character {bad!r} at index "
                      f"{name.index(bad)} (a name is one line of plain text)")
    if kind is not None and kind not in ("stage", "circuit"):
        raise p.error(None, "kind", f"must be \"stage\" or \"circuit\", got {show(kind)}")
    if not isinstance(description, str):
        raise p.error(None, "description", "must be a string")


# -- grids ----------------------------------------------------------------------------------


def check_grid_chars(p: Places, key: str, rows: Sequence[str], chars: dict[str, str]) -> None:
    """Every character of every row is one of `chars` (the first bad one is named)."""
    outside = re.compile("[^" + re.escape("".join(chars)) + "]")
    for y, row in enumerate(rows):
        m = outside.search(row)
        if m is not None:
            allowed = " ".join(repr(k) for k in chars)
            raise p.cell_error(key, m.start(), y,
                               f"bad character {show(m.group())} (allowed: {allowed})")


def check_grids(p: Places, ground: Sequence[str], elevated: Sequence[str] | None) -> None:
    """Characters, shape, size limits and ramps of the ground and elevated grids."""
    check_grid_chars(p, "ground", ground, GROUND_CHARS)
    if not ground or not ground[0]:
        raise p.error("map", "ground", "the grid is empty")
    w, h = len(ground[0]), len(ground)
    for y, row in enumerate(ground):
        if len(row) != w:
            raise p.cell_error("ground", len(row), y,
                               f"row has {len(row)} cells, row 0 has {w}: "
                               "ground rows must all have the same length")
    if w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_CELLS:
        raise p.error("map", "ground", f"the grid is {w}x{h}: at most {MAX_SIDE} cells a "
                      f"side and {MAX_CELLS} in all")
    if elevated is not None:
        check_grid_chars(p, "elevated", elevated, ELEVATED_CHARS)
        if len(elevated) > h:
            raise p.cell_error("elevated", 0, h, f"elevated has {len(elevated)} rows, "
                               f"ground has {h}")
        for y, row in enumerate(elevated):
            if len(row) > w:
                raise p.cell_error("elevated", w, y, f"row is longer than the ground ({w})")
    _check_ramps(p, ground, elevated)


def _check_ramps(p: Places, ground: Sequence[str], elevated: Sequence[str] | None) -> None:
    """A ramp must sit at the same cell in both grids (the elevated grid is never larger).

    Compared as byte arrays; the first mismatch in row-major order is named."""
    h, w = len(ground), len(ground[0])
    g = np.frombuffer("".join(ground).encode("ascii"), dtype=np.uint8).reshape(h, w)
    e = np.full((h, w), ord(" "), dtype=np.uint8)
    for y, row in enumerate(elevated or ()):
        if row:
            e[y, : len(row)] = np.frombuffer(row.encode("ascii"), dtype=np.uint8)
    slash = ord("/")
    bad = (g == slash) != (e == slash)
    if bad.any():
        y, x = divmod(int(np.argmax(bad)), w)
        key = "ground" if g[y, x] == slash else "elevated"
        raise p.cell_error(key, x, y, "a ramp '/' must appear at the same cell in "
                           "both the ground and the elevated grid")


# -- the car, the lines, the opening ---------------------------------------------------------


def check_layer(p: Places, table: str, layer: Any, has_elevated: bool) -> int:
    """0 (ground) or 1 (elevated, which needs an elevated grid)."""
    layer = check_int(p, table, "layer", layer)
    if layer not in (0, 1):
        raise p.error(table, "layer", f"must be 0 (ground) or 1 (elevated), got {layer}")
    if layer == 1 and not has_elevated:
        raise p.error(table, "layer", "layer 1 needs an [map].elevated grid")
    return layer


def check_direction(p: Places, direction: Any) -> str:
    """The car's facing direction."""
    if direction not in DIRECTIONS:
        raise p.error("car", "direction", f"must be one of {', '.join(DIRECTIONS)}, "
                      f"got {show(direction)}")
    return direction


def check_line(p: Places, key: str, line: Line, w: int, h: int, has_elevated: bool) -> None:
    """A line's span, direction, position on the grid and layer (its shape is already
    known: `line.axis` is the fixed coordinate, `k` an integer, lo and hi integers)."""
    fixed = line.axis
    span = "y" if fixed == "x" else "x"
    check_int(p, key, fixed, line.k)
    lo, hi = line.lo, line.hi
    if lo > hi:
        raise p.error(key, span, f"span [{lo}, {hi}] is empty (need a <= b)")
    allowed = ("+x", "-x") if fixed == "x" else ("+y", "-y")
    if line.direction not in allowed:
        raise p.error(key, "dir", f"must be {' or '.join(allowed)} for a line at {fixed} = k, "
                      f"got {show(line.direction)}")
    n_fixed, n_span = (w, h) if fixed == "x" else (h, w)
    k = line.k
    if not (0 <= k and k + 1 <= n_fixed - 1):
        boundary = f"{k}.5" if k >= 0 else f"-{-k - 1}.5"  # k + 1/2, written exactly
        raise p.error(key, fixed, f"line {fixed} = {k} (boundary {boundary}) is off the grid "
                      f"(needs 0 <= {fixed} <= {n_fixed - 2})")
    if lo < 0 or hi > n_span - 1:
        raise p.error(key, span, f"span [{lo}, {hi}] is off the grid (0..{n_span - 1})")
    check_layer(p, key, line.layer, has_elevated)


def check_opening(p: Places, moves: Any, max_speed: Any, straight: Any, w: int,
                  h: int) -> None:
    """K >= 1 within the state keys' room, max_speed >= 1 within int32, straight a bool."""
    moves = check_int(p, "opening", "moves", moves, lo=1, hi=MAX_OPENING_MOVES)
    room = max_opening_moves(w, h)
    if moves > room:
        raise p.error("opening", "moves", f"must be <= {room} on a {w}x{h} grid (its state "
                      f"keys must fit in 64 bits), got {moves}")
    if max_speed is not None:
        check_int(p, "opening", "max_speed", max_speed, lo=1, hi=MAX_SPEED)
    if not isinstance(straight, bool):
        raise p.error("opening", "straight", f"must be true or false, got {show(straight)}")


# -- the whole track ----------------------------------------------------------------------


def _line_ends_blocked(track: Track, line: Line) -> bool:
    """Each end of the line touches off-track in its layer (lines are cuts)."""
    for end in (line.lo - 1, line.hi + 1):
        if line.axis == "x":
            cells = [(line.k, end), (line.k + 1, end)]
        else:
            cells = [(end, line.k), (end, line.k + 1)]
        if all(track.drivable(line.layer, x, y) for x, y in cells):
            return False
    return True


def _line_crossable(track: Track, line: Line) -> bool:
    """Two cells drivable in the line's layer face each other across it: some unit step
    (side or corner, its midpoint on the closed span) crosses it. Every move that
    crosses the line on its layer has such a step in its chain of touched cells (the
    cell before the crossing is in that layer too, or is a ramp, drivable in both)."""
    d = track.surface_arrays.drivable[line.layer]
    if line.axis == "y":
        d = d.T
    rows = np.arange(line.lo - 1, line.hi + 2)  # the span and one beyond each end
    inside = (rows >= 0) & (rows < d.shape[0])
    a = np.where(inside, d[np.clip(rows, 0, d.shape[0] - 1), line.k], False)
    b = np.where(inside, d[np.clip(rows, 0, d.shape[0] - 1), line.k + 1], False)
    straight = (a & b)[1:-1]  # rows lo..hi
    diagonal = (a[:-1] & b[1:]) | (b[:-1] & a[1:])  # midpoints lo - 1/2 .. hi + 1/2
    return bool(straight.any() or diagonal.any())


def _lines_intersect(a: Line, b: Line) -> bool:
    def seg(line: Line) -> tuple[tuple[int, int], tuple[int, int]]:
        # doubled coordinates: boundary k + 1/2 -> 2k + 1; span lo..hi -> 2lo - 1 .. 2hi + 1
        f, s0, s1 = 2 * line.k + 1, 2 * line.lo - 1, 2 * line.hi + 1
        return ((f, f), (s0, s1)) if line.axis == "x" else ((s0, s1), (f, f))

    (ax, ay), (bx, by) = seg(a), seg(b)
    return ax[0] <= bx[1] and bx[0] <= ax[1] and ay[0] <= by[1] and by[0] <= ay[1]


def check_semantics(p: Places, t: Track) -> None:
    """The car and its slots on asphalt before the start, lines that are cuts and can be
    crossed, distinct and disjoint, and F not reachable without crossing S."""
    x, y = t.car.position
    if not (0 <= x < t.width and 0 <= y < t.height):
        raise p.error("car", "position", f"({x}, {y}) is off the grid {t.width}x{t.height}")
    if not t.endable(t.car.layer, x, y):
        raise p.error("car", "position", f"({x}, {y}) is not asphalt in layer "
                      f"{t.car.layer} (found {t.char(t.car.layer, x, y)!r})")
    seen = {t.car.position}
    for sx, sy in t.car.slots:
        if not (0 <= sx < t.width and 0 <= sy < t.height):
            raise p.error("car", "slots", f"slot ({sx}, {sy}) is off the grid "
                          f"{t.width}x{t.height}")
        if not t.endable(t.car.layer, sx, sy):
            raise p.error("car", "slots", f"slot ({sx}, {sy}) is not asphalt in layer "
                          f"{t.car.layer}")
        if (sx, sy) in seen:
            raise p.error("car", "slots", f"slot ({sx}, {sy}) is listed twice")
        seen.add((sx, sy))
    for key, line in (("start", t.start), ("finish", t.finish)):
        if not _line_ends_blocked(t, line):
            raise p.error(key, None, "the line is not a cut: an end does not touch off-track "
                          f"in layer {line.layer}, so a car could drive round it")
        if not _line_crossable(t, line):
            raise p.error(key, None, "the line cannot be crossed: no two cells drivable in "
                          f"layer {line.layer} face each other across it")
    if t.start == t.finish or (t.start.axis, t.start.k, t.start.lo, t.start.hi) == (
        t.finish.axis, t.finish.k, t.finish.lo, t.finish.hi
    ):
        raise p.error("finish", None, "start and finish are the same line")
    if _lines_intersect(t.start, t.finish):
        raise p.error("finish", None, "start and finish lines intersect")
    for key, (px, py) in (("position", t.car.position), *(("slots", s) for s in t.car.slots)):
        if not t.start.entry_side(px, py):
            what = "slot " if key == "slots" else ""
            raise p.error("car", key, f"{what}({px}, {py}) is not on the side from which "
                          f"the start line is crossed ({t.start.direction})")
    if reaches_finish_before_start(t):
        raise p.error("finish", None, "the finish line can be crossed without crossing the "
                      "start line first")


# -- a Track built in code -------------------------------------------------------------------


def validate_track(track: Track) -> Track:
    """Check a `Track` built in code exactly as a track file is checked.

    Returns the track (rows, pairs and slots as tuples) or raises a one-line
    `TrackError` whose place is the TOML key the field corresponds to
    (`name`, `[car].position`, `[map].ground row 2 column 4`, `[finish]`, ...)
    and whose path is `track.path` (or "<track>"). Width and height must be
    the grid's.

    >>> from racecert.model.parse import load_track
    >>> import dataclasses
    >>> t = load_track("tracks/tiny_straight.toml")
    >>> validate_track(t) == t
    True
    >>> try:
    ...     validate_track(dataclasses.replace(t, car=Car((0, 0), "+x")))
    ... except TrackError as e:
    ...     print(e.where, e.message)
    [car].position (0, 0) is not asphalt in layer 0 (found '#')
    """
    if not isinstance(track, Track):
        raise TrackError("<track>", "", f"not a Track: {show(track)}")
    p = Places(track.path or "<track>")
    check_header(p, track.name, track.kind, track.description)
    ground = _rows(p, "ground", track.ground)
    elevated = None if track.elevated is None else _rows(p, "elevated", track.elevated)
    check_grids(p, ground, elevated)
    w, h = len(ground[0]), len(ground)
    for field, value, want in (("width", track.width, w), ("height", track.height, h)):
        if value != want:
            raise p.error(None, field, f"must be the grid's {field} {want}, got {show(value)}")
    car = _typed(p, "car", track.car, Car)
    position = check_pair(p, "car", "position", car.position)
    check_direction(p, car.direction)
    layer = check_layer(p, "car", car.layer, elevated is not None)
    if not isinstance(car.slots, list | tuple):
        raise p.error("car", "slots", "must be a list of [x, y] pairs")
    slots = tuple(check_pair(p, "car", "slots", s) for s in car.slots)
    lines = {key: _line(p, key, getattr(track, key), w, h, elevated is not None)
             for key in ("start", "finish")}
    if track.opening is not None:
        op = _typed(p, "opening", track.opening, Opening)
        check_opening(p, op.moves, op.max_speed, op.straight, w, h)
    checked = dataclasses.replace(
        track, ground=ground, elevated=elevated,
        car=dataclasses.replace(car, position=position, layer=layer, slots=slots), **lines)
    check_semantics(p, checked)
    return checked


def _rows(p: Places, key: str, rows: Any) -> tuple[str, ...]:
    if not isinstance(rows, list | tuple) or not all(isinstance(r, str) for r in rows):
        raise p.error("map", key, f"must be a sequence of row strings, got {show(rows)}")
    return tuple(rows)


def _typed(p: Places, key: str, value: Any, kind: type) -> Any:
    if not isinstance(value, kind):
        raise p.error(None, key, f"must be a {kind.__name__}, got {show(value)}")
    return value


def _line(p: Places, key: str, line: Any, w: int, h: int, has_elevated: bool) -> Line:
    line = _typed(p, key, line, Line)
    if line.axis not in ("x", "y"):
        raise p.error(key, None, "give exactly one boundary: x = k with y = [a, b], "
                      "or y = k with x = [a, b]")
    span = "y" if line.axis == "x" else "x"
    check_pair(p, key, span, (line.lo, line.hi))
    check_line(p, key, line, w, h, has_elevated)
    return line
