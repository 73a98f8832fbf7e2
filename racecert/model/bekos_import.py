"""Import the XML tracks of Bekos et al.'s RaceTrack game as lattice track files.

The format (the game's reader, michaelbekos/racetrack): ``<Track name type>`` with
``type`` "Sprint" or "Circuit"; ``<OuterBoundaries>`` and ``<InnerBoundaries>`` are
polylines of ``<Point id x y/>`` joined in id order (each consecutive pair is a wall
segment); ``<Dimension width height/>`` bounds the destinations (0 <= x < width,
0 <= y < height); ``<StartingPositions>`` lists lattice points. A Sprint finishes on
the segment from the last inner point to the last outer point, a Circuit on its
``<FinishLine x1 y1 x2 y2/>``; the finish is touched in any direction (no direction
check in that game), so the imported finish is a plain one.

Safety: the XML is read by `xml.etree` through an expat parser that refuses any
document type declaration and any entity declaration or external entity (the
defusedxml policy: no entity expansion bombs, no external fetches), and files above
`MAX_BYTES` are refused before parsing. Every problem is one `TrackError` line
naming the file, the line when known, the element and what is wrong.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
import xml.parsers.expat as expat
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from racecert.model.errors import TrackError
from racecert.model.file_read import read_bounded

MAX_BYTES = 4 << 20
"""Largest XML file imported (the public tracks are a few kilobytes)."""
Point = tuple[int, int]


class _Refused(Exception):
    """A DTD or entity met while parsing (turned into a TrackError with its line)."""


@dataclass(frozen=True)
class BekosTrack:
    """The content of one XML file, in the file's own coordinates."""

    name: str
    kind: str  # "Sprint" or "Circuit"
    width: int
    height: int
    outer: tuple[Point, ...]
    inner: tuple[Point, ...]
    starts: tuple[Point, ...]
    finish: tuple[Point, Point]
    sha256: str
    file_name: str


def _parse_xml(data: bytes, path: str) -> ET.Element:
    """The element tree of `data`, built by `xml.etree`'s TreeBuilder from an expat parser
    that refuses DTDs and entities (it raises before anything is expanded or fetched)."""
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def refuse(what: str) -> NoReturn:
        raise _Refused(what)

    parser.StartDoctypeDeclHandler = lambda *a: refuse("a document type declaration (DTD)")
    parser.EntityDeclHandler = lambda *a: refuse("an entity declaration")
    parser.UnparsedEntityDeclHandler = lambda *a: refuse("an unparsed entity declaration")
    parser.ExternalEntityRefHandler = lambda *a: refuse("an external entity reference")
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
        return builder.close()
    except _Refused as exc:
        raise TrackError(path, "", f"refused: the XML contains {exc}; track files need "
                         "none", parser.CurrentLineNumber) from None
    except expat.ExpatError as exc:
        raise TrackError(path, "", f"malformed XML: {expat.errors.messages[exc.code]} "
                         f"(column {exc.offset + 1})", exc.lineno) from None


def _int(path: str, el: ET.Element, attr: str) -> int:
    v = el.get(attr)
    if v is None:
        raise TrackError(path, f"<{el.tag}>", f"missing attribute {attr!r}")
    try:
        return int(v.strip())
    except ValueError:
        raise TrackError(path, f"<{el.tag}>", f"attribute {attr}={v!r} is not an "
                         "integer") from None


def _child(path: str, root: ET.Element, tag: str) -> ET.Element:
    found = root.findall(tag)
    if len(found) != 1:
        raise TrackError(path, f"<{tag}>", "missing" if not found else
                         f"given {len(found)} times (once expected)")
    return found[0]


def _polyline(path: str, root: ET.Element, tag: str) -> tuple[Point, ...]:
    el = _child(path, root, tag)
    pts: dict[int, Point] = {}
    for p in el.findall("Point"):
        pid = _int(path, p, "id")
        if pid in pts:
            raise TrackError(path, f"<{tag}>", f"point id {pid} is given twice")
        pts[pid] = (_int(path, p, "x"), _int(path, p, "y"))
    if len(pts) < 2:
        raise TrackError(path, f"<{tag}>", f"needs at least 2 points, found {len(pts)}")
    return tuple(pts[k] for k in sorted(pts))


