"""An SVG picture of a track and its analysis, readable at a glance.

Drawn, bottom to top: the ground grid (asphalt, shoulders, ramps, off-track),
the red coverage (cells touched by the optimal DAG), the parts of the yellow,
green and blue trajectories that run on the ground, the elevated deck
(translucent and hatched, so that ground paths under it show through: the
tunnel), the parts that run on the deck (with a white edge: the bridge), the
start (S) and finish (F) lines, the car, and last the S/F labels with their
crossing direction, placed beyond the line's end away from the car so that
nothing covers them.

Trajectories that coincide stay visible: yellow is drawn widest, green
narrower on top of it, blue thin and dashed on top of both. The picture is
as wide as the grid (cells are larger on small tracks), with a title above and
a legend below sized to their text.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from racecert.analysis.layers import layer_runs, position_layers
from racecert.analysis.pipeline import Analysis
from racecert.analysis.trajectory import Trajectory
from racecert.model.track import Line, Track

PAD = 10
MIN_WIDTH = 360
CELL = 20
"""Cell size of `track_elements` (pictures that draw on the bare track use this geometry)."""
TOP = 72
"""Top of the grid in `track_elements`."""
COLORS = {
    "off": "#3a4a3a",
    "asphalt": "#dadada",
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
GROUND_KIND = {"#": "off", ".": "asphalt", ":": "shoulder", "/": "ramp"}
ARROWS = {"+x": "→", "-x": "←", "+y": "↓", "-y": "↑"}
# name, stroke width (in cells), dash pattern, dot radius (in cells)
STYLES = (("yellow", 0.34, "", 0.16), ("green", 0.2, "", 0.11), ("blue", 0.13, "0.3 0.2", 0.07))


def cell_size(track: Track) -> int:
    """Pixels per cell: 20 on large grids, up to 40 so that small grids are not specks."""
    return max(20, min(40, 560 // max(track.width, 1)))


class _Canvas:
    """Pixel geometry of one picture: cell size and the grid's top-left corner."""

    def __init__(self, cell: int, left: int, top: int) -> None:
        self.c, self.left, self.top = cell, left, top

    def x(self, col: float) -> float:
        return self.left + col * self.c

    def y(self, row: float) -> float:
        return self.top + row * self.c

    def center(self, p: tuple[int, int]) -> tuple[float, float]:
        return self.x(p[0] + 0.5), self.y(p[1] + 0.5)


def _runs_of_cells(track: Track, layer: int, kind_of: dict[str, str]) -> list[tuple]:
    """Horizontal runs (x0, x1, y, kind) of equal cells, so that the SVG stays small."""
    out = []
    for y in range(track.height):
        x = 0
        while x < track.width:
            kind = kind_of.get(track.char(layer, x, y))
            x1 = x
            while x1 + 1 < track.width and kind_of.get(track.char(layer, x1 + 1, y)) == kind:
                x1 += 1
            if kind is not None:
                out.append((x, x1, y, kind))
            x = x1 + 1
    return out


def _grid(cv: _Canvas, track: Track) -> list[str]:
    c = cv.c
    return [f'<rect x="{cv.x(x0)}" y="{cv.y(y)}" width="{(x1 - x0 + 1) * c}" height="{c}" '
            f'fill="{COLORS[kind]}"/>' for x0, x1, y, kind in _runs_of_cells(track, 0, GROUND_KIND)]


def _deck(cv: _Canvas, track: Track) -> list[str]:
    """The elevated layer: translucent, hatched and outlined, over whatever runs below."""
    if track.elevated is None:
        return []
    c = cv.c
    kinds = {"=": "elevated", ":": "shoulder"}
    out = []
    for x0, x1, y, kind in _runs_of_cells(track, 1, kinds):
        attrs = (f'x="{cv.x(x0)}" y="{cv.y(y)}" width="{(x1 - x0 + 1) * c}" height="{c}"')
        out.append(f'<rect {attrs} fill="{COLORS[kind]}" fill-opacity="0.5"/>')
        out.append(f'<rect {attrs} fill="url(#deck)" stroke="#1b3a80" stroke-width="0.8"/>')
    return out


def _points(cv: _Canvas, positions: tuple[tuple[int, int], ...]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in (cv.center(p) for p in positions))


def _trajectory_layer(cv: _Canvas, traj: Trajectory, layers: tuple[int, ...], layer: int,
                      name: str, width: float, dash: str, dot: float) -> list[str]:
    """The runs of `traj` drawn on `layer` (deck runs get a white edge) and their dots."""
    c = cv.c
    out = []
    dash_attr = ""
    if dash:
        dash_attr = ' stroke-dasharray="' + " ".join(f"{float(d) * c:.1f}"
                                                     for d in dash.split()) + '"'
    for first, last, lay in layer_runs(layers):
        if lay != layer:
            continue
        pts = _points(cv, traj.positions[first:last + 1])
        if lay == 1:
            out.append(f'<polyline points="{pts}" fill="none" stroke="#fff" '
                       f'stroke-width="{width * c + 3:.1f}" stroke-linejoin="round"/>')
        out.append(f'<polyline class="{name}" points="{pts}" fill="none" stroke="{COLORS[name]}" '
                   f'stroke-width="{width * c:.1f}" stroke-linejoin="round" '
                   f'stroke-linecap="round"{dash_attr}/>')
    for p, lay in zip(traj.positions, layers, strict=True):
        if lay == layer:
            cx, cy = cv.center(p)
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{dot * c:.1f}" '
                       f'fill="{COLORS[name]}" stroke="#fff" stroke-width="0.6"/>')
    return out


