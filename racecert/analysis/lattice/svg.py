"""An SVG picture of a lattice or cell-path track and its analysis.

Drawn: the bounds; on a cell-path track its blocked and goal cells (squares centred
on the cells' points); on a lattice track the lattice points (on tracks of at most
`DOT_LIMIT` points), the wall polylines and circles, the finish segment (with an arrow
for a directed finish); every start (the optimal ones filled), every move of the
optimal DAG as a thin red segment (the counterpart of the grid's red coverage cells),
and the green and blue trajectories (a cell-path trajectory ends on the goal cell its
last move reached).
The scale fits the longer side into `FIT` pixels; the picture is in the file's
coordinates (y downward).
"""

from __future__ import annotations

from xml.sax.saxutils import escape

import numpy as np

from racecert.analysis.lattice.pipeline import LatticeAnalysis
from racecert.analysis.trajectory import Trajectory
from racecert.model.cellpath.track import BLOCKED, GOAL, CellPathTrack
from racecert.model.lattice.track import LatticeTrack
from racecert.model.profiles import profile_of

FIT = 900
MARGIN = 16
TOP = 64
LEGEND_H = 84
DOT_LIMIT = 20_000
COLORS = {"wall": "#2f3b2f", "red": "#e0201b", "green": "#1f9d3a", "blue": "#1f4fd1",
          "finish": "#111111", "start": "#ffffff", "bounds": "#888888", "dot": "#b8b8b8",
          "goal": "#f2c230"}


class _Frame:
    """Local lattice coordinates to pixels."""

    def __init__(self, track: LatticeTrack | CellPathTrack) -> None:
        # a cell-path track's cells reach half a cell past their points on every side
        self.pad = 0.5 if isinstance(track, CellPathTrack) else 0.0
        w, h = track.width - 1 + 2 * self.pad, track.height - 1 + 2 * self.pad
        self.scale = max(1.0, min(40.0, FIT / max(w, h)))
        self.w = int(MARGIN * 2 + w * self.scale)
        self.h = int(TOP + MARGIN * 2 + h * self.scale + LEGEND_H)

    def x(self, v: float) -> float:
        return round(MARGIN + (v + self.pad) * self.scale, 2)

    def y(self, v: float) -> float:
        return round(TOP + MARGIN + (v + self.pad) * self.scale, 2)


def _dots(t: LatticeTrack, f: _Frame) -> list[str]:
    if t.width * t.height > DOT_LIMIT:
        return []
    r = max(0.6, min(1.6, f.scale / 12))
    return [f'<circle cx="{f.x(x)}" cy="{f.y(y)}" r="{r:.2f}" fill="{COLORS["dot"]}"/>'
            for y in range(t.height) for x in range(t.width)]


def _walls(t: LatticeTrack, f: _Frame) -> list[str]:
    out = []
    width = max(1.5, min(4.0, f.scale / 5))
    for line in t.polylines:
        pts = " ".join(f"{f.x(x)},{f.y(y)}" for x, y in line)
        out.append(f'<polyline points="{pts}" fill="none" stroke="{COLORS["wall"]}" '
                   f'stroke-width="{width:.2f}" stroke-linejoin="round"/>')
    for c in t.circles:
        out.append(f'<circle cx="{f.x(c.center[0])}" cy="{f.y(c.center[1])}" '
                   f'r="{c.radius * f.scale:.2f}" fill="{COLORS["wall"]}" fill-opacity="0.85"/>')
    return out


def _finish(t: LatticeTrack, f: _Frame) -> list[str]:
    fin = t.finish
    (ax, ay), (bx, by) = fin.a, fin.b
    out = [f'<line x1="{f.x(ax)}" y1="{f.y(ay)}" x2="{f.x(bx)}" y2="{f.y(by)}" '
           f'stroke="#ffffff" stroke-width="5"/>',
           f'<line x1="{f.x(ax)}" y1="{f.y(ay)}" x2="{f.x(bx)}" y2="{f.y(by)}" '
           f'stroke="{COLORS["finish"]}" stroke-width="2" stroke-dasharray="4 3"/>']
    mx, my = (ax + bx) / 2, (ay + by) / 2
    if fin.direction is not None:
        dx, dy = fin.direction
        n = max(abs(dx), abs(dy))
        tx, ty = mx + 1.2 * dx / n, my + 1.2 * dy / n
        out.append(f'<line x1="{f.x(mx)}" y1="{f.y(my)}" x2="{f.x(tx)}" y2="{f.y(ty)}" '
                   f'stroke="{COLORS["finish"]}" stroke-width="2.5" marker-end="url(#arrow)"/>')
    out.append(f'<text x="{f.x(mx) + 4}" y="{f.y(my) - 4}" font-size="12" '
               f'font-weight="bold">F</text>')
    return out


def _cells(t: CellPathTrack, f: _Frame) -> list[str]:
    """The cells of a cell-path track as squares centred on their points (free ones are
    the background; starts are drawn as the start dots)."""
    fill = {BLOCKED: COLORS["wall"], GOAL: COLORS["goal"]}
    half = f.scale / 2
    return [f'<rect x="{f.x(x) - half:.2f}" y="{f.y(y) - half:.2f}" width="{f.scale:.2f}" '
            f'height="{f.scale:.2f}" fill="{fill[c]}"/>'
            for y, row in enumerate(t.rows) for x, c in enumerate(row) if c in fill]