def read_bekos(path: str | Path) -> BekosTrack:
    """Read and check one XML track file (one-line `TrackError` on any problem)."""
    shown = str(path)
    data = read_bounded(shown, MAX_BYTES, "track")
    return parse_bekos(data, shown)


def parse_bekos(data: bytes, path: str = "<string>") -> BekosTrack:
    """The track in XML bytes `data`."""
    root = _parse_xml(data, path)
    if root.tag != "Track":
        raise TrackError(path, f"<{root.tag}>", "the root element must be <Track>")
    name = (root.get("name") or "").strip()
    if not name:
        raise TrackError(path, "<Track>", "missing or empty attribute 'name'")
    kind = root.get("type")
    if kind not in ("Sprint", "Circuit"):
        raise TrackError(path, "<Track>", f"attribute type must be 'Sprint' or 'Circuit', "
                         f"got {kind!r}")
    dim = _child(path, root, "Dimension")
    width, height = _int(path, dim, "width"), _int(path, dim, "height")
    if width < 2 or height < 2:
        raise TrackError(path, "<Dimension>", f"{width} x {height}: each side needs at least "
                         "2 lattice points")
    outer = _polyline(path, root, "OuterBoundaries")
    inner = _polyline(path, root, "InnerBoundaries")
    starts = tuple((_int(path, s, "x"), _int(path, s, "y"))
                   for s in _child(path, root, "StartingPositions").findall("Point"))
    if not starts:
        raise TrackError(path, "<StartingPositions>", "no <Point> given")
    lines = root.findall("FinishLine")
    if kind == "Circuit":
        if len(lines) != 1:
            raise TrackError(path, "<FinishLine>", "a Circuit needs exactly one <FinishLine>")
        fl = lines[0]
        finish = ((_int(path, fl, "x1"), _int(path, fl, "y1")),
                  (_int(path, fl, "x2"), _int(path, fl, "y2")))
    else:
        if lines:
            raise TrackError(path, "<FinishLine>", "a Sprint has no <FinishLine>: it "
                             "finishes between the last inner and the last outer point")
        finish = (inner[-1], outer[-1])
    return BekosTrack(name, kind, width, height, outer, inner, starts, finish,
                      hashlib.sha256(data).hexdigest(), Path(path).name)


def _pts(points: tuple[Point, ...]) -> str:
    return "[" + ", ".join(f"[{x}, {y}]" for x, y in points) + "]"


def _toml_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_toml(t: BekosTrack) -> str:
    """The lattice track file of `t` (docs/track-format.md), deterministic text."""
    finish_from = "the last inner to the last outer boundary point" if t.kind == "Sprint" \
        else "its <FinishLine>"
    description = (f"Imported from {t.file_name} (Bekos et al. RaceTrack XML, type {t.kind}, "
                   f"sha256 {t.sha256}); the finish runs from {finish_from} and counts when "
                   "touched in any direction.")
    return "\n".join([
        f"# Imported by `racecert import bekos {t.file_name}` (docs/track-format.md).",
        'rules = "lattice"',
        f"name = {_toml_string(t.name)}",
        f"description = {_toml_string(description)}",
        "",
        "[bounds]",
        f"x = [0, {t.width - 1}]",
        f"y = [0, {t.height - 1}]",
        "",
        "[[walls]]  # OuterBoundaries",
        f"points = {_pts(t.outer)}",
        "",
        "[[walls]]  # InnerBoundaries",
        f"points = {_pts(t.inner)}",
        "",
        "[start]",
        f"positions = {_pts(t.starts)}",
        "",
        "[finish]",
        f"from = [{t.finish[0][0]}, {t.finish[0][1]}]",
        f"to = [{t.finish[1][0]}, {t.finish[1][1]}]",
        "",
    ])
