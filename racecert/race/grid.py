"""The starting grid: which cell each car of a race starts on.

Car i starts on grid slot i. The listed slots come first: the configured car's
position, then `[car].slots` in file order (the same list `analyze --all-slots`
uses, `racecert.analysis.slots.grid_positions`). A race with more cars than listed
slots fills the rest with *derived* slots, so that any track can host a race:

- a unit-step flood (side and corner steps with the layer rules,
  `racecert.model.topology.unit_step`) from the listed slots that never crosses the
  start line S, in either direction;
- a candidate is a cell reached by the flood, on the layer of the car, where a car
  may stop (asphalt or a ramp), on S's entry side (so no car starts past S), and not
  already a slot;
- candidates are taken nearest first (flood steps), then by row, then by column.

Every car has the configured direction and layer. When the flood offers too few
cells the race cannot be set up (`RaceSetupError`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from racecert.analysis.slots import grid_positions
from racecert.model.topology import STEPS, Node, step_crosses, unit_step
from racecert.model.track import Track
from racecert.race.errors import RaceSetupError


@dataclass(frozen=True)
class GridSlot:
    """Slot `index` of the grid at `position`; `derived` when not listed in the file."""

    index: int
    position: tuple[int, int]
    derived: bool


def _flood_distances(track: Track, sources: list[Node]) -> dict[Node, int]:
    """Unit-step distances from `sources`, never crossing S (breadth first)."""
    dist = {s: 0 for s in sources}
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        for dx, dy in STEPS:
            nxt = unit_step(track, node, dx, dy)
            if nxt is None or nxt in dist or step_crosses(track.start, node, dx, dy, nxt):
                continue
            dist[nxt] = dist[node] + 1
            queue.append(nxt)
    return dist


def grid_slots(track: Track, cars: int) -> tuple[GridSlot, ...]:
    """The first `cars` slots of the grid: listed ones, then derived ones (module doc).

    >>> from racecert.model.parse import load_track
    >>> t = load_track("tracks/ocho.toml")  # doctest: +SKIP
    >>> [s.position for s in grid_slots(t, 3)]  # doctest: +SKIP
    [(3, 20), (2, 20), (4, 20)]
    """
    if cars < 1:
        raise RaceSetupError("a race needs at least one car")
    listed = list(dict.fromkeys(grid_positions(track)))
    slots = [GridSlot(i, p, False) for i, p in enumerate(listed[:cars])]
    if cars <= len(listed):
        return tuple(slots)
    layer = track.car.layer
    taken = set(listed)
    dist = _flood_distances(track, [(x, y, layer) for x, y in listed])
    candidates = sorted(
        (d, y, x) for (x, y, lay), d in dist.items()
        if lay == layer and (x, y) not in taken and track.endable(layer, x, y)
        and track.start.entry_side(x, y))
    need = cars - len(listed)
    if len(candidates) < need:
        raise RaceSetupError(
            f"{track.path or track.name}: the grid holds {len(listed) + len(candidates)} "
            f"car(s) ({len(listed)} listed slot(s) and {len(candidates)} derived), "
            f"the race asks for {cars}")
    for _, y, x in candidates[:need]:
        slots.append(GridSlot(len(slots), (x, y), True))
    return tuple(slots)
