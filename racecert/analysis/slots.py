"""Every grid slot of a track (docs/formal-limits.md, limit 4): the analysis from each start.

The analysis uses the configured car (`[car].position`); a multi-car grid lists more
slots (`[car].slots`), each with the same direction and layer. `analyze_slots` runs
the whole pipeline once per grid position, the configured car first, so a track
designer sees whether some slot is favoured (e.g. a smaller m* from one of them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from racecert.analysis.pipeline import Analysis, analyze
from racecert.model.track import Track
from racecert.oracle.bfs import Mode

AnalyzeFn = Callable[[Track, Mode], Analysis]


def grid_positions(track: Track) -> tuple[tuple[int, int], ...]:
    """The configured car's position, then every `[car].slots` position, in file order."""
    return (track.car.position, *track.car.slots)


def slot_track(track: Track, position: tuple[int, int]) -> Track:
    """`track` with the car moved to `position` (same direction, layer and file)."""
    return replace(track, car=replace(track.car, position=position))


@dataclass(frozen=True)
class SlotAnalysis:
    """The analysis from grid slot `index` (0: the configured car) at `position`."""

    index: int
    position: tuple[int, int]
    analysis: Analysis

    def to_json(self) -> dict[str, Any]:
        """One object of the report's `slots` list (docs/report.md)."""
        a = self.analysis
        j = a.to_json()
        return {
            "slot": self.index,
            "position": list(self.position),
            "configured": self.index == 0,
            "reachable": j["reachable"],
            "m_star": j["m_star"],
            "optimal_count": j["optimal_count"],
            "final_states": j["final_states"],
            "yellow_moves": None if j["yellow"] is None else j["yellow"]["moves"],
            "continuable_count": j["continuable_count"],
            "score": None if j["score"] is None else j["score"]["total"],
            "seconds": j["seconds"],
        }


def analyze_slots(track: Track, mode: Mode = "exact", configured: Analysis | None = None,
                  run: AnalyzeFn | None = None) -> tuple[SlotAnalysis, ...]:
    """The analysis from every grid position (`grid_positions`).

    `configured` is reused for slot 0 when given (the caller has usually just run
    it); `run(track, mode)` runs one analysis (default `analyze`; the CLI passes one
    with progress displays).
    """
    go = run or analyze
    out = []
    for i, pos in enumerate(grid_positions(track)):
        if i == 0 and configured is not None:
            a = configured
        else:
            a = go(slot_track(track, pos), mode)
        out.append(SlotAnalysis(i, pos, a))
    return tuple(out)
