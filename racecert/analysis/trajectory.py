"""One concrete trajectory: positions, accelerations, exact length, touched cells.

Every representative racecert reports (yellow, green, blue, the library's
trai/troi/tray) is a `Trajectory`, so the report, the library and the SVG
share one JSON shape and one notion of "cells touched".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from racecert.model.geometry import touched_offsets
from racecert.model.radicals import RadicalSum, length_of_moves


@dataclass(frozen=True)
class Trajectory:
    """A trajectory from the initial state: P0..Pm, one acceleration per move.

    >>> t = Trajectory.replay((1, 1), ((1, 0), (1, 0)))
    >>> t.positions, str(t.length), t.moves
    (((1, 1), (2, 1), (4, 1)), '3', 2)
    """

    positions: tuple[tuple[int, int], ...]
    accelerations: tuple[tuple[int, int], ...]

    @staticmethod
    def replay(start: tuple[int, int], accelerations: tuple[tuple[int, int], ...],
               velocity: tuple[int, int] = (0, 0)) -> Trajectory:
        """The trajectory obtained by applying `accelerations` from `start` at `velocity`."""
        x, y = start
        vx, vy = velocity
        pos = [(x, y)]
        for ax, ay in accelerations:
            vx, vy = vx + ax, vy + ay
            x, y = x + vx, y + vy
            pos.append((x, y))
        return Trajectory(tuple(pos), tuple(accelerations))

    @property
    def moves(self) -> int:
        return len(self.accelerations)

    @property
    def velocities(self) -> tuple[tuple[int, int], ...]:
        """The displacement P_{i+1} - P_i of each move: its v', except the last move of a
        cell-path run that stops on a goal cell part-way along it (docs/rules.md section
        10), whose displacement ends on that cell."""
        p = self.positions
        return tuple((p[i + 1][0] - p[i][0], p[i + 1][1] - p[i][1]) for i in range(self.moves))

    @cached_property
    def length(self) -> RadicalSum:
        """Exact Σ|v'| as a radical sum."""
        return length_of_moves(self.velocities)

    @property
    def length_float(self) -> float:
        return self.length.to_float()

    @cached_property
    def cells(self) -> frozenset[tuple[int, int]]:
        """Grid cells (x, y) touched by some move (docs/rules.md), layers merged."""
        out: set[tuple[int, int]] = {self.positions[0]}
        for (px, py), (vx, vy) in zip(self.positions, self.velocities, strict=False):
            out.update((px + dx, py + dy) for dx, dy, _ in touched_offsets(vx, vy))
        return frozenset(out)

    def to_json(self) -> dict[str, Any]:
        """{moves, length, length_exact, positions, accelerations}."""
        return {
            "moves": self.moves,
            "length": self.length_float,
            "length_exact": str(self.length),
            "positions": [list(p) for p in self.positions],
            "accelerations": [list(a) for a in self.accelerations],
        }
