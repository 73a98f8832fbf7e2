"""A second, independently written implementation of move validity (docs/rules.md).

racecert.model walks cell boundaries in doubled integer coordinates. This
module decides the same questions another way, so that a cross-check between
the two means something:

- touched cells: every cell of the move's bounding box is tested by clipping
  the segment p + t·v, t in [0, 1], against the cell's *open* square
  (Liang–Barsky with `Fraction`); the cell is touched iff the clipped parameter
  interval is non-empty, and it is entered at the interval's lower end;
- layers: the touched cells, sorted by entry t, are walked with the ramp rule;
- lines: each line is a closed segment on x = k + 1/2 (or y = k + 1/2); the
  move meets it where the fixed coordinate of p + t·v equals k + 1/2, at the
  exact t, if the other coordinate then lies in the closed span; the layer at
  the crossing is the layer of the touched cell whose open interval contains
  the instants just after t.

It reads only the data of a `racecert.model.track.Track` (the grid strings,
the lines, the car and the opening rule) and imports nothing else from
racecert.model.

>>> touched_cells(2, 1)
((0, 0, Fraction(0, 1)), (1, 0, Fraction(1, 4)), (1, 1, Fraction(1, 2)), (2, 1, Fraction(3, 4)))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from racecert.independent.race_rules import OpeningRule, move_outcome
from racecert.model.track import Line, Track

HALF = Fraction(1, 2)

# Surface classes of this module (its own reading of the grid characters).
_OFF, _ASPHALT, _SHOULDER, _RAMP = 0, 1, 2, 3
_GROUND = {"#": _OFF, ".": _ASPHALT, ":": _SHOULDER, "/": _RAMP}
_ELEVATED = {"#": _OFF, " ": _OFF, "=": _ASPHALT, ":": _SHOULDER, "/": _RAMP}


@dataclass(frozen=True)
class VState:
    """A car state as this module sees it: (x, y, vx, vy, layer, progress, phase)."""

    x: int
    y: int
    vx: int = 0
    vy: int = 0
    layer: int = 0
    progress: int = 0
    phase: int = 0

    def as_tuple(self) -> tuple[int, int, int, int, int, int, int]:
        return (self.x, self.y, self.vx, self.vy, self.layer, self.progress, self.phase)


@dataclass(frozen=True)
class Verdict:
    """The outcome of one move: validity, a short reason, the next state, arrival."""

    valid: bool
    reason: str
    state: VState | None = None
    arrives: bool = False


def _clip_open(p: int, v: int, lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction] | None:
    """The open t-interval in which p + t·v lies strictly inside (lo, hi), or None if empty.

    Returns (t_lo, t_hi) with the convention that an unbounded side is None-free:
    a motionless coordinate inside the slab gives (-1, 2), i.e. "always".
    """
    if v == 0:
        return (Fraction(-1), Fraction(2)) if lo < p < hi else None
    a, b = (lo - p) / v, (hi - p) / v
    return (a, b) if a < b else (b, a)


@cache
def touched_cells(vx: int, vy: int) -> tuple[tuple[int, int, Fraction], ...]:
    """Cells (dx, dy, entry t) whose open interior the segment (0,0)->(vx,vy) meets, by t.

    Each cell of the bounding box is clipped separately (Liang–Barsky): the
    segment is inside the open cell for t in (max lows, min highs) ∩ [0, 1].

    >>> [c[:2] for c in touched_cells(1, 1)]
    [(0, 0), (1, 1)]
    """
    out: list[tuple[Fraction, int, int]] = []
    for dx in range(min(0, vx), max(0, vx) + 1):
        ix = _clip_open(0, vx, dx - HALF, dx + HALF)
        if ix is None:
            continue
        for dy in range(min(0, vy), max(0, vy) + 1):
            iy = _clip_open(0, vy, dy - HALF, dy + HALF)
            if iy is None:
                continue
            enter = max(Fraction(0), ix[0], iy[0])
            leave = min(Fraction(1), ix[1], iy[1])
            if enter < leave:
                out.append((enter, dx, dy))
    out.sort()
    return tuple((dx, dy, t) for t, dx, dy in out)


@lru_cache(maxsize=4096)
def _spans(vx: int, vy: int) -> tuple[tuple[int, int, Fraction, Fraction], ...]:
    """`touched_cells(vx, vy)` with the instant each cell is left (the next one's entry,
    1 for the last): (dx, dy, enter, leave)."""
    cells = touched_cells(vx, vy)
    leaves = [t for _, _, t in cells[1:]] + [Fraction(1)]
    return tuple((dx, dy, t, leave) for (dx, dy, t), leave in zip(cells, leaves, strict=True))


def _meets_line(line: Line, px: int, py: int, vx: int, vy: int) -> Fraction | None:
    """Exact t at which the move meets the closed line segment, else None."""
    if line.axis == "x":
        fixed_p, fixed_v, span_p, span_v = px, vx, py, vy
    else:
        fixed_p, fixed_v, span_p, span_v = py, vy, px, vx
    if fixed_v == 0:
        return None
    # 0 <= t <= 1 for t = (k + 1/2 - p) / v, in integers first (most moves meet no line)
    twice = 2 * (line.k - fixed_p) + 1
    if not (0 <= twice <= 2 * fixed_v if fixed_v > 0 else 2 * fixed_v <= twice <= 0):
        return None
    t = (line.k + HALF - fixed_p) / fixed_v
    if not 0 <= t <= 1:
        return None
    other = span_p + span_v * t
    if line.lo - HALF <= other <= line.hi + HALF:
        return t
    return None


class Geometry:
    """Move validity on one track, computed from the track's raw data.

    >>> # g = Geometry(track); g.move(VState(1, 1), (1, 0))
    """

    def __init__(self, track: Track) -> None:
        self.track = track
        self.width, self.height = track.width, track.height
        grids = [track.ground] + ([track.elevated] if track.elevated is not None else [])
        tables = [_GROUND, _ELEVATED]
        self._surface: dict[tuple[int, int, int], int] = {}
        for layer, grid in enumerate(grids):
            for y, row in enumerate(grid):
                for x, ch in enumerate(row):
                    kind = tables[layer][ch]
                    if kind != _OFF:
                        self._surface[(layer, x, y)] = kind
        self.rule = OpeningRule.of(track)
        self.k = self.rule.moves
        self._walk_cache: dict[tuple[int, int, int, int, int], tuple] = {}

    # -- surfaces ------------------------------------------------------------

    def surface(self, layer: int, x: int, y: int) -> int:
        """This module's class of the cell: 0 off, 1 asphalt, 2 shoulder, 3 ramp."""
        return self._surface.get((layer, x, y), _OFF)

    def endable(self, layer: int, x: int, y: int) -> bool:
        """A move may end here: asphalt or ramp (never a shoulder)."""
        return self.surface(layer, x, y) in (_ASPHALT, _RAMP)

    # -- one move ------------------------------------------------------------

    def _walk(self, x: int, y: int, vx: int, vy: int, layer: int) -> tuple:
        """Geometry of the segment from (x, y) by (vx, vy) starting in `layer`.

        Returns (ok, reason, end layer, events) with events sorted (t, name,
        legal) for the lines met on their own layer. Cached: it depends on
        neither the old velocity, the progress nor the phase.
        """
        key = (x, y, vx, vy, layer)
        hit = self._walk_cache.get(key)
        if hit is not None:
            return hit
        surface = self._surface.get  # this module's class of a cell, _OFF when absent
        spans: list[tuple[Fraction, Fraction, int]] = []  # (enter, leave, layer)
        cur = layer
        prev_ramp = False
        for dx, dy, t, leave in _spans(vx, vy):
            cx, cy = x + dx, y + dy
            if surface((cur, cx, cy), _OFF) == _OFF:
                if prev_ramp and surface((1 - cur, cx, cy), _OFF) != _OFF:
                    cur = 1 - cur
                else:
                    res = (False, f"touches ({cx}, {cy}), off-track in layer {cur}", cur, ())
                    self._walk_cache[key] = res
                    return res
            spans.append((t, leave, cur))
            prev_ramp = surface((0, cx, cy), _OFF) == _RAMP
        if not self.endable(cur, x + vx, y + vy):
            res = (False, f"ends on ({x + vx}, {y + vy}), not endable in layer {cur}", cur, ())
            self._walk_cache[key] = res
            return res
        events = []
        for name, line in (("start", self.track.start), ("finish", self.track.finish)):
            t = _meets_line(line, x, y, vx, vy)
            if t is None:
                continue
            at_layer = next(lay for enter, leave, lay in spans if enter <= t < leave)
            if at_layer != line.layer:
                continue
            along = vx if line.axis == "x" else vy
            legal = (along > 0) == (line.direction[0] == "+")
            events.append((t, name, legal))
        events.sort()
        res = (True, "ok", cur, tuple(events))
        self._walk_cache[key] = res
        return res

    def opening_ok(self, phase: int, vx: int, vy: int) -> bool:
        """The opening rule (`race_rules.OpeningRule`) for the move made from `phase`."""
        return self.rule.allows(phase, vx, vy)

    def move(self, s: VState, accel: tuple[int, int]) -> Verdict:
        """Apply `accel` to `s`: validity, next state (progress, phase) and arrival."""
        vx, vy = s.vx + accel[0], s.vy + accel[1]
        if vx == 0 and vy == 0:
            return Verdict(False, "zero velocity")
        if not self.opening_ok(s.phase, vx, vy):
            return Verdict(False, "opening rule")
        qx, qy = s.x + vx, s.y + vy
        if not (0 <= qx < self.width and 0 <= qy < self.height):
            return Verdict(False, "leaves the grid")
        ok, reason, layer, events = self._walk(s.x, s.y, vx, vy, s.layer)
        if not ok:
            return Verdict(False, reason)
        for _, name, legal in events:
            if not legal:
                return Verdict(False, f"wrong way over the {name} line")
        at = {name: t for t, name, _ in events}
        start, finish = "start" in at, "finish" in at
        start_first = start and finish and at["start"] < at["finish"]
        arrives, progress = move_outcome(s.progress, start, finish, start_first)
        new = VState(qx, qy, vx, vy, layer, progress, self.rule.phase_after(s.phase))
        return Verdict(True, "ok", new, arrives)

    def initial(self) -> VState:
        """The configured car at rest, progress 0, phase 0."""
        x, y = self.track.car.position
        return VState(x, y, 0, 0, self.track.car.layer, 0, 0)

    def replay(self, positions: list[tuple[int, int]], initial: VState | None = None
               ) -> tuple[bool, str]:
        """Validate a trajectory given as positions p0..pT: every move valid, first arrival at T.

        >>> # Geometry(track).replay([(1, 1), (2, 1), (4, 1), (7, 1)])
        """
        s = initial or self.initial()
        if positions[0] != (s.x, s.y):
            return False, f"starts at {positions[0]}, not at {(s.x, s.y)}"
        for i in range(1, len(positions)):
            (x0, y0), (x1, y1) = positions[i - 1], positions[i]
            accel = (x1 - x0 - s.vx, y1 - y0 - s.vy)
            if max(abs(accel[0]), abs(accel[1])) > 1:
                return False, f"move {i}: acceleration {accel} out of range"
            v = self.move(s, accel)
            if not v.valid:
                return False, f"move {i}: {v.reason}"
            if v.arrives and i != len(positions) - 1:
                return False, f"arrives early, at move {i}"
            if i == len(positions) - 1 and not v.arrives:
                return False, f"move {i} (the last) does not arrive"
            assert v.state is not None
            s = v.state
        return True, "ok"
