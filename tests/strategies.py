"""Hypothesis strategies for small random tracks, emitted as TOML and parsed by racecert.

`small_tracks()` draws a bordered grid of 5x4 .. 9x7 cells with random walls
and shoulders, optionally an elevated layer (a bridge strip with a ramp at
each end, so that bridges over walls, over asphalt and over the lines occur),
a start and a finish line on random boundaries made into cuts by walling
their ends, random line directions, a car on the entry side of the start
line, and an optional opening rule (moves 1..3, max_speed 1..2 or none,
straight or not). It returns `GeneratedTrack(toml, track)`; drafts that the
validator rejects (e.g. the finish is reachable without the start) are
discarded with `hypothesis.assume`, and `REJECTIONS` counts why, so a test
can report the rejection rate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hypothesis import assume, note
from hypothesis import strategies as st

from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.track import Track

REJECTIONS: Counter[str] = Counter()
"""Why drafts were discarded ("ok" counts accepted ones); tests print it."""

_GROUND_FILL = "." * 7 + "#" + ":"  # interior cells: mostly asphalt

# Leaf strategies are built once and reused: a draw then skips building, validating and
# labelling a new strategy object (about half the cost of a one-cell draw). The choices and
# labels are those of a fresh `st.integers(lo, hi)` / `st.sampled_from(...)`, so the
# derandomized examples are the same.
_ints = lru_cache(maxsize=None)(st.integers)
_pick = lru_cache(maxsize=None)(st.sampled_from)
_BOOLS = st.booleans()


@lru_cache(maxsize=4096)
def _parse(text: str, name: str) -> Track | TrackError:
    """`parse_track` of a generated text, or the error it raised, once per text: Hypothesis
    often draws the same track again (different choices, the same grid and lines: about
    two parses in five repeat one), and a `Track` is immutable, so examples can share one."""
    try:
        return parse_track(text.encode(), name)
    except TrackError as exc:
        return exc


@dataclass(frozen=True)
class GeneratedTrack:
    """A generated track: the TOML text (shown on failures) and the parsed `Track`."""

    toml: str
    track: Track


def _blank(ground: list[list[str]], elev: list[list[str]] | None, layer: int,
           x: int, y: int) -> None:
    """Make (x, y) off-track in `layer`, keeping ramps paired in both grids."""
    if not (0 <= y < len(ground) and 0 <= x < len(ground[0])):
        return
    if layer == 0:
        if ground[y][x] == "/" and elev is not None:
            elev[y][x] = " "
        ground[y][x] = "#"
    elif elev is not None:
        if elev[y][x] == "/":
            ground[y][x] = "."
        elev[y][x] = " "


@dataclass
class _Draft:
    """A track under construction in canonical orientation (the start line is crossed +x)."""

    w: int
    h: int
    ground: list[list[str]]
    elev: list[list[str]] | None
    lines: dict[str, tuple[str, int, int, int, str, int]]  # name -> (axis, k, lo, hi, dir, layer)
    car: tuple[int, int, int] = (0, 0, 0)  # x, y, layer
    direction: str = "+x"  # the car's facing direction d0

    def wall_ends(self, name: str, side: int) -> None:
        """Wall one cell beyond each end of a line, on side `side` (0 or 1), so it is a cut."""
        axis, k, lo, hi, _, layer = self.lines[name]
        for end in (lo - 1, hi + 1):
            x, y = (k + side, end) if axis == "x" else (end, k + side)
            _blank(self.ground, self.elev, layer, x, y)


_FORWARD_X = ("+x",) * 5 + ("-x",)  # a finish crossed backwards is mostly unreachable
_FORWARD_Y = ("+y",) * 3 + ("-y",) * 3
_CAR_DIRECTIONS = ("+x",) * 3 + ("-x", "+y", "-y")  # d0 matters for the straight opening
_TRANSFORMS = tuple((tr, fx, fy) for tr in (False, True) for fx in (False, True)
                    for fy in (False, True))
_RING_CELL = st.sampled_from("." * 12 + ":#")


def _transform(d: _Draft, transpose: bool, flip_x: bool, flip_y: bool) -> _Draft:
    """Apply one of the 8 symmetries of the square (flips first, then transpose)."""
    w, h = d.w, d.h

    def cell(x: int, y: int) -> tuple[int, int]:
        x, y = (w - 1 - x if flip_x else x), (h - 1 - y if flip_y else y)
        return (y, x) if transpose else (x, y)

    def grid(g: list[list[str]]) -> list[list[str]]:
        nw, nh = (h, w) if transpose else (w, h)
        out = [["#"] * nw for _ in range(nh)]
        for y in range(h):
            for x in range(w):
                nx, ny = cell(x, y)
                out[ny][nx] = g[y][x]
        return out

    def turn(direction: str) -> str:
        sign, axis = direction
        if (flip_x and axis == "x") or (flip_y and axis == "y"):
            sign = "-" if sign == "+" else "+"
        if transpose:
            axis = "y" if axis == "x" else "x"
        return sign + axis

    lines = {}
    for name, (axis, k, lo, hi, direction, layer) in d.lines.items():
        flip_fixed = flip_x if axis == "x" else flip_y
        flip_span = flip_y if axis == "x" else flip_x
        n_fixed, n_span = (w, h) if axis == "x" else (h, w)
        if flip_fixed:
            k = n_fixed - 2 - k
        if flip_span:
            lo, hi = n_span - 1 - hi, n_span - 1 - lo
        lines[name] = ("y" if transpose == (axis == "x") else "x", k, lo, hi, turn(direction),
                       layer)
    cx, cy = cell(d.car[0], d.car[1])
    nw, nh = (h, w) if transpose else (w, h)
    return _Draft(nw, nh, grid(d.ground), grid(d.elev) if d.elev else None, lines,
                  (cx, cy, d.car[2]), turn(d.direction))


@st.composite
def _stage(draw: st.DrawFn, w: int, h: int) -> _Draft:
    """Start line across the whole width of the grid; finish anywhere beyond it."""
    ground = [["#"] * w for _ in range(h)]
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            ground[y][x] = draw(_pick(_GROUND_FILL))
    ks = draw(_ints(1, w - 4))
    d = _Draft(w, h, ground, None, {"start": ("x", ks, 1, h - 2, "+x", 0)})
    if draw(_BOOLS):  # a vertical finish beyond the start
        kf = draw(_ints(ks + 1, w - 3))
        lo = draw(_ints(1, h - 2))
        hi = draw(_ints(lo, h - 2))
        d.lines["finish"] = ("x", kf, lo, hi, draw(_pick(_FORWARD_X)), 0)
    else:  # a horizontal finish beyond the start
        kf = draw(_ints(1, h - 3))
        lo = draw(_ints(ks + 2, w - 2))
        hi = draw(_ints(lo, w - 2))
        d.lines["finish"] = ("y", kf, lo, hi, draw(_pick(_FORWARD_Y)), 0)
    d.wall_ends("finish", draw(_ints(0, 1)))
    return d


@st.composite
def _ring(draw: st.DrawFn, w: int, h: int) -> _Draft:
    """A loop round a wall block; the finish lies just behind the car (a circuit)."""
    c = draw(_ints(1, 2)) if w >= 8 and h >= 7 else 1
    ground = [["#"] * w for _ in range(h)]
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            inner = 1 + c <= x <= w - 2 - c and 1 + c <= y <= h - 2 - c
            ground[y][x] = "#" if inner else draw(_RING_CELL)
    ks = draw(_ints(1 + c, w - 3 - c))
    kf = draw(_ints(c, ks - 1))
    lines = {"start": ("x", ks, 1, c, "+x", 0), "finish": ("x", kf, 1, c, "+x", 0)}
    return _Draft(w, h, ground, None, lines)


def _add_bridge(draw: st.DrawFn, d: _Draft, ring: bool) -> None:
    """An elevated strip with a ramp at each end; below it: wall, asphalt or shoulder."""
    w, h = d.w, d.h
    d.elev = elev = [[" "] * w for _ in range(h)]
    horizontal = h < 5 or draw(_BOOLS)  # a strip needs 3 inner cells
    n_along, n_across = (w, h) if horizontal else (h, w)
    across = draw(_ints(1, n_across - 2))
    a0 = draw(_ints(1, n_along - 4))
    a1 = draw(_ints(a0 + 2, n_along - 2))
    under = draw(_pick("#.:"))
    for a in range(a0, a1 + 1):
        x, y = (a, across) if horizontal else (across, a)
        if a in (a0, a1):
            d.ground[y][x] = elev[y][x] = "/"
        else:
            elev[y][x] = draw(_pick("===:"))
            if draw(_BOOLS):
                d.ground[y][x] = under
    if not ring and draw(_ints(0, 3)) == 0:  # sometimes the finish cuts across it
        k = draw(_ints(a0, a1 - 1))
        sign = draw(_pick("+-"))
        d.lines["finish"] = (("x", k, across, across, sign + "x", 1) if horizontal
                             else ("y", k, across, across, sign + "y", 1))


def _toml(d: _Draft, opening: str) -> str:
    parts = [f"name = \"generated\"\n\n[car]\nposition = [{d.car[0]}, {d.car[1]}]\n"
             f"direction = \"{d.direction}\"\nlayer = {d.car[2]}\n"]
    for name in ("start", "finish"):
        axis, k, lo, hi, dirn, layer = d.lines[name]
        span = "y" if axis == "x" else "x"
        parts.append(f"\n[{name}]\n{axis} = {k}\n{span} = [{lo}, {hi}]\ndir = \"{dirn}\"\n"
                     f"layer = {layer}\n")
    parts.append(opening)
    parts.append('\n[map]\nground = """\n' + "\n".join("".join(r) for r in d.ground) + '\n"""\n')
    if d.elev is not None:
        parts.append('elevated = """\n' + "\n".join("".join(r) for r in d.elev) + '\n"""\n')
    return "".join(parts)


@st.composite
def small_tracks(draw: st.DrawFn, *, elevated: bool = True, opening: bool = True,
                 rings: bool = True) -> GeneratedTrack:
    """A small valid track of 5x4 .. 9x7 cells (see the module docstring)."""
    w = draw(_ints(5, 9))
    h = draw(_ints(4, 7))
    ring = rings and w >= 6 and h >= 5 and draw(_ints(0, 3)) == 0
    d = draw(_ring(w, h)) if ring else draw(_stage(w, h))
    if elevated and draw(_ints(0, 2)) == 0:
        _add_bridge(draw, d, ring)
    layer = draw(_ints(0, 1)) if d.elev is not None else 0
    ks = d.lines["start"][1]
    rows = d.ground if layer == 0 else d.elev
    assert rows is not None
    ok = "./" if layer == 0 else "=/"
    fx = d.lines["finish"][1] if ring else -1
    cells = [(x, y) for y in range(h) for x in range(w)
             if rows[y][x] in ok and fx < x <= ks]
    if not cells:
        REJECTIONS["no car cell"] += 1
    assume(cells)
    x, y = draw(st.sampled_from(cells))
    d.car = (x, y, layer)
    d.direction = draw(_pick(_CAR_DIRECTIONS))
    d = _transform(d, *draw(_pick(_TRANSFORMS)))
    op = ""
    if opening and draw(_BOOLS):
        op = f"\n[opening]\nmoves = {draw(_ints(1, 3))}\n"
        speed = draw(_pick((None, 1, 2)))
        if speed is not None:
            op += f"max_speed = {speed}\n"
        op += f"straight = {'true' if draw(_BOOLS) else 'false'}\n"
    text = _toml(d, op)
    track = _parse(text, "<generated>")
    if isinstance(track, TrackError):
        REJECTIONS[track.message[:45]] += 1
        assume(False)
        raise AssertionError("unreachable") from track
    REJECTIONS["ok"] += 1
    note(text)
    return GeneratedTrack(text, track)


# -- hand-built tracks for the rule tests -------------------------------------------------

TRACKS = Path(__file__).resolve().parent.parent / "tracks"
"""The repository's tracks/ folder (tests do not depend on the working directory)."""


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(i) for i in v) + "]"
    return str(v)


