"""The race as an animated SVG: the track and its cell grid, every car stepping turn by
turn, its trail growing (a lap's trail fades once the car starts its next lap), blocked
moves marked with a cross, and the final standings below.

The animation is SMIL (`<animate>`, discrete steps, looping), which browsers play
without any script. Without animation support the picture shows the race's end:
the static attributes are the final positions and complete trails (earlier laps
faded). A car that has finished is drawn faded: it has left the track and blocks no
one.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from racecert.analysis.svg import CELL, MIN_WIDTH, TOP, line_markers, track_elements
from racecert.race.engine import RaceResult
from racecert.race.replay import Step, car_color, grid_lines, timeline
from racecert.race.standings import HEADER, standings_rows

STEP_SECONDS = 0.2  # one car-turn
HOLD_STEPS = 15  # the last frame stays this many steps before the loop restarts
FADED = 0.22  # opacity of a trail once its car drives its next lap
ROW_H = 16


def _center(p: tuple[int, int]) -> tuple[float, float]:
    return p[0] * CELL + CELL / 2, TOP + p[1] * CELL + CELL / 2


def _appear(k: int, total: int, fade: int | None = None) -> str:
    """A looping animation that keeps an element hidden until step k, then shows it
    (faded from step `fade` on, when given)."""
    values, keys = "0;1", f"0;{k / total:.6f}"
    if fade is not None:
        values, keys = f"{values};{FADED}", f"{keys};{fade / total:.6f}"
    return (f'<animate attributeName="opacity" calcMode="discrete" values="{values}" '
            f'keyTimes="{keys}" dur="{total * STEP_SECONDS:.2f}s" '
            f'repeatCount="indefinite"/>')


def _next_lap_starts(steps: tuple[Step, ...]) -> dict[tuple[int, int], int]:
    """(car, lap) -> the step (1-based) of the car's first move in its next lap."""
    out: dict[tuple[int, int], int] = {}
    for k, s in enumerate(steps, start=1):
        if s.lap > 0:
            out.setdefault((s.car, s.lap - 1), k)
    return out


def _car_motion(steps: tuple[Step, ...], car: int, start: tuple[int, int], total: int
                ) -> tuple[str, str]:
    """discrete cx and cy animations of one car over the whole loop."""
    times, xs, ys = [0.0], [_center(start)[0]], [_center(start)[1]]
    for k, s in enumerate(steps, start=1):
        if s.car == car and s.after != s.before:
            cx, cy = _center(s.after)
            times.append(k / total)
            xs.append(cx)
            ys.append(cy)
    key = ";".join(f"{t:.6f}" for t in times)
    dur = f"{total * STEP_SECONDS:.2f}s"
    return tuple(  # type: ignore[return-value]
        f'<animate attributeName="{attr}" calcMode="discrete" values="'
        + ";".join(f"{v:.1f}" for v in vals)
        + f'" keyTimes="{key}" dur="{dur}" repeatCount="indefinite"/>'
        for attr, vals in (("cx", xs), ("cy", ys)))


def _trails(steps: tuple[Step, ...], total: int) -> list[str]:
    out = []
    fades = _next_lap_starts(steps)
    for k, s in enumerate(steps, start=1):
        if s.after == s.before:
            continue
        (x1, y1), (x2, y2) = _center(s.before), _center(s.after)
        fade = fades.get((s.car, s.lap))
        opacity = "" if fade is None else f' opacity="{FADED}"'
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
                   f'stroke="{car_color(s.car)}" stroke-width="2.4" stroke-linecap="round"'
                   f'{opacity}>{_appear(k, total, fade)}</line>')
    return out


