"""Certificates of lattice tracks (docs/certificate.md, "Lattice tracks").

`certify_lattice` runs the lattice analysis (the oracle) and the checks of
`racecert.certification.lattice_checks`, and judges every figure the lattice report
has with the same rules as the grid certificate (`judge_figure`): `certified` when every
figure is confirmed by an independent check, `partial` when one is not (the headline
names it), `disagree` when a check disagrees.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from racecert.analysis.lattice_pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification import cellpath_checks
from racecert.certification.certificate import (
    FIGURE_VERDICTS,
    SCHEMA,
    FigureVerdict,
    Judged,
    judge_figure,
    run_checks,
    timing_json,
)
from racecert.certification.context import CheckResult, MethodKind, NamedCheck, StepFn
from racecert.certification.lattice_checks import (
    check_geometry,
    check_m_star_cpsat,
    check_search,
    lattice_context,
    oracle_starts,
)
from racecert.model.budget import StateBudget
from racecert.model.lattice_track import LatticeTrack
from racecert.model.profiles import acceleration_set_name, profile_of

SECOND = MethodKind.SECOND_IMPLEMENTATION
CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity: the profile's expand vs the independent lattice geometry",
               check_geometry, SECOND),
    NamedCheck("m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*",
               check_m_star_cpsat, MethodKind.SOLVER_MODEL),
    NamedCheck("independent search: m*, exact counts, finals, green and blue", check_search,
               SECOND),
)
CELL_PATH_CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity: the profile's expand vs the independent cell-path walk",
               cellpath_checks.check_geometry, SECOND),
    NamedCheck("m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*",
               cellpath_checks.check_m_star_cpsat, MethodKind.SOLVER_MODEL),
    NamedCheck("independent cell-path search: m*, exact counts, finals, green and blue",
               cellpath_checks.check_search, SECOND),
)
CHECKS_BY_PROFILE: dict[str, tuple[NamedCheck, ...]] = {
    "lattice": CHECKS, "cell-path": CELL_PATH_CHECKS}
"""The independent checks of each profile that lists its start positions: the same
`NamedCheck`s over the same `CertifyContext` as the grid's (`lattice_context`)."""


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
    """Everything `racecert certify` found for one lattice track."""

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
        n = {v: sum(f.verdict == v for f in figures) for v in FIGURE_VERDICTS}
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
            "summary": {"figures_agree": n["agree"], "figures_disagree": n["disagree"],
                        "figures_timeout": n["timeout"], "figures_skipped": n["skipped"],
                        "figures_unchecked": n["unchecked"],
                        "figures_not_applicable": n["not-applicable"],
                        "checks": len(self.results), "ok": self.ok,
                        "certified": self.certified},
            "timing": timing_json(self.seconds, self.results, {"exact": b.seconds}),
        }


def certify_lattice(track: LatticeTrack, *, best_start: bool = False,
                    step: StepFn | None = None, checks: Sequence[NamedCheck] | None = None,
                    budget: StateBudget | None = None, **limits: Any) -> LatticeCertificate:
    """Run the lattice analysis and every check; `step(label)` before each. `budget`
    (`--max-states`) bounds the oracle's search, as on grid tracks (`StateLimitReached`);
    the independent checks take `limits` (`CertifyContext`'s fields: `cpsat_budget`,
    `workers`, `max_states`, `geometry_max_states`) over this profile's defaults
    (`lattice_context`). `checks`: the profile's own (`CHECKS_BY_PROFILE`) unless given."""
    t0 = time.perf_counter()
    checks = CHECKS_BY_PROFILE[profile_of(track).name] if checks is None else checks
    if step:
        step("lattice analysis (the oracle's figures)")
    analysis = analyze_lattice(track, best_start, budget=budget)
    results = run_checks(lattice_context(analysis, **limits), checks, step)
    return LatticeCertificate(track, analysis, tuple(results), time.perf_counter() - t0)
