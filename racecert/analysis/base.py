"""One analysis type and one profile interface for every rule profile (issue #20).

Python-chess style: every profile's analysis is a subclass of `BaseAnalysis` (the grid's
`racecert.analysis.pipeline.Analysis`, the start-list profiles'
`racecert.analysis.lattice.pipeline.LatticeAnalysis`), and everything the layers above
need of a profile's analysis is one `AnalysisProfile`, found through one registry
(`racecert.analysis.profiles.analysis_profile`, by the track's type). A caller that holds
a `BaseAnalysis` and its `AnalysisProfile` never asks which profile it has.

Kept free of the pipelines (they import this module): the registry imports them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from racecert.model.profiles import Profile, profile_of
from racecert.oracle.bfs import BfsResult

if TYPE_CHECKING:
    from racecert.analysis.trajectory import Trajectory
    from racecert.model.budget import StateBudget
    from racecert.model.rules import RuleProfile
    from racecert.oracle.bfs import Mode, ProgressFn
    from racecert.oracle.dijkstra import ProgressFn as YellowProgressFn

Rows = list[tuple[str, str]]
"""(label, value) rows of the human text report (the command line aligns them)."""
HtmlRows = list[tuple[str, str, str]]
"""(label, value, note) rows of the notebook table (`racecert.analysis.html_view`)."""
StepFn = Callable[[str], None]
"""`step(name)`: a pipeline step starts (progress display)."""


def effort_rows(a: BaseAnalysis) -> Rows:
    """The last rows of every profile's text report: the states explored and the seconds,
    in total and per step."""
    return [
        ("states explored", f"{a.bfs.states_explored:,}"),
        ("seconds", f"{a.seconds:.3f}  ("
         + ", ".join(f"{k} {v:.2f}" for k, v in a.timings.items()) + ")"),
    ]


class BaseAnalysis(ABC):
    """What every profile's analysis has: the `track`, the oracle's `bfs` (``m_star``,
    ``optimal_count``, ...), the state key `mode`, the wall `seconds` and per-step
    `timings`, its `profile`, the `kind` and `design_score` where the profile defines
    them, the JSON report (`to_json`) and the notebook views (`_repr_svg_`,
    `_repr_html_`, drawn by the profile's `AnalysisProfile`)."""

    track: Any
    bfs: BfsResult
    mode: str
    seconds: float
    timings: dict[str, float]

    @property
    def profile(self) -> Profile:
        """The rule profile of the analysed track (`racecert.model.profiles`)."""
        return profile_of(self.track)

    @property
    def kind(self) -> str | None:
        """The computed kind ("stage" / "circuit"), where the profile defines one (the
        grid's lap aptitude); None otherwise."""
        return None

    @property
    def design_score(self) -> Any:
        """The design score's total (0 to 100, docs/score.md), where the profile defines
        one and the finish is reachable; None otherwise."""
        return None

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The JSON report of `racecert analyze --json` (docs/report.md)."""

    def _repr_svg_(self) -> str:
        """The picture of `racecert analyze -o FILE.svg`, shown inline by notebooks."""
        from racecert.analysis.profiles import analysis_profile

        return analysis_profile(self.track).render_svg(self)

    def _repr_html_(self) -> str:
        """The picture beside a table of the headline figures (the profile's
        `AnalysisProfile.html_rows`), for notebooks; every text escaped
        (`racecert.analysis.html_view`)."""
        from racecert.analysis.html_view import rows_table, side_by_side
        from racecert.analysis.profiles import analysis_profile

        return side_by_side(self._repr_svg_(),
                            rows_table(analysis_profile(self.track).html_rows(self)))


class AnalysisProfile(ABC):
    """What the analysis layer offers for one rule profile (`model`): its pipeline
    (`analyze`), the options it refuses and why (`refusal`), its picture (`render_svg`),
    the rows of its text report (`report_rows`) and notebook table (`html_rows`), and the
    trajectories of its moves table (`trajectories`). A new profile subclasses this and
    registers an instance in `racecert.analysis.profiles` (docs/architecture.md)."""

    model: Profile
    analysis_type: ClassVar[type[BaseAnalysis]]
    steps: ClassVar[tuple[str, ...]]
    """The names `analyze` passes to `step`, in order (the total of a progress display)."""
    refused: ClassVar[dict[str, str]] = {}
    """Option -> why this profile refuses it: ``"mode"`` (any key but "exact"),
    ``"best_start"``, ``"all_slots"`` (docs/report.md)."""

    def __init__(self, model: Profile) -> None:
        self.model = model

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model.name!r})"

    def refusal(self, *, mode: str = "exact", best_start: bool = False,
                all_slots: bool = False) -> tuple[str, str] | None:
        """(option, why) of the first given option this profile refuses, or None. The
        option is ``"mode"``, ``"best_start"`` or ``"all_slots"``; the caller names it its
        own way (``--best-start`` on the command line, ``best_start`` in the API)."""
        given = {"mode": mode != "exact", "best_start": best_start, "all_slots": all_slots}
        for option, why in self.refused.items():
            if given.get(option):
                return option, why
        return None

    def analyze(self, track: Any, *, mode: Mode = "exact", best_start: bool = False,
                progress: ProgressFn | None = None, step: StepFn | None = None,
                yellow_progress: YellowProgressFn | None = None,
                rules: RuleProfile | None = None,
                budget: StateBudget | None = None) -> BaseAnalysis:
        """The profile's pipeline on `track` (a track of this profile). `progress(depth,
        frontier, states)` per BFS layer, `step(name)` as each of `steps` starts,
        `yellow_progress(rounds, settled)` where the profile has a least-length search;
        `rules` the oracle's rules (default the track's own), `budget` a bound on the
        states of every search. `ValueError` (one line, naming the option) for an option
        the profile refuses (`refusal`)."""
        refused = self.refusal(mode=mode, best_start=best_start)
        if refused is not None:
            option, why = refused
            name = f"mode {mode!r}" if option == "mode" else option
            raise ValueError(f"{name}: {why}")
        return self.run(track, mode=mode, best_start=best_start, progress=progress, step=step,
                        yellow_progress=yellow_progress, rules=rules, budget=budget)

    @abstractmethod
    def run(self, track: Any, *, mode: Mode, best_start: bool, progress: ProgressFn | None,
            step: StepFn | None, yellow_progress: YellowProgressFn | None,
            rules: RuleProfile | None, budget: StateBudget | None) -> BaseAnalysis:
        """`analyze` once its options are accepted: the profile's own pipeline."""

    @abstractmethod
    def render_svg(self, analysis: Any) -> str:
        """The SVG picture of `analysis` (`racecert analyze -o FILE.svg`)."""

    @abstractmethod
    def report_rows(self, analysis: Any) -> Rows:
        """Every figure of `analysis` as (label, value) rows of the text report."""

    @abstractmethod
    def html_rows(self, analysis: Any) -> HtmlRows:
        """The headline figures of `analysis` as (label, value, note) rows (notebooks)."""

    @abstractmethod
    def trajectories(self, analysis: Any) -> list[tuple[str, Trajectory]]:
        """(name, trajectory) of the drawn trajectories `analysis` has (yellow, green,
        blue, in that order): the rows of the moves table (`analyze -o F.csv`)."""
