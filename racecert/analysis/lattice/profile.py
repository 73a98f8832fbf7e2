"""The start-list profiles' entry in the analysis registry (`racecert.analysis.profiles`):
lattice and cell-path tracks share this pipeline (`racecert.analysis.lattice.pipeline`),
picture (`.svg`) and reports (`.report`); each is one instance for its model profile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from racecert.analysis.base import AnalysisProfile, HtmlRows, Rows, StepFn
from racecert.analysis.lattice import report
from racecert.analysis.lattice.pipeline import STEPS, LatticeAnalysis, analyze_lattice
from racecert.analysis.trajectory import Trajectory

if TYPE_CHECKING:
    from racecert.model.budget import StateBudget
    from racecert.model.rules import RuleProfile
    from racecert.oracle.bfs import Mode, ProgressFn
    from racecert.oracle.dijkstra import ProgressFn as YellowProgressFn


class StartListAnalysisProfile(AnalysisProfile):
    """A profile whose files list start positions (`--best-start` searches from all of
    them): the exact key only (no opening phase), no grid slots, no yellow search."""

    analysis_type = LatticeAnalysis
    steps = STEPS
    refused = {
        "mode": "lattice and cell-path tracks have no opening phase; only the exact key "
                "exists",
        "all_slots": "a lattice or cell-path track lists its start positions; use "
                     "--best-start",
    }

    def run(self, track: Any, *, mode: Mode, best_start: bool, progress: ProgressFn | None,
            step: StepFn | None, yellow_progress: YellowProgressFn | None,
            rules: RuleProfile | None, budget: StateBudget | None) -> LatticeAnalysis:
        return analyze_lattice(track, best_start, progress=progress,
                               rules=rules, budget=budget, step=step)  # type: ignore[arg-type]

    def render_svg(self, analysis: Any) -> str:
        from racecert.analysis.lattice.svg import render_lattice_svg

        return render_lattice_svg(analysis)

    def report_rows(self, analysis: Any) -> Rows:
        return report.report_rows(analysis)

    def html_rows(self, analysis: Any) -> HtmlRows:
        return report.html_rows(analysis)

    def trajectories(self, analysis: Any) -> list[tuple[str, Trajectory]]:
        return [(name, ext.trajectory) for name, ext in (("green", analysis.green),
                                                         ("blue", analysis.blue))
                if ext is not None]
