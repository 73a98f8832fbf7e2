"""An SVG picture of a track and its analysis, readable at a glance.

Drawn: the ground grid (asphalt, shoulders, ramps, off-track), the elevated
layer on top (translucent blue, with an outline), the start (S) and finish
(F) lines with an arrow for their direction, the red coverage (cells touched
by the optimal DAG), and the yellow, green and blue trajectories as polylines
through the car positions. A title carries m* and the counts; a legend names
every colour.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from racecert.analysis.pipeline import Analysis
from racecert.analysis.trajectory import Trajectory
from racecert.model.track import DIRECTION_VECTORS, Line, Track

CELL = 20
TOP = 72
LEGEND_H = 116
MIN_WIDTH = 640
COLORS = {
    "off": "#2f3b2f",
    "asphalt": "#d9d9d9",
    "shoulder": "#e0c27a",
    "ramp": "#f0913a",
    "elevated": "#4a78c8",
    "red": "#e0201b",
    "yellow": "#e6b800",
    "green": "#1f9d3a",
    "blue": "#1f4fd1",
    "start": "#ffffff",
    "finish": "#111111",
}


def _cell_rect(x: int, y: int, fill: str, extra: str = "") -> str:
    return (f'<rect x="{x * CELL}" y="{TOP + y * CELL}" width="{CELL}" height="{CELL}" '
            f'fill="{fill}"{extra}/>')


def _grid(track: Track) -> list[str]:
    out = []
    for y in range(track.height):
        for x in range(track.width):
            c = track.char(0, x, y)
            kind = {"#": "off", ".": "asphalt", ":": "shoulder", "/": "ramp"}[c]
            out.append(_cell_rect(x, y, COLORS[kind]))
    if track.elevated is not None:
        for y in range(track.height):
            for x in range(track.width):
                c = track.char(1, x, y)
                if c in ("=", ":"):
                    fill = COLORS["shoulder"] if c == ":" else COLORS["elevated"]
                    out.append(_cell_rect(x, y, fill, ' fill-opacity="0.55" stroke="#1b3a80" '
                                          'stroke-width="0.6"'))
    return out


def _center(p: tuple[int, int]) -> tuple[float, float]:
    return p[0] * CELL + CELL / 2, TOP + p[1] * CELL + CELL / 2


def _line(line: Line, color: str, label: str) -> list[str]:
    if line.axis == "x":
        x1 = x2 = (line.k + 1) * CELL
        y1, y2 = TOP + line.lo * CELL, TOP + (line.hi + 1) * CELL
    else:
        y1 = y2 = TOP + (line.k + 1) * CELL
        x1, x2 = line.lo * CELL, (line.hi + 1) * CELL
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    dx, dy = DIRECTION_VECTORS[line.direction]
    ax, ay = mx + dx * CELL * 0.9, my + dy * CELL * 0.9
    dash = ' stroke-dasharray="4 3"' if line.layer == 1 else ""
    return [
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{color}" stroke-width="4"'
        f'{dash}/>',
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#000" stroke-width="1"/>',
        f'<line x1="{mx}" y1="{my}" x2="{ax}" y2="{ay}" stroke="{color}" stroke-width="3" '
        f'marker-end="url(#arrow-{label})"/>',
        f'<text x="{mx + 3}" y="{my - 3}" font-size="12" font-weight="bold" fill="{color}" '
        f'stroke="#000" stroke-width="0.4">{label}</text>',
    ]


def _trajectory(t: Trajectory, color: str, width: float, offset: float) -> list[str]:
    pts = " ".join(f"{cx + offset:.1f},{cy + offset:.1f}"
                   for cx, cy in (_center(p) for p in t.positions))
    dots = "".join(f'<circle cx="{cx + offset:.1f}" cy="{cy + offset:.1f}" r="2.2" '
                   f'fill="{color}"/>' for cx, cy in (_center(p) for p in t.positions))
    return [f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="{width}" '
            f'stroke-opacity="0.9" stroke-linejoin="round"/>', dots]


def line_markers() -> list[str]:
    """The arrow markers the S and F lines use (to go inside `<defs>`)."""
    return [f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="4" '
            f'markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{COLORS["start" if k == "S" else "finish"]}" stroke="#000" '
            f'stroke-width="1"/></marker>' for k in ("S", "F")]


def track_elements(track: Track) -> list[str]:
    """The track alone: ground grid, elevated layer, S and F lines (cells of `CELL` px,
    the grid's top at y = `TOP`). Other pictures (the race replay) draw on top of it."""
    return [*_grid(track), *_line(track.start, COLORS["start"], "S"),
            *_line(track.finish, COLORS["finish"], "F")]


def render_svg(a: Analysis) -> str:
    """The SVG document for analysis `a`."""
    t = a.track
    w = max(t.width * CELL, MIN_WIDTH)
    h = TOP + t.height * CELL + LEGEND_H
    j = a.to_json()
    title = f"{t.name} — {j['kind']}, mode {a.mode}"
    sub2 = ""
    if a.bfs.reachable:
        sub = (f"m* = {a.bfs.m_star}, {a.bfs.optimal_count:,} optimal trajectories, "
               f"{a.bfs.final_states} final states")
        parts = []
        if a.continuity is not None and a.circuit:
            parts.append(f"{j['continuable_percent']:.2f} % continuable")
        if a.score is not None:
            parts.append(f"score {a.score.total:.2f} ({a.score.band})")
        sub2 = ", ".join(parts)
    else:
        sub = "finish unreachable"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        "<defs>",
        *line_markers(),
        "</defs>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
        f'<text x="6" y="22" font-size="16" font-weight="bold">{escape(title)}</text>',
        f'<text x="6" y="42" font-size="12">{escape(sub)}</text>',
        f'<text x="6" y="58" font-size="12">{escape(sub2)}</text>',
        *_grid(t),
    ]
    if a.coverage is not None:
        out += [_cell_rect(x, y, COLORS["red"], ' fill-opacity="0.28"')
                for x, y in sorted(a.coverage.cells)]
    out += _line(t.start, COLORS["start"], "S")
    out += _line(t.finish, COLORS["finish"], "F")
    layers = []
    y = a.yellow_trajectory
    if y is not None:
        layers.append(("yellow", y, 4.0, 0.0))
    if a.representatives is not None:
        layers.append(("green", a.representatives.green.trajectory, 2.6, -2.0))
        layers.append(("blue", a.representatives.blue.trajectory, 2.6, 2.0))
    for name, traj, width, off in layers:
        out += _trajectory(traj, COLORS[name], width, off)
    cx, cy = _center(t.car.position)
    out.append(f'<circle cx="{cx}" cy="{cy}" r="5" fill="#000" stroke="#fff" stroke-width="1.5"/>')
    out += _legend(a, TOP + t.height * CELL + 8)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(a: Analysis, y0: int) -> list[str]:
    j = a.to_json()
    items = [("red", "red: cells of optimal trajectories"
              + (f" ({j['coverage']['red_float'] * 100:.1f} %)" if j["coverage"] else ""))]
    for name in ("yellow", "green", "blue"):
        d = j[name]
        if d:
            what = {"yellow": "shortest overall", "green": "shortest optimal",
                    "blue": "longest optimal"}[name]
            items.append((name, f"{name}: {what}, {d['moves']} moves, "
                                f"length {d['length']:.3f}"))
    chars = {c for grid in (a.track.ground, a.track.elevated or ()) for row in grid for c in row}
    items += [(k, text) for k, text, c in (("shoulder", "shoulder", ":"), ("ramp", "ramp", "/"),
                                           ("elevated", "elevated layer", "="))
              if c in chars]
    out = []
    columns = 2 if a.track.width * CELL >= 2 * 380 else 1
    rows = -(-len(items) // columns)
    for i, (color, text) in enumerate(items):
        col, row = i // rows, i % rows
        x, y = 8 + col * 380, y0 + row * 16
        out.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{COLORS[color]}" '
                   f'stroke="#333" stroke-width="0.5"/>')
        out.append(f'<text x="{x + 16}" y="{y + 10}" font-size="11">{escape(text)}</text>')
    return out
