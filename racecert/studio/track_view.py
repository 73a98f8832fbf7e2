"""The read-only view of a lattice or cell-path track: what the page shows before Analyse.

The studio's editor draws grid tracks; a track of another rule profile
(`racecert.model.profiles`) is shown read only: its file's text (such a file is
edited as text), a one-line note saying why the editing tools are off, a few facts
read from the validated track, and its picture (`track_picture`), drawn here from the
model's fields alone (bounds, walls, circles, finish segment and starts of a lattice
track; the blocked, goal and start cells of a cell-path track), so that opening a file
needs no analysis. After Analyse the page shows the profile's own picture of the
analysis instead (`racecert.studio.view_payload`, in the job's process).

Everything here reads the model only (no numpy, no analysis), as the server must stay
light (tests/cli/test_startup.py).
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from racecert.model.cellpath.track import BLOCKED, GOAL, CellPathTrack
from racecert.model.lattice.track import LatticeTrack
from racecert.model.profiles import AnyTrack, acceleration_set_name, profile_of

FIT = 640
"""Pixels the longer side of the picture fits into."""
MARGIN = 12
DOT_LIMIT = 2_500
"""Most lattice points drawn as dots (a larger lattice is drawn without them)."""
COLORS = {"wall": "#2f3b2f", "bounds": "#888888", "dot": "#b8b8b8", "finish": "#111111",
          "start": "#ffffff", "goal": "#f2c230", "free": "#f4f4f4", "blocked": "#3a4a3a"}


def view_note(track: AnyTrack) -> str:
    """The one line that says why the page shows `track` read only."""
    return (f"Read only: the editor draws grid tracks; a track of the {profile_of(track).title} "
            "is edited as text (its file is on the left). Analyse and Certify work on it.")


def facts(track: AnyTrack) -> list[str]:
    """A few lines about `track`, read from the validated model (file coordinates)."""
    lo, hi = track.bounds_in_file()
    starts = ", ".join(f"({x}, {y})" for x, y in (track.to_file(p) for p in track.starts[:4]))
    more = f" and {len(track.starts) - 4} more" if len(track.starts) > 4 else ""
    unit = "points" if isinstance(track, LatticeTrack) else "cells"
    out = [f"rules: {profile_of(track).title}, {acceleration_set_name(track)} accelerations",
           f"bounds: ({lo[0]}, {lo[1]}) to ({hi[0]}, {hi[1]}), "
           f"{track.width}×{track.height} {unit}",
           f"starts: {starts}{more} (the first is the configured start)"
           if len(track.starts) > 1 else f"start: {starts}"]
    if isinstance(track, LatticeTrack):
        f = track.finish
        a, b = track.to_file(f.a), track.to_file(f.b)
        kind = ("touching it finishes" if f.direction is None else
                f"crossing towards ({f.direction[0]}, {f.direction[1]})"
                + ("" if f.laps is None else f", {f.laps} lap{'s' if f.laps != 1 else ''}"))
        out.append(f"finish: ({a[0]}, {a[1]}) to ({b[0]}, {b[1]}), {kind}")
        out.append(f"walls: {_many(len(track.segments), 'segment')}, "
                   f"{_many(len(track.circles), 'circle')}")
    else:
        goals = sum(r.count(GOAL) for r in track.rows)
        cap = "no speed cap" if track.speed_cap is None else f"speed cap {track.speed_cap}"
        out.append(f"goal cells: {goals}; acceleration up to {track.max_acceleration} "
                   f"per axis; {cap}")
    return out


def _many(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def track_view(track: AnyTrack, text: str, label: str) -> dict[str, Any]:
    """Everything the page shows of a read-only track before any job: its profile, name,
    description, file text and name (the jobs run on that text), the note, facts and
    picture."""
    p = profile_of(track)
    return {"profile": p.name, "title": p.title, "name": track.name,
            "description": track.description, "file": label, "text": text,
            "width": track.width, "height": track.height, "note": view_note(track),
            "facts": facts(track), "picture": track_picture(track)}


class _Frame:
    """Local coordinates (lattice points, or cell centres) to pixels."""

    def __init__(self, track: AnyTrack, pad: float) -> None:
        self.pad = pad
        w, h = track.width - 1 + 2 * pad, track.height - 1 + 2 * pad
        self.scale = max(0.5, min(40.0, FIT / max(w, h, 1)))
        self.w = int(2 * MARGIN + w * self.scale)
        self.h = int(2 * MARGIN + h * self.scale)

    def x(self, v: float) -> float:
        return round(MARGIN + (v + self.pad) * self.scale, 2)

    def y(self, v: float) -> float:
        return round(MARGIN + (v + self.pad) * self.scale, 2)


def _lattice(t: LatticeTrack, f: _Frame) -> list[str]:
    s = f.scale
    out = [f'<rect id="bounds" x="{f.x(0)}" y="{f.y(0)}" width="{round((t.width - 1) * s, 2)}" '
           f'height="{round((t.height - 1) * s, 2)}" fill="none" stroke="{COLORS["bounds"]}"/>']
    if t.width * t.height <= DOT_LIMIT:
        r = max(0.6, min(1.6, s / 12))
        out.append('<g id="points">' + "".join(
            f'<circle cx="{f.x(x)}" cy="{f.y(y)}" r="{r:.2f}" fill="{COLORS["dot"]}"/>'
            for y in range(t.height) for x in range(t.width)) + "</g>")
    walls = [f'<polyline points="{" ".join(f"{f.x(x)},{f.y(y)}" for x, y in line)}" '
             f'fill="none" stroke="{COLORS["wall"]}" stroke-width="2.5"/>'
             for line in t.polylines]
    walls += [f'<circle cx="{f.x(c.center[0])}" cy="{f.y(c.center[1])}" '
              f'r="{round(c.radius * s, 2)}" fill="{COLORS["wall"]}" fill-opacity="0.35" '
              f'stroke="{COLORS["wall"]}" stroke-width="2.5"/>' for c in t.circles]
    out.append('<g id="walls">' + "".join(walls) + "</g>")
    fin = t.finish
    parts = [f'<line x1="{f.x(fin.a[0])}" y1="{f.y(fin.a[1])}" x2="{f.x(fin.b[0])}" '
             f'y2="{f.y(fin.b[1])}" stroke="{COLORS["finish"]}" stroke-width="3" '
             'stroke-dasharray="6 3"/>']
    if fin.direction is not None:
        mx, my = (fin.a[0] + fin.b[0]) / 2, (fin.a[1] + fin.b[1]) / 2
        dx, dy = fin.direction
        n = max(abs(dx), abs(dy)) or 1
        parts.append(f'<line x1="{f.x(mx)}" y1="{f.y(my)}" x2="{f.x(mx + dx / n)}" '
                     f'y2="{f.y(my + dy / n)}" stroke="{COLORS["finish"]}" stroke-width="2"/>')
    out.append('<g id="finish">' + "".join(parts) + "</g>")
    return out


def _cells(t: CellPathTrack, f: _Frame) -> list[str]:
    """The cells as one rectangle per horizontal run of blocked or goal cells."""
    s = f.scale
    fill = {BLOCKED: COLORS["blocked"], GOAL: COLORS["goal"]}
    out = [f'<rect id="bounds" x="{f.x(-0.5)}" y="{f.y(-0.5)}" width="{round(t.width * s, 2)}" '
           f'height="{round(t.height * s, 2)}" fill="{COLORS["free"]}" '
           f'stroke="{COLORS["bounds"]}"/>']
    for char, gid in ((BLOCKED, "blocked"), (GOAL, "goal")):
        runs = []
        for y, row in enumerate(t.rows):
            x = 0
            while x < t.width:
                if row[x] != char:
                    x += 1
                    continue
                end = x
                while end < t.width and row[end] == char:
                    end += 1
                runs.append(f'<rect x="{f.x(x - 0.5)}" y="{f.y(y - 0.5)}" '
                            f'width="{round((end - x) * s, 2)}" height="{round(s, 2)}"/>')
                x = end
        out.append(f'<g id="{gid}" fill="{fill[char]}">' + "".join(runs) + "</g>")
    return out


def track_picture(track: AnyTrack) -> str:
    """An SVG picture of a lattice or cell-path track (module docstring), in the file's
    orientation (y downward); every start a white dot, the configured one ringed."""
    cellpath = isinstance(track, CellPathTrack)
    f = _Frame(track, 0.5 if cellpath else 0.0)
    body = _cells(track, f) if cellpath else _lattice(track, f)  # type: ignore[arg-type]
    r = max(2.5, min(7.0, f.scale / 3))
    starts = [f'<circle cx="{f.x(x)}" cy="{f.y(y)}" r="{r:.2f}" fill="{COLORS["start"]}" '
              f'stroke="#000000" stroke-width="{2.5 if i == 0 else 1}"/>'
              for i, (x, y) in enumerate(track.starts)]
    body.append('<g id="starts">' + "".join(starts) + "</g>")
    n = len(track.starts)
    title = escape(f"{track.name} ({profile_of(track).title}, {n} start{'s' if n != 1 else ''})")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{f.w}" height="{f.h}" '
            f'viewBox="0 0 {f.w} {f.h}"><title>{title}</title>' + "".join(body) + "</svg>")
