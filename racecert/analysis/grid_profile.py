"""The grid profile's entry in the analysis registry (`racecert.analysis.profiles`): its
pipeline (`racecert.analysis.pipeline`), picture (`racecert.analysis.svg`), text report
(`racecert.analysis.report`) and notebook rows (`racecert.analysis.html_view`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from racecert.analysis import report
from racecert.analysis.base import AnalysisProfile, HtmlRows, Rows, StepFn
from racecert.analysis.html_view import figure_rows
from racecert.analysis.pipeline import STEPS, Analysis, analyze
from racecert.analysis.trajectory import Trajectory

if TYPE_CHECKING:
    from racecert.model.budget import StateBudget
    from racecert.model.rules import RuleProfile
    from racecert.oracle.bfs import Mode, ProgressFn
    from racecert.oracle.dijkstra import ProgressFn as YellowProgressFn


class GridAnalysisProfile(AnalysisProfile):
    """The grid rules' analysis: one car, both state keys, grid slots (`--all-slots`)."""

    analysis_type = Analysis
    steps = STEPS
    refused = {"best_start": "a grid track has one car (lattice and cell-path tracks only)"}

    def run(self, track: Any, *, mode: Mode, best_start: bool, progress: ProgressFn | None,
            step: StepFn | None, yellow_progress: YellowProgressFn | None,
            rules: RuleProfile | None, budget: StateBudget | None) -> Analysis:
        return analyze(track, mode, progress=progress, step=step, rules=rules, budget=budget,
                       yellow_progress=yellow_progress)

    def render_svg(self, analysis: Any) -> str:
        from racecert.analysis.svg import render_svg

        return render_svg(analysis)

    def report_rows(self, analysis: Any) -> Rows:
        return report.report_rows(analysis)

    def html_rows(self, analysis: Any) -> HtmlRows:
        return figure_rows(analysis)

    def trajectories(self, analysis: Any) -> list[tuple[str, Trajectory]]:
        out: list[tuple[str, Trajectory]] = []
        if analysis.yellow_trajectory is not None:
            out.append(("yellow", analysis.yellow_trajectory))
        r = analysis.representatives
        if r is not None:
            out += [("green", r.green.trajectory), ("blue", r.blue.trajectory)]
        return out
