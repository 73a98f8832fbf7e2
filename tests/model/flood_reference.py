"""The cell-by-cell flood (breadth-first over `unit_step`), the reference for `reach`.

This is the validator's original flood: a Python deque over (x, y, layer)
nodes and the per-cell step rules of `racecert.model.topology`. It is slow
(a few microseconds per step) and obviously right; the vectorised flood in
`racecert.model.reach` must reach exactly the same cells and report the same
hit on every track the tests draw.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from racecert.model.topology import STEPS, Node, step_crosses, unit_step
from racecert.model.track import Line, Track

StepFilter = Callable[[Node, int, int, Node], bool]


def _flood(track: Track, sources: Iterable[Node], passable: StepFilter, target: Line | None,
           take_target_steps: bool) -> tuple[set[Node], bool]:
    seen: set[Node] = set(sources)
    queue = deque(seen)
    hit = False
    while queue:
        node = queue.popleft()
        for dx, dy in STEPS:
            nxt = unit_step(track, node, dx, dy)
            if nxt is None:
                continue
            if target is not None and step_crosses(target, node, dx, dy, nxt) == 1:
                hit = True
                if not take_target_steps:
                    continue
            if passable(node, dx, dy, nxt) and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen, hit


def flood(track: Track, sources: Iterable[Node], blocked: tuple[Line, ...],
          stop_on: Line | None = None) -> tuple[set[Node], bool]:
    """Unit steps crossing no line of `blocked`; steps crossing `stop_on` legally are
    reported (hit) and not taken."""
    def passable(node: Node, dx: int, dy: int, nxt: Node) -> bool:
        return all(step_crosses(line, node, dx, dy, nxt) == 0 for line in blocked)

    return _flood(track, sources, passable, stop_on, take_target_steps=False)


def flood_directed(track: Track, sources: Iterable[Node], lines: tuple[Line, ...],
                   target: Line) -> tuple[set[Node], bool]:
    """Unit steps never crossing a line of `lines` against its direction."""
    def passable(node: Node, dx: int, dy: int, nxt: Node) -> bool:
        return all(step_crosses(line, node, dx, dy, nxt) != -1 for line in lines)

    return _flood(track, sources, passable, target, take_target_steps=True)