def _grid_text(g: str) -> str:
    """Drop one leading and one trailing newline (blank elevated rows are kept)."""
    g = g[1:] if g.startswith("\n") else g
    return g[:-1] if g.endswith("\n") else g


def track_toml(ground: str, *, start: dict[str, object], finish: dict[str, object],
               car: tuple[int, int] = (1, 1), direction: str = "+x", car_layer: int = 0,
               elevated: str | None = None, opening: dict[str, object] | None = None,
               name: str = "hand-built") -> str:
    """The TOML text of a track; `ground`/`elevated` rows are given without the first newline.

    >>> print(track_toml("###", start={"x": 0, "y": [0, 0], "dir": "+x"},
    ...                  finish={"x": 1, "y": [0, 0], "dir": "+x"}).splitlines()[4])
    direction = "+x"
    """
    tables: list[tuple[str, dict[str, object]]] = [
        ("car", {"position": list(car), "direction": direction, "layer": car_layer}),
        ("start", start), ("finish", finish),
    ]
    if opening is not None:
        tables.append(("opening", opening))
    out = [f'name = "{name}"\n']
    for table, d in tables:
        out.append(f"\n[{table}]\n")
        out.extend(f"{k} = {_toml_value(v)}\n" for k, v in d.items())
    out.append(f'\n[map]\nground = """\n{_grid_text(ground)}\n"""\n')
    if elevated is not None:
        out.append(f'elevated = """\n{_grid_text(elevated)}\n"""\n')
    return "".join(out)


