"""What every driver of one race shares: the track, its rules and lazily computed knowledge.

One `RaceContext` per race. Drivers reach it through their view (`view.context`).
The expensive pieces are computed on first use and then shared by every car:

- `analysis`: the whole analysis pipeline of the track (`racecert.analysis.analyze`),
  whose library entry gives `trai` (`racecert.analysis.library`);
- `aptitude`: stage or circuit (from the analysis when it exists, else
  `lap_aptitude` alone);
- `oracle`: the memoised continuation oracle ("can a further arrival be made from
  this exact state?", `racecert.oracle.continuity.ContinuationOracle`).
"""

from __future__ import annotations

from functools import cached_property

from racecert.analysis.library import eligible_representatives
from racecert.analysis.pipeline import Analysis, analyze
from racecert.analysis.trajectory import Trajectory
from racecert.model.rules import VectorRaceRules
from racecert.model.track import Track
from racecert.oracle.continuity import ContinuationOracle
from racecert.oracle.laps import LapAptitude, lap_aptitude


class RaceContext:
    """Shared, lazily computed knowledge about the track of one race."""

    def __init__(self, track: Track, laps: int, move_limit: int) -> None:
        self.track = track
        self.laps = laps
        self.move_limit = move_limit
        self.rules = VectorRaceRules(track)

    @cached_property
    def analysis(self) -> Analysis:
        """The track's analysis (exact key), computed once."""
        return analyze(self.track, "exact")

    @cached_property
    def aptitude(self) -> LapAptitude:
        """Stage or circuit, computed (reused from the analysis when it was run)."""
        if "analysis" in self.__dict__:
            return self.analysis.aptitude
        return lap_aptitude(self.track)

    @property
    def circuit(self) -> bool:
        return self.aptitude.kind == "circuit"

    @cached_property
    def oracle(self) -> ContinuationOracle:
        """The continuation oracle, shared by every car and every re-plan."""
        return ContinuationOracle(self.track, self.rules)

    @cached_property
    def trai(self) -> Trajectory | None:
        """The library's `trai` (longest eligible optimal trajectory from the configured
        car's position), or None when the finish is unreachable."""
        reps, _ = eligible_representatives(self.analysis)
        return None if reps is None else reps.blue.trajectory
