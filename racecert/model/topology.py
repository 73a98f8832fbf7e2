"""Cell-level reachability used by the validator and by the lap analysis.

Any move walks through a chain of touched cells in which consecutive cells are
side or corner neighbours; the layer rules and line crossings of the move are
those of the unit steps along that chain. So a flood fill over unit steps
between cell centres (8 directions) is a sound relaxation of the car's motion:
if the flood cannot do something, no trajectory can.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from racecert.model.geometry import line_crossing
from racecert.model.track import Line, Track

Node = tuple[int, int, int]  # (x, y, layer)
STEPS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


def unit_step(track: Track, node: Node, dx: int, dy: int) -> Node | None:
    """The cell reached by a unit step (side or corner) with the layer rules, or None."""
    x, y, layer = node
    nx, ny = x + dx, y + dy
    if track.drivable(layer, nx, ny):
        return (nx, ny, layer)
    if track.is_ramp(x, y) and track.drivable(1 - layer, nx, ny):
        return (nx, ny, 1 - layer)
    return None


def step_crosses(line: Line, node: Node, dx: int, dy: int, landed: Node) -> int:
    """+1 if the step crosses `line` legally on its layer, -1 against it, 0 if not at all."""
    if landed[2] != line.layer or line_crossing(line, node[0], node[1], dx, dy) is None:
        return 0
    v = dx if line.axis == "x" else dy
    return 1 if v * line.sign > 0 else -1


def flood(track: Track, sources: Iterable[Node], blocked: tuple[Line, ...],
          stop_on: Line | None = None) -> tuple[set[Node], bool]:
    """Cells reachable from `sources` by unit steps that cross no line in `blocked`.

    Returns the reached set and whether a step could cross `stop_on` legally
    (such steps are not taken).
    """
    seen: set[Node] = set(sources)
    queue = deque(seen)
    hit = False
    while queue:
        node = queue.popleft()
        for dx, dy in STEPS:
            nxt = unit_step(track, node, dx, dy)
            if nxt is None:
                continue
            if stop_on is not None and step_crosses(stop_on, node, dx, dy, nxt) == 1:
                hit = True
                continue
            if any(step_crosses(line, node, dx, dy, nxt) != 0 for line in blocked):
                continue
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen, hit


def reaches_finish_before_start(track: Track) -> bool:
    """True if the finish could be crossed legally without crossing the start first."""
    x, y = track.car.position
    sources = [(x, y, track.car.layer)] + [(sx, sy, track.car.layer) for sx, sy in track.car.slots]
    _, hit = flood(track, sources, blocked=(track.start, track.finish), stop_on=track.finish)
    return hit
