"""Parse and validate lattice track files (``rules = "lattice"``, docs/track-format.md).

`racecert.model.parse.parse_track` hands every document with a top-level ``rules``
key to `parse_with_rules`. Errors are `TrackError`s of one line naming the file, the
line, the key (``[finish].direction``, ``[[walls]] 3 .points``) and what is wrong;
unknown keys are errors, as in grid files. Coordinates in the file are anything within
the limits; the track stores them shifted so that the bounds start at (0, 0)
(`LatticeTrack.origin` keeps the shift). The top-level ``accelerations`` key names the
acceleration set (`ACCELERATION_SETS`: ``"moore"`` by default, or ``"von-neumann"``).
"""

from __future__ import annotations

import re
from typing import Any

from racecert.model.errors import TrackError
from racecert.model.lattice.geometry import enters_disc, orient, touches
from racecert.model.lattice.track import (
    ACCELERATION_SETS,
    MAX_COORD,
    MAX_SIDE,
    Circle,
    LatticeFinish,
    LatticeTrack,
    Point,
)

_TOP_KEYS = {"rules", "name", "description", "accelerations", "bounds", "walls", "circles",
             "start", "finish"}
_BOUNDS_KEYS = {"x", "y"}
_WALL_KEYS = {"points"}
_CIRCLE_KEYS = {"center", "radius"}
_START_KEYS = {"positions"}
_FINISH_KEYS = {"from", "to", "direction", "laps"}
MAX_LAPS = 100