def _trajectories(a: Analysis) -> list[tuple[str, Trajectory, tuple[int, ...]]]:
    """(name, trajectory, layer of each position), widest first."""
    found = {"yellow": a.yellow_trajectory}
    if a.representatives is not None:
        found["green"] = a.representatives.green.trajectory
        found["blue"] = a.representatives.blue.trajectory
    return [(name, t, position_layers(a.track, t)) for name, *_ in STYLES
            if (t := found.get(name)) is not None]


def _line_ends(cv: _Canvas, line: Line) -> tuple[float, float, float, float]:
    if line.axis == "x":
        x = cv.x(line.k + 1)
        return x, cv.y(line.lo), x, cv.y(line.hi + 1)
    y = cv.y(line.k + 1)
    return cv.x(line.lo), y, cv.x(line.hi + 1), y


def _line(cv: _Canvas, line: Line, finish: bool) -> list[str]:
    """A start line white, a finish line chequered; dashed edges on the elevated layer."""
    x1, y1, x2, y2 = _line_ends(cv, line)
    seg = f'x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"'
    check = cv.c / 4
    top = (f'<line {seg} stroke="#111" stroke-width="5" stroke-dasharray="{check} {check}"/>'
           if finish else f'<line {seg} stroke="#fff" stroke-width="3"/>')
    return [f'<line {seg} stroke="{"#fff" if finish else "#111"}" stroke-width="6"/>', top]


def _label_anchor(cv: _Canvas, line: Line, car: tuple[float, float]) -> tuple[float, float]:
    """Beyond the end of `line` farther from the car (inside the grid), half a cell out."""
    x1, y1, x2, y2 = _line_ends(cv, line)
    half = cv.c * 0.55
    if line.axis == "x":
        ends = [(x1, y1 - half), (x2, y2 + half)]
    else:
        ends = [(x1 - half, y1), (x2 + half, y2)]
    return max(ends, key=lambda p: (p[0] - car[0]) ** 2 + (p[1] - car[1]) ** 2)


def _label(cv: _Canvas, line: Line, text: str, car: tuple[float, float]) -> str:
    """The line's name and crossing arrow on a white tag (nothing is drawn over it)."""
    x, y = _label_anchor(cv, line, car)
    size = max(11, round(cv.c * 0.55))
    label = f"{text} {ARROWS[line.direction]}" + (" elevated" if line.layer == 1 else "")
    w, h = 0.62 * size * len(label) + 6, size + 4
    return (f'<rect x="{x - w / 2:.1f}" y="{y - h / 2:.1f}" width="{w:.1f}" height="{h}" rx="3" '
            f'fill="#fff" stroke="#111" stroke-width="1"/>'
            f'<text x="{x:.1f}" y="{y + size * 0.36:.1f}" font-size="{size}" font-weight="bold" '
            f'text-anchor="middle" fill="#111">{label}</text>')


def _car(cv: _Canvas, track: Track) -> str:
    cx, cy = cv.center(track.car.position)
    return (f'<circle cx="{cx}" cy="{cy}" r="{cv.c * 0.26:.1f}" fill="#000" stroke="#fff" '
            'stroke-width="1.5"/>')


def _wrap(parts: list[str], width: int, font: int) -> list[str]:
    """Join `parts` with ', ' into lines that fit `width` pixels (about 0.56 em per char)."""
    per_line = max(20, int(width / (0.56 * font)))
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= per_line:
            lines[-1] += ", " + part
        else:
            lines.append(part)
    return lines


def _headline_parts(a: Analysis) -> list[str]:
    if not a.bfs.reachable:
        return ["finish unreachable"]
    parts = [f"m* = {a.bfs.m_star}", f"{a.bfs.optimal_count:,} optimal trajectories",
             f"{a.bfs.final_states} final states"]
    c = a.continuity
    if c is not None and c.applicable and a.circuit:
        parts.append(f"{float(100 * c.percent):.2f} % continuable")
    if a.score is not None:
        parts.append(f"score {a.score.total:.2f} ({a.score.band})")
    return parts


def track_defs() -> list[str]:
    """The `<defs>` entries the track's elements use (the elevated deck's hatching)."""
    return ['<pattern id="deck" width="6" height="6" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" stroke="#1b3a80" '
            'stroke-width="1.2" stroke-opacity="0.5"/></pattern>']


line_markers = track_defs  # the name other pictures (the race replay) import