def _blocked_marks(steps: tuple[Step, ...], total: int) -> list[str]:
    out = []
    for k, s in enumerate(steps, start=1):
        for e in s.events:
            if e.kind in ("blocked", "wait") and e.cell is not None:
                cx, cy = _center(e.cell)
                r = CELL * 0.35
                out.append(
                    f'<path d="M{cx - r:.1f},{cy - r:.1f} L{cx + r:.1f},{cy + r:.1f} '
                    f'M{cx - r:.1f},{cy + r:.1f} L{cx + r:.1f},{cy - r:.1f}" '
                    f'stroke="{car_color(s.car)}" stroke-width="3"><title>turn {e.turn}: car '
                    f'{s.car} {e.kind}: {escape(e.detail)}</title>{_appear(k, total)}</path>')
    return out


def _standings(result: RaceResult, y0: int) -> list[str]:
    rows = [HEADER, *standings_rows(result)]
    cols = (0, 1, 2, 3, 4, 5, 6, 7, 8)  # pos .. blocked: what fits
    widths = [max(len(r[c]) for r in rows) for c in cols]
    out = []
    for n, r in enumerate(rows):
        y = y0 + n * ROW_H
        x = 8
        if n:
            out.append(f'<circle cx="{x + 4}" cy="{y - 4}" r="4" fill="{car_color(int(r[1]))}"/>')
        for c, w in zip(cols, widths, strict=True):
            weight = ' font-weight="bold"' if n == 0 else ""
            out.append(f'<text x="{x + 14}" y="{y}" font-size="11" font-family="monospace"'
                       f'{weight}>{escape(r[c])}</text>')
            x += int((w + 2) * 6.7)
    return out


def render_replay_svg(result: RaceResult) -> str:
    """The animated SVG document of `result`."""
    t = result.track
    steps = timeline(result)
    total = len(steps) + HOLD_STEPS
    n = len(result.cars)
    w = max(t.width * CELL, MIN_WIDTH)
    table_y = TOP + t.height * CELL + 24
    h = table_y + (n + 1) * ROW_H + 8
    title = (f"Race: {t.name} — {result.laps} lap(s), seed {result.seed}, {n} car(s)")
    sub = (f"{result.status}: {result.turns} turn(s); one step = one car's turn "
           f"({STEP_SECONDS:g} s); crosses mark blocked moves")
    drivers = ", ".join(f"car {i} {c.driver}" for i, c in enumerate(result.cars))
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
        "<defs>", *line_markers(), "</defs>",
        f'<rect width="{w}" height="{h}" fill="#ffffff"/>',
        f'<text x="6" y="22" font-size="16" font-weight="bold">{escape(title)}</text>',
        f'<text x="6" y="42" font-size="12">{escape(sub)}</text>',
        f'<text x="6" y="58" font-size="12">{escape(drivers)}</text>',
        *track_elements(t),
        *grid_lines(t),
        *_trails(steps, total),
        *_blocked_marks(steps, total),
    ]
    for i, car in enumerate(result.cars):
        fx, fy = _center(car.trajectory[-1])
        ax, ay = _car_motion(steps, i, car.trajectory[0], total)
        fade = ""
        if car.finished:  # a finished car leaves the track: drawn faded from then on
            k = next(k for k, s in enumerate(steps, start=1)
                     if s.car == i and s.turn == car.finish_turn)
            fade = (f'<animate attributeName="opacity" calcMode="discrete" values="1;0.3" '
                    f'keyTimes="0;{k / total:.6f}" dur="{total * STEP_SECONDS:.2f}s" '
                    f'repeatCount="indefinite"/>')
        opacity = ' opacity="0.3"' if car.finished else ""
        out.append(f'<circle cx="{fx:.1f}" cy="{fy:.1f}" r="{CELL * 0.38:.1f}" '
                   f'fill="{car_color(i)}" stroke="#000" stroke-width="1.2"{opacity}>'
                   f'<title>car {i} ({escape(car.driver)})</title>{ax}{ay}{fade}</circle>')
    out += _standings(result, table_y)
    out.append("</svg>")
    return "\n".join(out) + "\n"
