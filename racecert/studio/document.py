"""The page's track document (JSON) to and from a `Track`.

The page edits a JSON object with the fields of the track format:

    {"name": "...", "kind": null | "stage" | "circuit", "description": "...",
     "ground": ["####", "#..#", ...], "elevated": null | ["", "  ==", ...],
     "car": {"position": [x, y], "direction": "+x", "layer": 0, "slots": [[x, y], ...]},
     "start": {"axis": "x", "k": 4, "span": [lo, hi], "dir": "+x", "layer": 0},
     "finish": {...}, "opening": null | {"moves": 3, "max_speed": 1 | null,
                                          "straight": false}}

`draft_from_json` checks only the shape (types, sizes, grid characters) and
returns an unvalidated draft `Track`; its meaning is judged by the project's
own parser on the TOML text (`racecert.studio.diagnostics`), so the page and
`racecert validate` can never disagree. Shape errors are `DocumentError`s whose
one-line message names the field.
"""

from __future__ import annotations

import tomllib
from typing import Any

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.profiles import GRID, AnyTrack, profile_of
from racecert.model.track import ELEVATED_CHARS, GROUND_CHARS, Car, Line, Opening, Track

MAX_SIDE = 400
"""Largest grid width or height the studio accepts."""
MAX_TEXT = 10_000
"""Longest name or description (characters)."""
_BIG = 10**6  # coordinates and counts beyond this are a mistake, never a track


class DocumentError(ValueError):
    """A document whose shape is wrong; the message names the field."""


