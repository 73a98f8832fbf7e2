"""Cell-level reachability used by the validator and by the lap analysis.

Any move walks through a chain of touched cells in which consecutive cells are
side or corner neighbours; the layer rules and line crossings of the move are
those of the unit steps along that chain. So a flood fill over unit steps
between cell centres (8 directions) is a sound relaxation of the car's motion:
if the flood cannot do something, no trajectory can.

`unit_step` and `step_crosses` state the step rules for one cell; the floods
over the whole track are computed by `racecert.model.reach` (vectorised, linear
in the number of cells), which reaches exactly the cells a cell-by-cell
breadth-first search over these rules reaches.
"""

from __future__ import annotations

from collections.abc import Iterable

from racecert.model.geometry import line_crossing
from racecert.model.reach import STEPS, Node, reach
from racecert.model.track import Line, Track

__all__ = ["STEPS", "Node", "exit_cells", "flood", "flood_directed", "lap_precondition",
           "reaches_finish_before_start", "step_crosses", "unit_step"]


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
    (such steps are not taken). Sources must be drivable cells.
    """
    r = reach(track, sources, blocked, "any", stop_on, take_target_steps=False)
    return r.nodes(), r.hit


def reaches_finish_before_start(track: Track) -> bool:
    """True if the finish could be crossed legally without crossing the start first."""
    x, y = track.car.position
    sources = [(x, y, track.car.layer)] + [(sx, sy, track.car.layer) for sx, sy in track.car.slots]
    lines = (track.start, track.finish)
    return reach(track, sources, lines, "any", track.finish, take_target_steps=False).hit


# -- lap precondition (docs/continuity.md) ------------------------------------------------------


def flood_directed(track: Track, sources: Iterable[Node], lines: tuple[Line, ...],
                   target: Line) -> tuple[set[Node], bool]:
    """Cells reachable from `sources` by unit steps that never cross a line of `lines`
    against its direction (legal crossings are allowed: a race may cross them).

    Returns the reached set and whether some step crosses `target` legally.
    """
    r = reach(track, sources, lines, "backward", target, take_target_steps=True)
    return r.nodes(), r.hit


def exit_cells(track: Track, line: Line) -> list[Node]:
    """Drivable cells (in the line's layer) just past `line` on its exit side.

    Rows (or columns) lo-1..hi+1 are included: a move crossing exactly at an
    end of the closed span enters the cell diagonally beyond it.
    """
    beyond = line.k + 1 if line.sign > 0 else line.k
    out: list[Node] = []
    for s in range(line.lo - 1, line.hi + 2):
        x, y = (beyond, s) if line.axis == "x" else (s, beyond)
        if track.drivable(line.layer, x, y):
            out.append((x, y, line.layer))
    return out


def lap_precondition(track: Track) -> bool:
    """The topological precondition for a circuit: from F's exit side the drivable
    region leads to a legal S crossing, and from S's exit side to a legal F crossing,
    never crossing S or F against its direction.

    A spiral stage fails it: driving back from the finish is geometrically
    possible but only against the lines' direction.
    """
    lines = (track.start, track.finish)
    for origin, goal in ((track.finish, track.start), (track.start, track.finish)):
        if not reach(track, exit_cells(track, origin), lines, "backward", goal,
                     take_target_steps=True).hit:
            return False
    return True
