"""ASCII racetrack maps (`#` wall, `.` free, `S` start, `F` finish) to and from track files.

Other Racetrack programs read a plain text grid: `#` a wall, `.` a free cell, `S` the
cells the car starts on, `F` the cells it must reach. racecert's lines lie on cell
boundaries with a direction (docs/rules.md §4), so the S and F cells become lines by a
fixed rule (docs/track-format.md, "ASCII maps"):

* the S cells form one straight run (a column or row segment); the car starts on them
  (the first in reading order is `[car].position`, the others its slots) and the start
  line is the boundary just ahead of them, crossed away from them;
* the F cells form one straight run; the finish line is the boundary just before them,
  crossed into them;
* "ahead" (for S) and "before" (for F) is the first of +x, -x, +y, -y (those along the
  run's normal: a column run has +x and -x, a row run +y and -y, a single cell all four)
  whose cells across the whole run are on the grid and not walls (and not S cells).

Export (`to_ascii`) writes the grid of a track and refuses, with one line, what the
format cannot say: an elevated layer, shoulders, ramps, an opening rule, car cells that
are not exactly the cells behind the start line, or S and F cells that the rule above
would read back as other lines. It checks import(export(t)) == t before answering.
"""

from __future__ import annotations

from pathlib import Path

from racecert.model.errors import TrackError
from racecert.model.file_read import read_bounded
from racecert.model.track import Line, Track

MAX_BYTES = 16 << 20
"""Largest ASCII map read."""
ORDER = ("+x", "-x", "+y", "-y")
Cell = tuple[int, int]


def read_ascii(path: str | Path) -> tuple[str, ...]:
    """The rows of the map file `path` (one-line `TrackError` when unreadable)."""
    shown = str(path)
    data = read_bounded(shown, MAX_BYTES, "map")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TrackError(shown, "", f"not UTF-8 text (byte {exc.start})") from None
    return parse_rows(text, shown)


def parse_rows(text: str, path: str = "<string>") -> tuple[str, ...]:
    """The checked rows of map text: equal lengths, only `#.SF` (trailing blank lines and
    CRLF line ends are accepted)."""
    rows = text.replace("\r\n", "\n").split("\n")
    while rows and rows[-1].strip() == "":
        rows.pop()
    if not rows:
        raise TrackError(path, "", "the map is empty")
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch not in "#.SF":
                raise TrackError(path, f"row {y} column {x}", f"bad character {ch!r} "
                                 "(allowed: '#' '.' 'S' 'F')", y + 1)
        if len(row) != len(rows[0]):
            raise TrackError(path, f"row {y}", f"row has {len(row)} cells, row 0 has "
                             f"{len(rows[0])}: rows must all have the same length", y + 1)
    return tuple(rows)


def _run(path: str, rows: tuple[str, ...], ch: str) -> list[Cell]:
    cells = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == ch]
    what = "start" if ch == "S" else "finish"
    if not cells:
        raise TrackError(path, "", f"no {ch!r} cell: the map needs its {what} cells")
    xs, ys = {x for x, _ in cells}, {y for _, y in cells}
    straight = (len(xs) == 1 and max(ys) - min(ys) + 1 == len(cells)) or \
        (len(ys) == 1 and max(xs) - min(xs) + 1 == len(cells))
    if not straight:
        raise TrackError(path, "", f"the {ch!r} cells must form one straight unbroken run "
                         "(a column or row segment)")
    return cells


def _line(path: str, rows: tuple[str, ...], cells: list[Cell], ch: str) -> Line:
    """The line ahead of the S run (ch "S") or before the F run (ch "F"), by the rule."""
    h, w = len(rows), len(rows[0])
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    vertical, horizontal = len(set(xs)) == 1, len(set(ys)) == 1
    for d in ORDER:
        if (d[1] == "x" and not vertical) or (d[1] == "y" and not horizontal):
            continue
        sign = 1 if d[0] == "+" else -1
        step = sign if ch == "S" else -sign  # the side checked: ahead of S, before F
        side = [(x + step, y) if d[1] == "x" else (x, y + step) for x, y in cells]
        if all(0 <= x < w and 0 <= y < h and rows[y][x] not in "#S" for x, y in side):
            if d[1] == "x":
                k = xs[0] if (ch == "S") == (sign > 0) else xs[0] - 1
                return Line("x", k, min(ys), max(ys), d)  # type: ignore[arg-type]
            k = ys[0] if (ch == "S") == (sign > 0) else ys[0] - 1
            return Line("y", k, min(xs), max(xs), d)  # type: ignore[arg-type]
    raise TrackError(path, "", f"the {ch!r} cells have no side free of walls to put the "
                     f"{'start' if ch == 'S' else 'finish'} line on")


