"""Random valid tracks for stress and scale runs (`racecert generate`), reproducible by seed.

Each track is a corridor loop (`racecert.batch.layout`): the outline of a random
polyomino drawn `width` cells wide. A *circuit* keeps the whole loop: the finish
line lies just behind the car and the start line just ahead, both crossed in the
travel direction, so a lap goes once round. A *stage* leaves out one straight
corridor: the car starts in the dead-end block after the gap, the start line
closes that block, and the finish line closes the dead-end block before the gap.

Features drawn at random on top: shoulders on the outer lanes of straight
corridors (never two side by side on a two-lane corridor, never in the car's
corridor), bridges (an elevated strip from a ramp in one corridor across the
wall to a ramp in the next, away from the lines), extra grid slots beside the car,
and an opening rule (1..3 moves, a top speed or none, straight or not) with the
car facing the travel direction.

Track `i` of seed `S` depends on (S, i) only, through its own `random.Random`,
so the same seed gives byte-identical files and a larger `count` only adds files.
Every text is parsed and validated by `racecert.model.parse.parse_track` before
it is returned; a draft the validator rejects (none is known to be) is redrawn
with the next attempt number, at most `MAX_ATTEMPTS` times, and counted.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from racecert.batch.layout import (
    STEPS,
    Cell,
    LoopDrawing,
    draw_loop,
    outline,
    random_polyomino,
)
from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.track import Track

MIN_SIDE = 6
"""Smallest width or height: a one-cell corridor round one lattice face needs 6 cells."""
MAX_SIDE = 500
MAX_ATTEMPTS = 20

LineSpec = tuple[str, int, int, int, str]  # axis, k, lo, hi, dir (layer 0)


@dataclass(frozen=True)
class GeneratedTrack:
    """One generated track: its file name, TOML text, parsed `Track` and how it was drawn."""

    filename: str
    text: str
    track: Track
    kind: str
    features: tuple[str, ...]
    attempts: int


@dataclass
class _Draft:
    """A track under construction: the grids, the lines, the car and its features."""

    w: int
    h: int
    ground: list[list[str]]
    drawing: LoopDrawing
    kind: str
    start: LineSpec = ("x", 0, 0, 0, "+x")
    finish: LineSpec = ("x", 0, 0, 0, "+x")
    car: Cell = (0, 0)
    direction: str = "+x"
    slots: list[Cell] = field(default_factory=list)
    elevated: list[list[str]] | None = None
    owner: dict[Cell, tuple[int, int]] = field(default_factory=dict)  # cell -> (segment, lane)
    features: list[str] = field(default_factory=list)


def _line_between(a: tuple[Cell, ...], b: tuple[Cell, ...], direction: str) -> LineSpec:
    """The line on the boundary between two adjacent cross-sections `a` and `b`."""
    if direction in ("+x", "-x"):
        ys = [y for _, y in a]
        return ("x", min(a[0][0], b[0][0]), min(ys), max(ys), direction)
    xs = [x for x, _ in a]
    return ("y", min(a[0][1], b[0][1]), min(xs), max(xs), direction)


def _shift(cells: tuple[Cell, ...], direction: str, sign: int) -> tuple[Cell, ...]:
    dx, dy = STEPS[direction]
    return tuple((x + sign * dx, y + sign * dy) for x, y in cells)


def _layout(rng: random.Random, w: int, h: int) -> LoopDrawing:
    """A random loop drawing that fits a w x h grid with a wall border."""
    side = min(w, h)
    width = rng.randint(1, min(4, (side - 4) // 2))
    extra = rng.randint(0, 2)
    while extra and side - 2 - width < width + 2 + extra:
        extra -= 1
    spacing = width + 2 + extra
    a, b = (w - 2 - width) // spacing, (h - 2 - width) // spacing
    origin = (1 + rng.randint(0, w - 2 - a * spacing - width),
              1 + rng.randint(0, h - 2 - b * spacing - width))
    size = rng.randint(max(1, a * b // 5), max(1, a * b * 3 // 5))
    faces = random_polyomino(rng, a, b, size)
    points = outline(faces)
    if rng.random() < 0.5:
        points.reverse()
    shift = rng.randrange(len(points))
    points = points[shift:] + points[:shift]
    return draw_loop(points, width, spacing, origin)


def _carve(d: _Draft) -> None:
    """Asphalt on every block and every kept segment; remember who owns each corridor cell."""
    n = len(d.drawing.points)
    for k in range(n):
        for x, y in d.drawing.block(k):
            d.ground[y][x] = "."
    kept = d.drawing.segments if d.kind == "circuit" else d.drawing.segments[:-1]
    for seg in kept:
        for column in seg.cells:
            for lane, (x, y) in enumerate(column):
                d.ground[y][x] = "."
                d.owner[(x, y)] = (seg.index, lane)


def _place_lines(rng: random.Random, d: _Draft) -> None:
    segs = d.drawing.segments
    first = segs[0]
    d.direction = first.direction
    t0 = first.cells[0]
    if d.kind == "circuit":
        d.finish = _line_between(_shift(t0, first.direction, -1), t0, first.direction)
        d.start = _line_between(t0, first.cells[1], first.direction)
        d.car = rng.choice(t0)
        candidates = [c for c in t0 if c != d.car]
    else:
        d.start = _line_between(_shift(t0, first.direction, -1), t0, first.direction)
        last = segs[-2]
        end = last.cells[-1]
        d.finish = _line_between(end, _shift(end, last.direction, +1), last.direction)
        block = d.drawing.block(0)
        d.car = rng.choice(block)
        candidates = [c for c in block if c != d.car]
    if candidates and rng.random() < 0.25:
        d.slots = rng.sample(candidates, min(len(candidates), rng.randint(1, 2)))
        d.features.append(f"{len(d.slots)} slot(s)")


def _bridge_segments(d: _Draft) -> range:
    """Segments a ramp may lie in: away from the car's corridor and the lines."""
    n = len(d.drawing.segments)
    return range(1, n - 1) if d.kind == "circuit" else range(1, n - 2)


