"""A track as the TOML text of docs/track-format.md, written so that it parses back exactly.

`track_to_toml(track)` writes every field of a `Track` (validated or a draft
from the page) in the layout of the bundled tracks: keys with their default
value are left out (the parser restores the default), strings are TOML basic
strings with every control character escaped, and the grids are multi-line
strings whose rows are written verbatim (their characters are checked first,
so no grid can close its string early). `parse_track(track_to_toml(t))` equals
`t` in every field but the file's SHA-256 and path (tests/studio).
"""

from __future__ import annotations

from racecert.model.track import ELEVATED_CHARS, GROUND_CHARS, Line, Track

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
            "\r": "\\r"}


class TomlWriteError(ValueError):
    """A draft that cannot be written as a track file (a grid character the format lacks)."""


def toml_string(text: str) -> str:
    """A TOML basic string for `text` (quotes, backslashes and control characters escaped).

    >>> toml_string('say "hi"\\n')
    '"say \\\\"hi\\\\"\\\\n"'
    """
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _pair(p: tuple[int, int]) -> str:
    return f"[{p[0]}, {p[1]}]"


def _grid(key: str, rows: tuple[str, ...], allowed: dict[str, str]) -> list[str]:
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch not in allowed:
                raise TomlWriteError(f"[map].{key} row {y} column {x}: bad character {ch!r} "
                                     f"(allowed: {' '.join(repr(k) for k in allowed)})")
    body = "".join(row + "\n" for row in rows)
    return [f'{key} = """', body + '"""']


def _line(table: str, line: Line) -> list[str]:
    span = "y" if line.axis == "x" else "x"
    out = [f"[{table}]", f"{line.axis} = {line.k}", f"{span} = {_pair((line.lo, line.hi))}",
           f"dir = {toml_string(line.direction)}"]
    if line.layer != 0:
        out.append(f"layer = {line.layer}")
    return out


def track_to_toml(track: Track) -> str:
    """The track file text for `track` (see the module docstring)."""
    out = [f"name = {toml_string(track.name)}"]
    if track.kind is not None:
        out.append(f"kind = {toml_string(track.kind)}")
    if track.description:
        out.append(f"description = {toml_string(track.description)}")
    car = track.car
    out += ["", "[car]", f"position = {_pair(car.position)}",
            f"direction = {toml_string(car.direction)}"]
    if car.layer != 0:
        out.append(f"layer = {car.layer}")
    if car.slots:
        out.append(f"slots = [{', '.join(_pair(s) for s in car.slots)}]")
    out += ["", *_line("start", track.start), "", *_line("finish", track.finish)]
    op = track.opening
    if op is not None:
        out += ["", "[opening]", f"moves = {op.moves}"]
        if op.max_speed is not None:
            out.append(f"max_speed = {op.max_speed}")
        if op.straight:
            out.append("straight = true")
    out += ["", "[map]", *_grid("ground", track.ground, GROUND_CHARS)]
    if track.elevated is not None:
        out += _grid("elevated", track.elevated, ELEVATED_CHARS)
    return "\n".join(out) + "\n"