def _toml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _line_toml(table: str, ln: Line) -> list[str]:
    other = "y" if ln.axis == "x" else "x"
    return [f"[{table}]", f"{ln.axis} = {ln.k}", f"{other} = [{ln.lo}, {ln.hi}]",
            f'dir = "{ln.direction}"', ""]


def ascii_to_toml(rows: tuple[str, ...], name: str, path: str = "<string>") -> str:
    """The track file (docs/track-format.md) of checked map rows, deterministic text."""
    s_cells, f_cells = _run(path, rows, "S"), _run(path, rows, "F")
    start, finish = _line(path, rows, s_cells, "S"), _line(path, rows, f_cells, "F")
    ground = [row.replace("S", ".").replace("F", ".") for row in rows]
    car = s_cells[0]
    slots = ", ".join(f"[{x}, {y}]" for x, y in s_cells[1:])
    return "\n".join([
        f"# Imported by `racecert import ascii` from {name} (docs/track-format.md, ASCII maps).",
        f"name = {_toml_string(name)}",
        "",
        "[car]",
        f"position = [{car[0]}, {car[1]}]",
        f'direction = "{start.direction}"',
        f"slots = [{slots}]",
        "",
        *_line_toml("start", start),
        *_line_toml("finish", finish),
        "[map]",
        'ground = """',
        *ground,
        '"""',
        "",
    ])


def _behind(ln: Line) -> list[Cell]:
    """The cells on the side a line is crossed from, along its span."""
    c = ln.k if ln.sign > 0 else ln.k + 1
    return [(c, i) if ln.axis == "x" else (i, c) for i in range(ln.lo, ln.hi + 1)]


def _beyond(ln: Line) -> list[Cell]:
    c = ln.k + 1 if ln.sign > 0 else ln.k
    return [(c, i) if ln.axis == "x" else (i, c) for i in range(ln.lo, ln.hi + 1)]


def to_ascii(t: Track) -> str:
    """The ASCII map of `t`, or a one-line `TrackError` saying why the format cannot
    represent it; the answer is checked to import back as the same track."""
    from racecert.model.parse import parse_track

    def refuse(why: str) -> TrackError:
        return TrackError(t.path or t.name, "", f"cannot be written as an ASCII map: {why}")

    if t.elevated is not None or t.car.layer or t.start.layer or t.finish.layer:
        raise refuse("it has an elevated layer (the format has one layer)")
    if any(c in row for row in t.ground for c in ":/"):
        raise refuse("it has shoulders ':' or ramps '/' (the format has walls and free cells)")
    if t.opening is not None:
        raise refuse("it has an opening rule ([opening]; the format has none)")
    s_cells, f_cells = _behind(t.start), _beyond(t.finish)
    if set(s_cells) & set(f_cells):
        raise refuse("its start and finish cells overlap")
    car = {t.car.position, *t.car.slots}
    if car != set(s_cells) or t.car.direction != t.start.direction:
        raise refuse("its car cells are not exactly the cells behind the start line, "
                     "facing across it (the format starts the car on the S cells)")
    grid = [list(row) for row in t.ground]
    for ch, cells in (("S", s_cells), ("F", f_cells)):
        for x, y in cells:
            grid[y][x] = ch
    text = "\n".join("".join(row) for row in grid) + "\n"
    try:
        back = parse_track(ascii_to_toml(parse_rows(text), t.name), "<export>")
    except TrackError as exc:  # the rule reads other lines, and they make no valid track
        raise refuse(f"its lines would read back as another, invalid track ({exc.message})"
                     ) from None
    same = (back.ground, back.start, back.finish, back.car.position, back.car.direction,
            set(back.car.slots)) == (t.ground, t.start, t.finish, t.car.position,
                                     t.car.direction, set(t.car.slots))
    if not same:
        raise refuse("its start line, finish line or car position would read back as "
                     "another (docs/track-format.md, ASCII maps: the first free side of a run, "
                     "the car on the first S cell in reading order)")
    return text
