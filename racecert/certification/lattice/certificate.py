"""Certificates of lattice tracks (docs/certificate.md, "Lattice tracks").

`certify_lattice` runs the lattice analysis (the oracle) and the profile's checks (a
lattice track's `racecert.certification.lattice.checks.CHECKS`, a cell-path track's
`racecert.certification.cellpath.checks.CHECKS`: `racecert.certification.profiles` finds
them), and judges every figure the lattice report
has with the same rules as the grid certificate (`judge_figure`): `certified` when every
figure is confirmed by an independent check, `partial` when one is not (the headline
names it), `disagree` when a check disagrees.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from racecert.analysis.lattice.pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification.certificate import (
    SCHEMA,
    FigureVerdict,
    Judged,
    judge_figure,
    run_checks,
    timing_json,
)
from racecert.certification.context import CheckResult, NamedCheck, StepFn
from racecert.certification.lattice.checks import lattice_context, oracle_starts
from racecert.model.budget import StateBudget
from racecert.model.lattice.track import LatticeTrack
from racecert.model.profiles import acceleration_set_name, profile_of


def _length(a: LatticeAnalysis, which: str, part: str) -> Any:
    ext = a.green if which == "green" else a.blue
    if ext is None:
        return None
    return str(ext.length) if part == "length" else str(ext.ties)


def _unreachable(a: LatticeAnalysis) -> str | None:
    return None if a.bfs.reachable else "the finish is unreachable"


FIGURES: tuple[tuple[str, Callable[[LatticeAnalysis], Any],
                     Callable[[LatticeAnalysis], str | None]], ...] = (
    ("move_validity", lambda a: f"the {profile_of(a.track).name} profile's rules "
     f"({acceleration_set_name(a.track)} accelerations)", lambda a: None),
    ("reachable", lambda a: a.bfs.reachable, lambda a: None),
    ("m_star", lambda a: a.bfs.m_star, _unreachable),
    ("optimal_count", lambda a: str(a.bfs.optimal_count), _unreachable),
    ("final_states", lambda a: a.bfs.final_states, _unreachable),
    ("optimal_starts", oracle_starts, _unreachable),
    ("green_length", lambda a: _length(a, "green", "length"), _unreachable),
    ("green_ties", lambda a: _length(a, "green", "ties"), _unreachable),
    ("blue_length", lambda a: _length(a, "blue", "length"), _unreachable),
    ("blue_ties", lambda a: _length(a, "blue", "ties"), _unreachable),
)


@dataclass(frozen=True)
class LatticeCertificate(Judged):
    """Everything `racecert certify` found for one lattice or cell-path track: the
    start-list profiles' certificate (judged as every profile's: `Judged`)."""

    track: LatticeTrack
    analysis: LatticeAnalysis
    results: tuple[CheckResult, ...]
    seconds: float
    arbitrations: tuple = ()  # no editor key on lattice tracks

    @property
    def figures(self) -> tuple[FigureVerdict, ...]:
        by: dict[str, list[CheckResult]] = {}
        for r in self.results:
            by.setdefault(r.figure, []).append(r)
        return tuple(judge_figure(name, value(self.analysis), absent(self.analysis),
                                  tuple(by.get(name, ())))
                     for name, value, absent in FIGURES)

    def to_json(self) -> dict[str, Any]:
        t, figures = self.track, self.figures
        lo, hi = t.bounds_in_file()
        b = self.analysis.bfs
        return {
            "schema": SCHEMA,
            "rules": profile_of(t).name,
            "status": self.status,
            "headline": self.headline,
            "unconfirmed": list(self.unconfirmed),
            "second_implementation_only": {f.name: f.second_implementation_only
                                           for f in figures if f.second_implementation_only},
            "figures": {f.name: f.to_json() for f in figures},
            "track": {"name": t.name, "path": t.path, "sha256": t.sha256, "width": t.width,
                      "height": t.height, "bounds": [list(lo), list(hi)],
                      "accelerations": acceleration_set_name(t),
                      "best_start": self.analysis.best_start,
                      "starts_considered": [list(t.to_file(p))
                                            for p in self.analysis.considered]},
            "bfs": {"exact": {"reachable": b.reachable, "m_star": b.m_star,
                              "optimal_count": str(b.optimal_count),
                              "final_states": b.final_states,
                              "states_explored": b.states_explored}},
            "arbitration": [],
            "summary": self.summary_json(),
            "timing": timing_json(self.seconds, self.results, {"exact": b.seconds}),
        }


def certify_lattice(track: LatticeTrack, *, best_start: bool = False,
                    step: StepFn | None = None, checks: Sequence[NamedCheck] | None = None,
                    budget: StateBudget | None = None, **limits: Any) -> LatticeCertificate:
    """Run the lattice analysis and every check; `step(label)` before each. `budget`
    (`--max-states`) bounds the oracle's search, as on grid tracks (`StateLimitReached`);
    the independent checks take `limits` (`CertifyContext`'s fields: `cpsat_budget`,
    `workers`, `max_states`, `geometry_max_states`) over this profile's defaults
    (`lattice_context`). `checks`: the profile's own (`racecert.certification.profiles`)
    unless given."""
    t0 = time.perf_counter()
    if checks is None:
        from racecert.certification.profiles import certification_profile

        checks = certification_profile(track).checks
    if step:
        step("lattice analysis (the oracle's figures)")
    analysis = analyze_lattice(track, best_start, budget=budget)
    results = run_checks(lattice_context(analysis, **limits), checks, step)
    return LatticeCertificate(track, analysis, tuple(results), time.perf_counter() - t0)