class _Where:
    """Best-effort file lines for keys of tables and of the n-th ``[[table]]``."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line(self, table: str | None, index: int | None, key: str | None) -> int | None:
        header = None
        if table is not None:
            pat = (r"^\s*\[\[\s*" if index is not None else r"^\s*\[\s*") + re.escape(table)
            header = re.compile(pat + (r"\s*\]\]" if index is not None else r"\s*\]"))
        key_re = re.compile(r"^\s*" + re.escape(key) + r"\s*=") if key else None
        inside, seen, found = table is None, -1, None
        for i, text in enumerate(self.lines, start=1):
            if re.match(r"^\s*\[", text):
                if header is not None and header.match(text):
                    seen += 1
                    inside = index is None or seen == index
                    if inside:
                        found = i
                    continue
                if inside and found is not None:
                    break
                inside = False
                continue
            if inside and key_re is not None and key_re.match(text):
                return i
        return found

    def error(self, table: str | None, key: str | None, message: str,
              index: int | None = None) -> TrackError:
        if table is None:
            where = key or ""
        elif index is not None:
            where = f"[[{table}]] {index + 1}" + (f" .{key}" if key else "")
        else:
            where = f"[{table}]" + (f".{key}" if key else "")
        return TrackError(self.path, where, message, self.line(table, index, key))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class _Reader:
    """Typed getters that raise one-line errors at the right place."""

    def __init__(self, where: _Where) -> None:
        self.w = where

    def unknown(self, table: str | None, d: dict[str, Any], allowed: set[str],
                index: int | None = None) -> None:
        for k in d:
            if k not in allowed:
                raise self.w.error(table, k, f"unknown key (allowed: {', '.join(sorted(allowed))})",
                                   index)

    def table(self, d: dict[str, Any], key: str, required: bool) -> dict[str, Any] | None:
        if key not in d:
            if required:
                raise self.w.error(None, key, f"missing required table [{key}]")
            return None
        if not isinstance(d[key], dict):
            raise self.w.error(None, key, "must be a table")
        return d[key]

    def tables(self, d: dict[str, Any], key: str) -> list[dict[str, Any]]:
        v = d.get(key, [])
        if not isinstance(v, list) or not all(isinstance(e, dict) for e in v):
            raise self.w.error(None, key, f"must be an array of tables: write each as [[{key}]]")
        return v

    def pair(self, table: str, key: str, v: Any, index: int | None = None) -> Point:
        if not (isinstance(v, list) and len(v) == 2 and all(_is_int(c) for c in v)):
            raise self.w.error(table, key, f"must be a pair of integers [x, y], got {v!r}", index)
        if max(abs(v[0]), abs(v[1])) > MAX_COORD:
            raise self.w.error(table, key, f"{v!r} is too far out (coordinates within "
                               f"±{MAX_COORD:,})", index)
        return (v[0], v[1])

    def points(self, table: str, key: str, v: Any, least: int, index: int | None = None
               ) -> list[Point]:
        if not isinstance(v, list) or len(v) < least:
            raise self.w.error(table, key, f"must be a list of at least {least} [x, y] "
                               f"pairs, got {v!r}", index)
        return [self.pair(table, key, p, index) for p in v]

    def integer(self, table: str, key: str, v: Any, lo: int, hi: int,
                index: int | None = None) -> int:
        if not _is_int(v):
            raise self.w.error(table, key, f"must be an integer, got {v!r}", index)
        if not lo <= v <= hi:
            raise self.w.error(table, key, f"must be from {lo} to {hi:,}, got {v}", index)
        return v

    def required(self, table: str, d: dict[str, Any], key: str, index: int | None = None
                 ) -> Any:
        if key not in d:
            raise self.w.error(table, key, "missing required key", index)
        return d[key]


def parse_with_rules(doc: dict[str, Any], text: str, path: str, sha: str) -> LatticeTrack:
    """A track file with a ``rules`` key other than "cell-path" (read by
    `racecert.model.cellpath.parse`): only ``rules = "lattice"`` is one."""
    w = _Where(path, text)
    if doc.get("rules") != "lattice":
        raise w.error(None, "rules", "must be \"lattice\" or \"cell-path\" (leave the key "
                      f"out for a grid track), got {doc.get('rules')!r}")
    return _build(doc, _Reader(w), sha, path)


def _bounds(r: _Reader, doc: dict[str, Any]) -> tuple[Point, int, int]:
    b = r.table(doc, "bounds", required=True)
    assert b is not None
    r.unknown("bounds", b, _BOUNDS_KEYS)
    lo_hi = []
    for axis in ("x", "y"):
        lo, hi = r.pair("bounds", axis, r.required("bounds", b, axis))
        if hi - lo + 1 < 2:
            raise r.w.error("bounds", axis, f"[{lo}, {hi}] must span at least 2 lattice "
                            "points (lo < hi)")
        if hi - lo + 1 > MAX_SIDE:
            raise r.w.error("bounds", axis, f"[{lo}, {hi}] spans {hi - lo + 1:,} points; at "
                            f"most {MAX_SIDE:,}")
        lo_hi.append((lo, hi))
    (x0, x1), (y0, y1) = lo_hi
    return (x0, y0), x1 - x0 + 1, y1 - y0 + 1


def _build(doc: dict[str, Any], r: _Reader, sha: str, path: str) -> LatticeTrack:
    r.unknown(None, doc, _TOP_KEYS)
    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        raise r.w.error(None, "name", "missing or empty (a string is required)")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise r.w.error(None, "description", "must be a string")
    accelerations = _accelerations(r, doc)
    origin, width, height = _bounds(r, doc)

    def local(p: Point) -> Point:
        return (p[0] - origin[0], p[1] - origin[1])

    polylines = []
    for i, wall in enumerate(r.tables(doc, "walls")):
        r.unknown("walls", wall, _WALL_KEYS, i)
        pts = r.points("walls", "points", r.required("walls", wall, "points", i), 2, i)
        polylines.append(tuple(local(p) for p in pts))
    circles = []
    for i, c in enumerate(r.tables(doc, "circles")):
        r.unknown("circles", c, _CIRCLE_KEYS, i)
        center = r.pair("circles", "center", r.required("circles", c, "center", i), i)
        radius = r.integer("circles", "radius", r.required("circles", c, "radius", i), 1,
                           MAX_SIDE, i)
        circles.append(Circle(local(center), radius))
    st = r.table(doc, "start", required=True)
    assert st is not None
    r.unknown("start", st, _START_KEYS)
    starts = [local(p) for p in r.points("start", "positions",
                                         r.required("start", st, "positions"), 1)]
    finish = _finish(r, doc, local)
    track = LatticeTrack(name=name, width=width, height=height, origin=origin,
                         polylines=tuple(polylines), circles=tuple(circles),
                         starts=tuple(starts), finish=finish, accelerations=accelerations,
                         description=description, sha256=sha, path=path)
    _check_starts(r, track)
    return track


def _accelerations(r: _Reader, doc: dict[str, Any]) -> str:
    """The ``accelerations`` key: one of `ACCELERATION_SETS` (default the first)."""
    v = doc.get("accelerations", ACCELERATION_SETS[0])
    if v not in ACCELERATION_SETS:
        default, *others = ACCELERATION_SETS
        allowed = " or ".join([f'"{default}" (the default)', *(f'"{o}"' for o in others)])
        raise r.w.error(None, "accelerations", f"must be {allowed}, got {v!r}")
    return str(v)


def _finish(r: _Reader, doc: dict[str, Any], local: Any) -> LatticeFinish:
    f = r.table(doc, "finish", required=True)
    assert f is not None
    r.unknown("finish", f, _FINISH_KEYS)
    a = r.pair("finish", "from", r.required("finish", f, "from"))
    b = r.pair("finish", "to", r.required("finish", f, "to"))
    if a == b:
        raise r.w.error("finish", "to", f"the finish segment from {list(a)} to {list(b)} has "
                        "no length")
    direction = None
    if "direction" in f:
        direction = r.pair("finish", "direction", f["direction"])
        if orient((0, 0), (b[0] - a[0], b[1] - a[1]), direction) == 0:
            raise r.w.error("finish", "direction", f"{list(direction)} is parallel to the "
                            "finish segment (or zero): it must point to one side of it")
    laps = None
    if "laps" in f:
        laps = r.integer("finish", "laps", f["laps"], 1, MAX_LAPS)
        if direction is None:
            raise r.w.error("finish", "laps", "laps are counted as net crossings of a "
                            "directed finish: give [finish].direction too")
    return LatticeFinish(local(a), local(b), direction, laps)


def _check_starts(r: _Reader, t: LatticeTrack) -> None:
    seen: set[Point] = set()
    for p in t.starts:
        shown = list(t.to_file(p))
        if not (0 <= p[0] < t.width and 0 <= p[1] < t.height):
            lo, hi = t.bounds_in_file()
            raise r.w.error("start", "positions", f"{shown} is outside the bounds "
                            f"x {lo[0]}..{hi[0]}, y {lo[1]}..{hi[1]}")
        if p in seen:
            raise r.w.error("start", "positions", f"{shown} is listed twice")
        seen.add(p)
        for a, b in t.segments:
            if touches(p, p, a, b):
                raise r.w.error("start", "positions", f"{shown} lies on the wall "
                                f"{list(t.to_file(a))}-{list(t.to_file(b))}")
        for c in t.circles:
            if enters_disc(p, p, c.center, c.radius):
                raise r.w.error("start", "positions", f"{shown} lies inside the circle "
                                f"around {list(t.to_file(c.center))}")
        f = t.finish
        if f.direction is None and touches(p, p, f.a, f.b):
            raise r.w.error("start", "positions", f"{shown} lies on the finish segment, "
                            "which a plain finish ends at once (give [finish].direction)")