def _obj(v: Any, where: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise DocumentError(f"{where}: must be an object")
    return v


def _int(v: Any, where: str, lo: int = -_BIG, hi: int = _BIG) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise DocumentError(f"{where}: must be an integer from {lo} to {hi}, got {v!r}")
    return v


def _pair(v: Any, where: str) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        raise DocumentError(f"{where}: must be a pair of integers [a, b], got {v!r}")
    return _int(v[0], where), _int(v[1], where)


def _text(v: Any, where: str) -> str:
    if not isinstance(v, str) or len(v) > MAX_TEXT:
        raise DocumentError(f"{where}: must be a string of at most {MAX_TEXT} characters")
    return v


def _choice(v: Any, where: str, allowed: tuple[str, ...]) -> str:
    if v not in allowed:
        raise DocumentError(f"{where}: must be one of {', '.join(allowed)}, got {v!r}")
    return v


def _rows(v: Any, where: str, chars: dict[str, str]) -> tuple[str, ...]:
    if not isinstance(v, list) or len(v) > MAX_SIDE:
        raise DocumentError(f"{where}: must be a list of at most {MAX_SIDE} rows")
    for y, row in enumerate(v):
        if not isinstance(row, str) or len(row) > MAX_SIDE:
            raise DocumentError(f"{where} row {y}: must be a string of at most {MAX_SIDE} cells")
        bad = next((c for c in row if c not in chars), None)
        if bad is not None:
            raise DocumentError(f"{where} row {y} column {row.index(bad)}: bad character "
                                f"{bad!r} (allowed: {' '.join(repr(k) for k in chars)})")
    return tuple(v)


def _line(v: Any, where: str) -> Line:
    d = _obj(v, where)
    axis = _choice(d.get("axis"), f"{where}.axis", ("x", "y"))
    lo, hi = _pair(d.get("span"), f"{where}.span")
    direction = _choice(d.get("dir"), f"{where}.dir", ("+x", "-x", "+y", "-y"))
    return Line(axis, _int(d.get("k"), f"{where}.k"), lo, hi, direction,  # type: ignore[arg-type]
                _int(d.get("layer", 0), f"{where}.layer", 0, 1))


def _opening(v: Any) -> Opening | None:
    if v is None:
        return None
    d = _obj(v, "opening")
    max_speed = d.get("max_speed")
    straight = d.get("straight", False)
    if not isinstance(straight, bool):
        raise DocumentError("opening.straight: must be true or false")
    return Opening(_int(d.get("moves"), "opening.moves", 1, _BIG),
                   None if max_speed is None else _int(max_speed, "opening.max_speed", 1, _BIG),
                   straight)


def draft_from_json(data: Any) -> Track:
    """An unvalidated `Track` from the page's document (shape checked only)."""
    d = _obj(data, "document")
    ground = _rows(d.get("ground"), "ground", GROUND_CHARS)
    elevated = None
    if d.get("elevated") is not None:
        elevated = _rows(d["elevated"], "elevated", ELEVATED_CHARS)
    car = _obj(d.get("car"), "car")
    slots = car.get("slots", [])
    if not isinstance(slots, list) or len(slots) > MAX_SIDE:
        raise DocumentError(f"car.slots: must be a list of at most {MAX_SIDE} [x, y] pairs")
    kind = d.get("kind")
    if kind is not None:
        _choice(kind, "kind", ("stage", "circuit"))
    return Track(
        name=_text(d.get("name"), "name"),
        width=len(ground[0]) if ground else 0,
        height=len(ground),
        ground=ground,
        elevated=elevated,
        car=Car(_pair(car.get("position"), "car.position"),
                _choice(car.get("direction"), "car.direction",  # type: ignore[arg-type]
                        ("+x", "-x", "+y", "-y")),
                _int(car.get("layer", 0), "car.layer", 0, 1),
                tuple(_pair(s, "car.slots") for s in slots)),
        start=_line(d.get("start"), "start"),
        finish=_line(d.get("finish"), "finish"),
        opening=_opening(d.get("opening")),
        kind=kind,
        description=_text(d.get("description", ""), "description"),
    )


def _line_json(line: Line) -> dict[str, Any]:
    return {"axis": line.axis, "k": line.k, "span": [line.lo, line.hi], "dir": line.direction,
            "layer": line.layer}


def track_to_json(track: Track) -> dict[str, Any]:
    """The page's document for `track` (the inverse of `draft_from_json`)."""
    op = track.opening
    return {
        "name": track.name,
        "kind": track.kind,
        "description": track.description,
        "ground": list(track.ground),
        "elevated": None if track.elevated is None else list(track.elevated),
        "car": {"position": list(track.car.position), "direction": track.car.direction,
                "layer": track.car.layer, "slots": [list(s) for s in track.car.slots]},
        "start": _line_json(track.start),
        "finish": _line_json(track.finish),
        "opening": None if op is None else {"moves": op.moves, "max_speed": op.max_speed,
                                            "straight": op.straight},
    }


def _document_from_toml_tables(doc: dict[str, Any]) -> dict[str, Any]:
    """The page's document from a parsed TOML table (no validation; KeyError etc. if odd)."""
    def rows(text: str) -> list[str]:
        out = text.replace("\r\n", "\n").split("\n")
        return out[:-1] if out and out[-1] == "" else out

    def line(t: dict[str, Any]) -> dict[str, Any]:
        fixed = "x" if isinstance(t.get("x"), int) and not isinstance(t.get("x"), bool) else "y"
        span = "y" if fixed == "x" else "x"
        return {"axis": fixed, "k": t[fixed], "span": t[span], "dir": t["dir"],
                "layer": t.get("layer", 0)}

    m = doc["map"]
    return {
        "name": doc.get("name", ""), "kind": doc.get("kind"),
        "description": doc.get("description", ""),
        "ground": rows(m["ground"]),
        "elevated": rows(m["elevated"]) if "elevated" in m else None,
        "car": doc["car"], "start": line(doc["start"]), "finish": line(doc["finish"]),
        "opening": doc.get("opening"),
    }


def draft_from_toml(data: bytes, label: str) -> AnyTrack:
    """A track from file bytes: validated when it parses, else a draft the page can fix.

    A file the validator rejects (a car off asphalt, a line that is not a cut)
    still opens as a draft when its tables have the right shape, so that the page
    can show the message on its cell; otherwise the parser's `TrackError` is raised.
    A lattice or cell-path track (`label` ending in ``.track``: a cell-path map) is
    returned as parsed and validated: the page views it read only (`is_grid` tells
    which), since the editor draws grid tracks.
    """
    try:
        track = parse_track(data, label)
    except TrackError as exc:
        first = exc
    else:
        return track  # type: ignore[return-value]
    if label.endswith(".track"):
        raise first
    try:
        tables = tomllib.loads(data.decode("utf-8"))
        return draft_from_json(_document_from_toml_tables(tables))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, DocumentError, KeyError, TypeError,
            AttributeError):
        raise first from None


def is_grid(track: AnyTrack) -> bool:
    """Whether the page edits `track` (a grid track) rather than viewing it read only."""
    return profile_of(track) is GRID