def make_track(ground: str, **kw: object) -> Track:
    """Parse `track_toml(ground, **kw)` (raises `TrackError` if the validator rejects it)."""
    return parse_track(track_toml(ground, **kw).encode(), "<hand-built>")  # type: ignore[arg-type]


# -- small circuits with opening rules (issue #14) ------------------------------------------


@dataclass(frozen=True)
class _DrawPicker:
    """`benchmarks.circuits.Picker` on top of Hypothesis draws (so failures shrink)."""

    draw: st.DrawFn

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(_ints(lo, hi))

    def choice(self, options):  # type: ignore[no-untyped-def]
        try:
            return self.draw(_pick(options))
        except TypeError:  # unhashable options: a fresh strategy
            return self.draw(st.sampled_from(options))


@st.composite
def small_circuits(draw: st.DrawFn) -> GeneratedTrack:
    """A ring of 4x4 .. 10x8 cells with an opening rule of 1..6 moves (`benchmarks.circuits`):
    often m* < K, so the rule is still active at the optimal arrivals."""
    from benchmarks.circuits import circuit_toml

    text = circuit_toml(_DrawPicker(draw))
    track = _parse(text, "<generated circuit>")
    if isinstance(track, TrackError):
        REJECTIONS[track.message[:45]] += 1
        assume(False)
        raise AssertionError("unreachable") from track
    note(text)
    return GeneratedTrack(text, track)