def _try_bridge(rng: random.Random, d: _Draft, allowed: range) -> bool:
    """Draw one bridge: ramp, elevated strip over the wall, ramp. False when the draw fails."""
    seg = d.drawing.segments[rng.choice(allowed)]
    column = seg.cells[rng.randrange(len(seg.cells))]
    lane = rng.choice((0, len(column) - 1))
    r1 = column[lane]
    across = "y" if seg.direction in ("+x", "-x") else "x"
    step = (0, 1 if lane else -1) if across == "y" else (1 if lane else -1, 0)
    if len(column) == 1:
        step = rng.choice(((0, 1), (0, -1)) if across == "y" else ((1, 0), (-1, 0)))
    strip: list[Cell] = []
    x, y = r1[0] + step[0], r1[1] + step[1]
    while 0 <= x < d.w and 0 <= y < d.h and d.ground[y][x] == "#":
        strip.append((x, y))
        x, y = x + step[0], y + step[1]
    r2 = (x, y)
    owner = d.owner.get(r2)
    elevated = d.elevated
    if (not strip or owner is None or owner[0] not in allowed or d.ground[y][x] != "."
            or d.ground[r1[1]][r1[0]] != "."
            or (elevated is not None and any(elevated[cy][cx] != "#" for cx, cy in strip))):
        return False
    if elevated is None:
        elevated = d.elevated = [["#"] * d.w for _ in range(d.h)]
    for cx, cy in (r1, r2):
        d.ground[cy][cx] = elevated[cy][cx] = "/"
    for i, (cx, cy) in enumerate(strip):
        inner = 0 < i < len(strip) - 1
        elevated[cy][cx] = ":" if inner and rng.random() < 0.2 else "="
    return True


def _add_bridges(rng: random.Random, d: _Draft) -> None:
    allowed = _bridge_segments(d)
    if not allowed:
        return
    wanted = rng.choice((0, 0, 1, 1, 2))
    built = 0
    for _ in range(30 * wanted):
        if built == wanted:
            break
        built += _try_bridge(rng, d, allowed)
    if built:
        d.features.append(f"{built} bridge(s)")


