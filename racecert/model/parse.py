"""Parse and validate track files (TOML, docs/track-format.md).

`load_track(path)` returns a `Track` or raises `TrackError` naming the file,
the key or the grid row and column (with its line in the file), and what is
wrong. Validation is strict: unknown keys and bad characters are errors,
because a silently ignored typo would change the numbers racecert certifies.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Any

from racecert.model.errors import TrackError
from racecert.model.lattice_parse import parse_with_rules
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

_TOP_KEYS = {"name", "kind", "description", "car", "start", "finish", "opening", "map"}
_CAR_KEYS = {"position", "direction", "layer", "slots"}
_LINE_KEYS = {"x", "y", "dir", "layer"}
_OPENING_KEYS = {"moves", "max_speed", "straight"}
_MAP_KEYS = {"ground", "elevated"}


class _Source:
    """The raw file, for error messages that point at a line."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
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

    def error(self, table: str | None, key: str | None, message: str) -> TrackError:
        where = (f"[{table}]" if table else "") + (f".{key}" if table and key else key or "")
        return TrackError(self.path, where, message, self.key_line(table, key))

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

    def cell_error(self, key: str, x: int, y: int, message: str) -> TrackError:
        return TrackError(
            self.path, f"[map].{key} row {y} column {x}", message, self.grid_line(key, y)
        )