def track_elements(track: Track) -> list[str]:
    """The bare track: ground, elevated deck, S and F lines with their labels, in cells of
    `CELL` px with the grid's top-left corner at (0, `TOP`). Other pictures (the race
    replay) draw on top of it and put `track_defs()` in their `<defs>`."""
    cv = _Canvas(CELL, 0, TOP)
    car = cv.center(track.car.position)
    return [*_grid(cv, track), *_deck(cv, track), *_line(cv, track.start, finish=False),
            *_line(cv, track.finish, finish=True), _label(cv, track.start, "S", car),
            _label(cv, track.finish, "F", car)]


def render_svg(a: Analysis) -> str:
    """The SVG document for analysis `a`."""
    t = a.track
    c = cell_size(t)
    w = max(t.width * c + 2 * PAD, MIN_WIDTH)
    title = f"{t.name} — {a.kind}, mode {a.mode}"
    sub = _wrap(_headline_parts(a), w - 2 * PAD, 12)
    text = [f'<text x="{PAD}" y="24" font-size="16" font-weight="bold">{escape(title)}</text>']
    text += [f'<text x="{PAD}" y="{44 + 16 * i}" font-size="12">{escape(s)}</text>'
             for i, s in enumerate(sub)]
    top = 44 + 16 * (len(sub) - 1) + 12
    cv = _Canvas(c, PAD, top)
    legend = _legend_lines(_legend(a), w)
    h = top + t.height * c + 10 + 16 * len(legend) + 4
    trajs = _trajectories(a)
    widths = {name: (wd, dash, dot) for name, wd, dash, dot in STYLES}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        "<defs>", *track_defs(), "</defs>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
        *text,
        *_grid(cv, t),
    ]
    if a.coverage is not None:
        red = COLORS["red"]
        out += [f'<rect x="{cv.x(x)}" y="{cv.y(y)}" width="{c}" height="{c}" fill="{red}" '
                'fill-opacity="0.28"/>' for x, y in sorted(a.coverage.cells)]
    for layer in (0, 1):
        if layer == 1:
            out += _deck(cv, t)
        for name, traj, layers in trajs:
            out += _trajectory_layer(cv, traj, layers, layer, name, *widths[name])
    car = cv.center(t.car.position)
    out += _line(cv, t.start, finish=False) + _line(cv, t.finish, finish=True)
    out.append(_car(cv, t))
    out += [_label(cv, t.start, "S", car), _label(cv, t.finish, "F", car)]
    out += _legend_svg(legend, top + t.height * c + 10)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _drawn_lengths(a: Analysis) -> list[tuple[str, int, float]]:
    """(name, moves, float length) of yellow, green and blue where they exist."""
    out = []
    y = a.yellow_trajectory
    if y is not None:
        out.append(("yellow", y.moves, y.length.to_float()))
    r = a.representatives
    if r is not None:
        out += [(name, e.trajectory.moves, e.trajectory.length.to_float())
                for name, e in (("green", r.green), ("blue", r.blue))]
    return out


def _legend(a: Analysis) -> list[tuple[str, str]]:
    """(colour key, text) of every legend item that applies to this picture."""
    cov = a.coverage
    items = [("red", "red: cells of optimal trajectories"
              + (f" ({float(cov.fraction) * 100:.1f} %)" if cov is not None else ""))]
    what = {"yellow": "shortest overall (wide)", "green": "shortest optimal (medium)",
            "blue": "longest optimal (thin, dashed)"}
    for name, moves, length in _drawn_lengths(a):
        items.append((name, f"{name}: {what[name]}, {moves} moves, length {length:.3f}"))
    chars = {ch for grid in (a.track.ground, a.track.elevated or ()) for row in grid for ch in row}
    items += [(k, text) for k, text, ch in (
        ("shoulder", "shoulder: passable, a move may not end there", ":"),
        ("ramp", "ramp: where paths change layer", "/"),
        ("elevated", "elevated deck (hatched): paths on it have a white edge, paths "
                     "under it show through", "="),
    ) if ch in chars]
    items.append(("start", "S start, F finish (chequered); the arrow: crossing direction"))
    return items


def _legend_lines(items: list[tuple[str, str]], w: int) -> list[tuple[str | None, str]]:
    """Each item's text wrapped to the picture's width; the swatch on its first line."""
    per_line = max(30, int((w - 2 * PAD - 16) / (0.55 * 11)))
    out: list[tuple[str | None, str]] = []
    for color, text in items:
        words, line = text.split(" "), ""
        first = True
        for word in words:
            if line and len(line) + 1 + len(word) > per_line:
                out.append((color if first else None, line))
                first, line = False, word
            else:
                line = f"{line} {word}" if line else word
        out.append((color if first else None, line))
    return out


def _legend_svg(lines: list[tuple[str | None, str]], y0: int) -> list[str]:
    out = []
    for i, (color, text) in enumerate(lines):
        y = y0 + i * 16
        if color is not None:
            out.append(f'<rect x="{PAD}" y="{y}" width="12" height="12" fill="{COLORS[color]}" '
                       f'stroke="#333" stroke-width="0.5"/>')
        out.append(f'<text x="{PAD + 16}" y="{y + 10}" font-size="11">{escape(text)}</text>')
    return out
