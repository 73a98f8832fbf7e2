"""The analysis pipeline: from a track to the figures racecert reports.

`analyze` runs the oracle and gathers its results into an `Analysis` whose
`to_json()` is the documented interface other tools read (docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from racecert.model.track import Track
from racecert.solvers.bfs import BfsResult, Mode, ProgressFn, layered_bfs


@dataclass(frozen=True)
class Analysis:
    """Every figure of one analysis of one track."""

    track: Track
    mode: Mode
    bfs: BfsResult

    def to_json(self) -> dict[str, Any]:
        """The fixed JSON interface (counts as decimal strings: they exceed 2^53)."""
        b = self.bfs
        return {
            "track": self.track.name,
            "sha256": self.track.sha256,
            "mode": self.mode,
            "reachable": b.reachable,
            "m_star": b.m_star,
            "optimal_count": str(b.optimal_count),
            "final_states": b.final_states,
            "states_explored": b.states_explored,
            "seconds": round(b.seconds, 4),
        }


def analyze(track: Track, mode: Mode = "exact", progress: ProgressFn | None = None) -> Analysis:
    """Run the pipeline on `track` with the given state key."""
    return Analysis(track, mode, layered_bfs(track, mode, progress=progress))