def _add_shoulders(rng: random.Random, d: _Draft) -> None:
    """Shoulders on outer lanes of straight corridors (not the car's), at a random density."""
    width = d.drawing.width
    density = rng.choice((0.0, 0.1, 0.25))
    if width < 2 or density == 0.0:
        return
    placed = 0
    keep = {d.car, *d.slots}
    for seg in d.drawing.segments[1:]:
        for column in seg.cells:
            if d.ground[column[0][1]][column[0][0]] == "#":  # the stage's missing segment
                continue
            for lane in (0, width - 1):
                x, y = column[lane]
                if (x, y) in keep or d.ground[y][x] != "." or rng.random() >= density:
                    continue
                if width == 2 and any(d.ground[cy][cx] == ":" for cx, cy in column):
                    continue
                d.ground[y][x] = ":"
                placed += 1
    if placed:
        d.features.append(f"{placed} shoulder cell(s)")


def _opening(rng: random.Random, d: _Draft) -> str:
    if rng.random() >= 0.4:
        return ""
    moves = rng.randint(1, 3)
    speed = rng.choice((None, 1, 2))
    straight = rng.random() < 0.5
    d.features.append(f"opening {moves} move(s)" + (f", max speed {speed}" if speed else "")
                      + (", straight" if straight else ""))
    text = f"\n[opening]\nmoves = {moves}\n"
    if speed is not None:
        text += f"max_speed = {speed}\n"
    return text + f"straight = {'true' if straight else 'false'}\n"


def _line_toml(name: str, line: LineSpec) -> str:
    axis, k, lo, hi, direction = line
    span = "y" if axis == "x" else "x"
    return f"\n[{name}]\n{axis} = {k}\n{span} = [{lo}, {hi}]\ndir = \"{direction}\"\n"


def _toml(d: _Draft, name: str, opening: str) -> str:
    description = f"racecert generate: a {d.kind}, corridors {d.drawing.width} wide" + "".join(
        f", {f}" for f in d.features)
    slots = "".join(f"[{x}, {y}], " for x, y in d.slots).rstrip(", ")
    parts = [f'name = "{name}"\ndescription = "{description}"\n',
             f"\n[car]\nposition = [{d.car[0]}, {d.car[1]}]\ndirection = \"{d.direction}\"\n",
             f"slots = [{slots}]\n" if d.slots else "",
             _line_toml("start", d.start), _line_toml("finish", d.finish), opening,
             '\n[map]\nground = """\n', "\n".join("".join(r) for r in d.ground), '\n"""\n']
    if d.elevated is not None:
        parts += ['elevated = """\n', "\n".join("".join(r) for r in d.elevated), '\n"""\n']
    return "".join(parts)


def draft_text(rng: random.Random, w: int, h: int, name: str) -> tuple[str, str, tuple[str, ...]]:
    """One drawn track: (TOML text, kind, features). Not yet validated."""
    drawing = _layout(rng, w, h)
    kind = "circuit" if rng.random() < 0.5 else "stage"
    if kind == "stage" and len(drawing.points) < 4:
        kind = "circuit"
    d = _Draft(w, h, [["#"] * w for _ in range(h)], drawing, kind)
    _carve(d)
    _place_lines(rng, d)
    _add_bridges(rng, d)
    _add_shoulders(rng, d)
    opening = _opening(rng, d)
    return _toml(d, name, opening), kind, tuple(d.features)


def generate_track(seed: int, index: int, width: int, height: int) -> GeneratedTrack:
    """Track `index` of `seed` on a width x height grid, validated by the parser."""
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ValueError(f"size {width}x{height} outside {MIN_SIDE}..{MAX_SIDE} per side")
    filename = f"gen-{seed}-{index:04d}.toml"
    last: TrackError | None = None
    for attempt in range(MAX_ATTEMPTS):
        rng = random.Random(f"racecert-generate:{seed}:{index}:{attempt}")
        name = f"generated {seed}-{index}"
        text, kind, features = draft_text(rng, width, height, name)
        try:
            track = parse_track(text.encode(), filename)
        except TrackError as exc:
            last = exc
            continue
        return GeneratedTrack(filename, text, track, kind, features, attempt + 1)
    raise RuntimeError(f"generator: {MAX_ATTEMPTS} drafts of {filename} rejected; last: {last}")


def generate_tracks(seed: int, count: int, width: int, height: int) -> Iterator[GeneratedTrack]:
    """Tracks 0 .. count - 1 of `seed` (each depends on its index only)."""
    for index in range(count):
        yield generate_track(seed, index, width, height)