def _ground(t: LatticeTrack | CellPathTrack, f: _Frame) -> list[str]:
    """What the track is drawn of: cells, or lattice dots, walls and the finish."""
    if isinstance(t, CellPathTrack):
        return _cells(t, f)
    return [*_dots(t, f), *_walls(t, f)]


def _dag_moves(a: LatticeAnalysis, f: _Frame) -> list[str]:
    dag = a.bfs.dag
    if dag is None:
        return []
    segs = []
    for t, (src, dst) in enumerate(dag.edges):
        s, d = dag.layers[t], dag.layers[t + 1]
        segs.append(np.stack([s.x[src], s.y[src], d.x[dst], d.y[dst]], axis=1))
    last = dag.layers[-1]
    arr = dag.arrive_state
    segs.append(np.stack([last.x[dag.arrive_src], last.y[dag.arrive_src], arr.x, arr.y], axis=1))
    uniq = np.unique(np.concatenate(segs).astype(np.int64), axis=0)
    path = "".join(f"M{f.x(x0)} {f.y(y0)}L{f.x(x1)} {f.y(y1)}" for x0, y0, x1, y1 in
                   uniq.tolist())
    return [f'<path d="{path}" fill="none" stroke="{COLORS["red"]}" stroke-opacity="0.35" '
            f'stroke-width="1"/>']


def _trajectory(t: LatticeTrack | CellPathTrack, traj: Trajectory, color: str, f: _Frame
                ) -> list[str]:
    pts = [(p[0] - t.origin[0], p[1] - t.origin[1]) for p in traj.positions]
    line = " ".join(f"{f.x(x)},{f.y(y)}" for x, y in pts)
    dots = "".join(f'<circle cx="{f.x(x)}" cy="{f.y(y)}" r="2.4" fill="{color}"/>'
                   for x, y in pts)
    return [f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2.4" '
            f'stroke-opacity="0.9" stroke-linejoin="round"/>', dots]


def render_lattice_svg(a: LatticeAnalysis) -> str:
    """The SVG document for lattice analysis `a`."""
    t = a.track
    f = _Frame(t)
    b = a.bfs
    title = f"{t.name} — {profile_of(t).title}" + (", best start" if a.best_start else "")
    sub = (f"m* = {b.m_star}, {b.optimal_count:,} optimal trajectories, "
           f"{b.final_states} final states" if b.reachable else "finish unreachable")
    optimal = {s.position for s in a.starts}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{f.w}" height="{f.h}" '
        f'viewBox="0 0 {f.w} {f.h}" font-family="sans-serif">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="4" '
        'markerHeight="4" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        f'fill="{COLORS["finish"]}"/></marker></defs>',
        f'<rect width="{f.w}" height="{f.h}" fill="#ffffff"/>',
        f'<text x="6" y="22" font-size="16" font-weight="bold">{escape(title)}</text>',
        f'<text x="6" y="42" font-size="12">{escape(sub)}</text>',
        f'<rect x="{f.x(-f.pad)}" y="{f.y(-f.pad)}" '
        f'width="{round(f.x(t.width - 1 + f.pad) - f.x(-f.pad), 2)}" '
        f'height="{round(f.y(t.height - 1 + f.pad) - f.y(-f.pad), 2)}" fill="#f4f4f4" '
        f'stroke="{COLORS["bounds"]}" stroke-width="1"/>',
        *_ground(t, f), *_dag_moves(a, f),
        *(_finish(t, f) if isinstance(t, LatticeTrack) else []),
    ]
    for name, ext in (("green", a.green), ("blue", a.blue)):
        if ext is not None:
            out += _trajectory(t, ext.trajectory, COLORS[name], f)
    for x, y in t.starts:
        fill = "#000" if (x, y) in optimal else COLORS["start"]
        out.append(f'<circle cx="{f.x(x)}" cy="{f.y(y)}" r="4" fill="{fill}" stroke="#000" '
                   'stroke-width="1.2"/>')
    out += _legend(a, f.h - LEGEND_H + 8)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _legend(a: LatticeAnalysis, y0: int) -> list[str]:
    items = [("red", "red: every move of an optimal trajectory")]
    for name, ext, what in (("green", a.green, "shortest optimal"),
                            ("blue", a.blue, "longest optimal")):
        if ext is not None:
            items.append((name, f"{name}: {what}, {ext.trajectory.moves} moves, length "
                                f"{ext.length.to_float():.3f} ({ext.ties:,} tied)"))
    items.append(("start", "start (black: reaches the finish in m* moves)"))
    out = []
    for i, (color, text) in enumerate(items):
        y = y0 + i * 16
        out.append(f'<rect x="8" y="{y}" width="12" height="12" fill="{COLORS[color]}" '
                   'stroke="#333" stroke-width="0.5"/>')
        out.append(f'<text x="24" y="{y + 10}" font-size="11">{escape(text)}</text>')
    return out