def load_track(path: str | Path) -> Track:
    """Read, parse and validate a track file.

    >>> t = load_track("tracks/tiny_straight.toml")  # doctest: +SKIP
    >>> t.name  # doctest: +SKIP
    'Tiny straight'
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise TrackError(str(path), "", f"cannot read file: {exc.strerror or exc}") from None
    return parse_track(data, str(path))


def parse_track(data: bytes, path: str = "<string>") -> Track:
    """Parse track bytes (the file's exact bytes: their SHA-256 names the track)."""
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrackError(path, "", f"not UTF-8 text (byte {exc.start})") from None
    src = _Source(path, text)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else None
        raise TrackError(path, "", f"TOML syntax error: {exc}", line) from None
    if "rules" in doc:  # another rule profile's format (docs/track-format.md, lattice tracks)
        return parse_with_rules(doc, text, path, sha)  # type: ignore[return-value]
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


def _int(src: _Source, table: str, d: dict[str, Any], key: str, default: int | None = None,
         lo: int | None = None) -> int:
    if key not in d:
        if default is None:
            raise src.error(table, key, "missing required key")
        return default
    v = d[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise src.error(table, key, f"must be an integer, got {v!r}")
    if lo is not None and v < lo:
        raise src.error(table, key, f"must be >= {lo}, got {v}")
    return v


def _pair(src: _Source, table: str, key: str, v: Any) -> tuple[int, int]:
    ok = isinstance(v, list) and len(v) == 2
    ok = ok and all(isinstance(c, int) and not isinstance(c, bool) for c in v)
    if not ok:
        raise src.error(table, key, f"must be a pair of integers [a, b], got {v!r}")
    return (v[0], v[1])


def _layer(src: _Source, table: str, d: dict[str, Any], has_elevated: bool) -> int:
    layer = _int(src, table, d, "layer", default=0)
    if layer not in (0, 1):
        raise src.error(table, "layer", f"must be 0 (ground) or 1 (elevated), got {layer}")
    if layer == 1 and not has_elevated:
        raise src.error(table, "layer", "layer 1 needs an [map].elevated grid")
    return layer


# -- the document -------------------------------------------------------------------


def _grid(src: _Source, mapt: dict[str, Any], key: str, chars: dict[str, str]) -> tuple[str, ...]:
    v = mapt[key]
    if not isinstance(v, str):
        raise src.error("map", key, "must be a string (use a multi-line \"\"\" string)")
    rows = v.split("\n")
    if rows and rows[-1] == "":
        rows = rows[:-1]
    for y, row in enumerate(rows):
        for x, c in enumerate(row):
            if c not in chars:
                allowed = " ".join(repr(k) for k in chars)
                raise src.cell_error(key, x, y, f"bad character {c!r} (allowed: {allowed})")
    return tuple(rows)


def _line(src: _Source, doc: dict[str, Any], key: str, w: int, h: int,
          has_elevated: bool) -> Line:
    t = _table(src, doc, key, required=True)
    assert t is not None
    _unknown(src, key, t, _LINE_KEYS)
    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    ints = [a for a in ("x", "y") if is_int(t.get(a))]
    if len(ints) != 1:
        raise src.error(key, None, "give exactly one boundary: x = k with y = [a, b], "
                        "or y = k with x = [a, b]")
    fixed = ints[0]
    span = "y" if fixed == "x" else "x"
    if span not in t:
        raise src.error(key, span, f"missing: with {fixed} = k give {span} = [a, b]")
    k = _int(src, key, t, fixed)
    lo, hi = _pair(src, key, span, t[span])
    if lo > hi:
        raise src.error(key, span, f"span [{lo}, {hi}] is empty (need a <= b)")
    if "dir" not in t:
        raise src.error(key, "dir", "missing required key")
    d = t["dir"]
    allowed = ("+x", "-x") if fixed == "x" else ("+y", "-y")
    if d not in allowed:
        raise src.error(key, "dir", f"must be {' or '.join(allowed)} for a line at {fixed} = k, "
                        f"got {d!r}")
    n_fixed, n_span = (w, h) if fixed == "x" else (h, w)
    if not (0 <= k and k + 1 <= n_fixed - 1):
        boundary = f"{k}.5" if k >= 0 else f"-{-k - 1}.5"  # k + 1/2, written exactly
        raise src.error(key, fixed, f"line {fixed} = {k} (boundary {boundary}) is off the grid "
                        f"(needs 0 <= {fixed} <= {n_fixed - 2})")
    if lo < 0 or hi > n_span - 1:
        raise src.error(key, span, f"span [{lo}, {hi}] is off the grid (0..{n_span - 1})")
    return Line(fixed, k, lo, hi, d, _layer(src, key, t, has_elevated))  # type: ignore[arg-type]


def _build(doc: dict[str, Any], src: _Source, sha: str) -> Track:
    _unknown(src, None, doc, _TOP_KEYS)
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise src.error(None, "name", "missing or empty (a string is required)")
    kind = doc.get("kind")
    if kind is not None and kind not in ("stage", "circuit"):
        raise src.error(None, "kind", f"must be \"stage\" or \"circuit\", got {kind!r}")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise src.error(None, "description", "must be a string")

    mapt = _table(src, doc, "map", required=True)
    assert mapt is not None
    _unknown(src, "map", mapt, _MAP_KEYS)
    if "ground" not in mapt:
        raise src.error("map", "ground", "missing required grid")
    ground = _grid(src, mapt, "ground", GROUND_CHARS)
    if not ground or not ground[0]:
        raise src.error("map", "ground", "the grid is empty")
    w, h = len(ground[0]), len(ground)
    for y, row in enumerate(ground):
        if len(row) != w:
            raise src.cell_error("ground", len(row), y,
                                 f"row has {len(row)} cells, row 0 has {w}: "
                                 "ground rows must all have the same length")
    elevated = None
    if "elevated" in mapt:
        elevated = _grid(src, mapt, "elevated", ELEVATED_CHARS)
        if len(elevated) > h:
            raise src.cell_error("elevated", 0, h, f"elevated has {len(elevated)} rows, "
                                 f"ground has {h}")
        for y, row in enumerate(elevated):
            if len(row) > w:
                raise src.cell_error("elevated", w, y, f"row is longer than the ground ({w})")
    _check_ramps(src, ground, elevated)
    has_el = elevated is not None

    cart = _table(src, doc, "car", required=True)
    assert cart is not None
    _unknown(src, "car", cart, _CAR_KEYS)
    if "position" not in cart:
        raise src.error("car", "position", "missing required key")
    pos = _pair(src, "car", "position", cart["position"])
    direction = cart.get("direction")
    if direction not in DIRECTIONS:
        raise src.error("car", "direction", f"must be one of {', '.join(DIRECTIONS)}, "
                        f"got {direction!r}")
    car_layer = _layer(src, "car", cart, has_el)
    slots_raw = cart.get("slots", [])
    if not isinstance(slots_raw, list):
        raise src.error("car", "slots", "must be a list of [x, y] pairs")
    slots = tuple(_pair(src, "car", "slots", s) for s in slots_raw)

    start = _line(src, doc, "start", w, h, has_el)
    finish = _line(src, doc, "finish", w, h, has_el)

    opening = None
    ot = _table(src, doc, "opening", required=False)
    if ot is not None:
        _unknown(src, "opening", ot, _OPENING_KEYS)
        moves = _int(src, "opening", ot, "moves", lo=1)
        max_speed = _int(src, "opening", ot, "max_speed", lo=1) if "max_speed" in ot else None
        straight = ot.get("straight", False)
        if not isinstance(straight, bool):
            raise src.error("opening", "straight", f"must be true or false, got {straight!r}")
        opening = Opening(moves, max_speed, straight)

    track = Track(
        name=name, width=w, height=h, ground=ground, elevated=elevated,
        car=Car(pos, direction, car_layer, slots), start=start, finish=finish,
        opening=opening, kind=kind, description=description, sha256=sha, path=src.path,
    )
    _check_semantics(src, track)
    return track


def _check_ramps(src: _Source, ground: tuple[str, ...], elevated: tuple[str, ...] | None) -> None:
    """A ramp must sit at the same cell in both grids (the elevated grid is never larger)."""
    for y, row in enumerate(ground):
        for x, c in enumerate(row):
            e = elevated[y][x] if elevated and y < len(elevated) and x < len(elevated[y]) else " "
            if (c == "/") != (e == "/"):
                key = "ground" if c == "/" else "elevated"
                raise src.cell_error(key, x, y, "a ramp '/' must appear at the same cell in "
                                     "both the ground and the elevated grid")


def _line_ends_blocked(track: Track, line: Line) -> bool:
    """Each end of the line touches off-track in its layer (docs/rules.md: lines are cuts)."""
    for end in (line.lo - 1, line.hi + 1):
        if line.axis == "x":
            cells = [(line.k, end), (line.k + 1, end)]
        else:
            cells = [(end, line.k), (end, line.k + 1)]
        if all(track.drivable(line.layer, x, y) for x, y in cells):
            return False
    return True


def _lines_intersect(a: Line, b: Line) -> bool:
    def seg(line: Line) -> tuple[tuple[int, int], tuple[int, int]]:
        # doubled coordinates: boundary k + 1/2 -> 2k + 1; span lo..hi -> 2lo - 1 .. 2hi + 1
        f, s0, s1 = 2 * line.k + 1, 2 * line.lo - 1, 2 * line.hi + 1
        return ((f, f), (s0, s1)) if line.axis == "x" else ((s0, s1), (f, f))

    (ax, ay), (bx, by) = seg(a), seg(b)
    return ax[0] <= bx[1] and bx[0] <= ax[1] and ay[0] <= by[1] and by[0] <= ay[1]


def _check_semantics(src: _Source, t: Track) -> None:
    x, y = t.car.position
    if not (0 <= x < t.width and 0 <= y < t.height):
        raise src.error("car", "position", f"({x}, {y}) is off the grid {t.width}x{t.height}")
    if not t.endable(t.car.layer, x, y):
        raise src.error("car", "position", f"({x}, {y}) is not asphalt in layer "
                        f"{t.car.layer} (found {t.char(t.car.layer, x, y)!r})")
    seen = {t.car.position}
    for sx, sy in t.car.slots:
        if not (0 <= sx < t.width and 0 <= sy < t.height):
            raise src.error("car", "slots", f"slot ({sx}, {sy}) is off the grid "
                            f"{t.width}x{t.height}")
        if not t.endable(t.car.layer, sx, sy):
            raise src.error("car", "slots", f"slot ({sx}, {sy}) is not asphalt in layer "
                            f"{t.car.layer}")
        if (sx, sy) in seen:
            raise src.error("car", "slots", f"slot ({sx}, {sy}) is listed twice")
        seen.add((sx, sy))
    for key, line in (("start", t.start), ("finish", t.finish)):
        if not _line_ends_blocked(t, line):
            raise src.error(key, None, "the line is not a cut: an end does not touch off-track "
                            f"in layer {line.layer}, so a car could drive round it")
    if t.start == t.finish or (t.start.axis, t.start.k, t.start.lo, t.start.hi) == (
        t.finish.axis, t.finish.k, t.finish.lo, t.finish.hi
    ):
        raise src.error("finish", None, "start and finish are the same line")
    if _lines_intersect(t.start, t.finish):
        raise src.error("finish", None, "start and finish lines intersect")
    for key, (px, py) in (("position", t.car.position), *(("slots", s) for s in t.car.slots)):
        if not t.start.entry_side(px, py):
            what = "slot " if key == "slots" else ""
            raise src.error("car", key, f"{what}({px}, {py}) is not on the side from which "
                            f"the start line is crossed ({t.start.direction})")
    if reaches_finish_before_start(t):
        raise src.error("finish", None, "the finish line can be crossed without crossing the "
                        "start line first")
