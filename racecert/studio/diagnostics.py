"""The validator's verdict on a draft, placed on the cells, line or field it names.

The draft is written as TOML (`track_to_toml`) and parsed by the project's own
parser, so the page shows exactly the message `racecert validate` would print.
`TrackError.where` says where (a grid cell, a table key, a line); `locate` turns
that into something the page can draw: cells to outline, a line to highlight or
a form field to mark.

A valid track also gets the reachability notes of `reachability_notes`: unit-step
floods (`racecert.model.topology`, vectorised)
over-approximate every car's motion, so when
they cannot cross the start line from the car, or the finish line after the
start line, no trajectory can, and the analysis would report "unreachable". The
notes are exact in that direction only: a track without a note may still turn
out unreachable (speed, shoulders, the opening rule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.topology import Node, exit_cells, flood_directed
from racecert.model.track import Track
from racecert.studio.toml_text import track_to_toml

_CELL = re.compile(r"^\[map\]\.(ground|elevated) row (\d+) column (\d+)$")
_XY = re.compile(r"\((-?\d+), (-?\d+)\)")


@dataclass(frozen=True)
class Target:
    """What a message is about: cells (x, y, layer), a line ("start"/"finish") or a field."""

    cells: tuple[tuple[int, int, int], ...] = ()
    line: str | None = None
    field: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"cells": [list(c) for c in self.cells], "line": self.line, "field": self.field}


@dataclass(frozen=True)
class Message:
    """One message for the page: where (as the validator says it), what, and its target."""

    where: str
    message: str
    target: Target
    level: str = "error"  # "error": the file is rejected; "unreachable": valid, no finish

    @property
    def text(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    def to_json(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message, "text": self.text,
                "level": self.level, "target": self.target.to_json()}


@dataclass(frozen=True)
class Verdict:
    """The validator's answer on a draft: the TOML, the track if valid, and the messages."""

    toml: str
    track: Track | None
    messages: tuple[Message, ...] = field(default=())

    @property
    def valid(self) -> bool:
        return self.track is not None

    def to_json(self) -> dict[str, Any]:
        t = self.track
        summary = None
        if t is not None:
            summary = (f"{t.width}x{t.height}, {t.layers} layer(s)"
                       f"{', opening rule' if t.opening else ''}")
        return {"valid": self.valid, "summary": summary, "toml": self.toml,
                "messages": [m.to_json() for m in self.messages]}


def locate(error: TrackError, draft: Track) -> Target:
    """The cells, line or field that `error.where` (and its message) names."""
    where = error.where
    m = _CELL.match(where)
    if m:
        layer = 0 if m.group(1) == "ground" else 1
        return Target(cells=((int(m.group(3)), int(m.group(2)), layer),))
    table = where[1:where.index("]")] if where.startswith("[") and "]" in where else None
    key = where.split(".", 1)[1] if table and "." in where else None
    if table == "car":
        if key == "slots":
            found = _XY.search(error.message)
            cells = (((int(found.group(1)), int(found.group(2)), draft.car.layer),)
                     if found else tuple((x, y, draft.car.layer) for x, y in draft.car.slots))
            return Target(cells=cells, field="car.slots")
        x, y = draft.car.position
        return Target(cells=((x, y, draft.car.layer),), field=f"car.{key or 'position'}")
    if table in ("start", "finish"):
        return Target(line=table, field=f"{table}.{key}" if key else None)
    if table is not None:
        return Target(field=f"{table}.{key}" if key else table)
    return Target(field=where or None)


def reachability_notes(track: Track) -> tuple[Message, ...]:
    """Notes when no trajectory can cross the start line, or the finish line after it."""
    lines = (track.start, track.finish)
    layer = track.car.layer
    cars: list[Node] = [(*track.car.position, layer)] + [(x, y, layer)
                                                          for x, y in track.car.slots]
    _, to_start = flood_directed(track, cars, lines, track.start)
    car_cell = Target(cells=((*track.car.position, layer),), line="start")
    if not to_start:
        return (Message("[start]", "unreachable: no drivable path from the car crosses the "
                        f"start line in its direction ({track.start.direction})", car_cell,
                        "unreachable"),)
    _, to_finish = flood_directed(track, exit_cells(track, track.start), lines, track.finish)
    if not to_finish:
        return (Message("[finish]", "unreachable: no drivable path from the start line "
                        f"crosses the finish line in its direction ({track.finish.direction})",
                        Target(line="finish"), "unreachable"),)
    return ()


def validate_draft(draft: Track, label: str = "track") -> Verdict:
    """Write `draft` as TOML, parse it with the project's parser, and place the verdict."""
    text = track_to_toml(draft)
    try:
        track = parse_track(text.encode("utf-8"), label)
    except TrackError as exc:
        return Verdict(text, None, (Message(exc.where, exc.message, locate(exc, draft)),))
    return Verdict(text, track, reachability_notes(track))
