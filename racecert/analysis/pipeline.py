"""The analysis pipeline (docs/report.md): from a track to every reported figure.

1. yellow: `shortest_trajectory` on the phase-aware key (selection = mode);
2. bound: yellow's move count bounds m*;
3. optimal DAG: `bounded_bfs(track, mode, yellow moves)` (envelope pruning);
4. protection: if that bounded search reports "unreachable", rerun unbounded
   (also `bounded_bfs`);
5. laps / aptitude (computed kind);
6. continuity of the optimal arrivals (race rule and editor certification);
7. counts, green/blue (exact), red coverage, score.

`Analysis.to_json()` is the documented interface other tools read
(docs/report.md); `analyze` is pure apart from timing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from racecert.analysis.base import BaseAnalysis, StepFn
from racecert.analysis.coverage import Coverage, jaccard_distance, red_coverage
from racecert.analysis.representatives import RepresentativeDP, Representatives
from racecert.analysis.score import Score, compute_score
from racecert.analysis.trajectory import Trajectory
from racecert.model.budget import StateBudget
from racecert.model.heap import trim_heap
from racecert.model.profiles import GRID, profile_of
from racecert.model.radicals import RadicalSum
from racecert.model.rules import RuleProfile, VectorRaceRules
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, Mode, ProgressFn, layered_bfs
from racecert.oracle.continuity import Continuity, continuity
from racecert.oracle.dijkstra import ProgressFn as YellowProgressFn
from racecert.oracle.dijkstra import YellowResult, shortest_trajectory
from racecert.oracle.envelopes import bounded_bfs
from racecert.oracle.laps import LapAptitude, lap_aptitude

STEPS = ("yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score")
"""The pipeline's steps, in the order `analyze` announces them to `step`."""


@dataclass(frozen=True)
class Bound:
    """Steps 2-4: the yellow bound on m* and whether the protection rerun was needed."""

    yellow_moves: int | None
    pruner: str | None
    bounded_reachable: bool | None
    protection_rerun: bool
    states_explored_bounded: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "yellow_moves": self.yellow_moves,
            "pruner": self.pruner,
            "bounded_reachable": self.bounded_reachable,
            "protection_rerun": self.protection_rerun,
            "states_explored_bounded": self.states_explored_bounded,
        }


@dataclass(frozen=True)
class Analysis(BaseAnalysis):
    """Every figure of one analysis of one grid track (docs/report.md), as `analyze`
    returns it: the grid profile's `BaseAnalysis` (its picture and notebook view come
    from there, drawn by the grid's `racecert.analysis.profiles` entry).

    Frozen: a result, never updated. Counts are exact Python ints, lengths exact sums of
    square roots (`RadicalSum`) in cell widths (one grid cell is one unit), fractions
    exact `Fraction`s; floats appear only for display (the score, `seconds`).

    Attributes
    ----------
    track : Track
        The validated track analysed.
    mode : {"exact", "editor"}
        The state key of every search (docs/rules.md).
    bfs : BfsResult
        The layered BFS: ``reachable``, ``m_star`` (the minimum number of moves, None when
        the finish is unreachable), ``optimal_count`` (the exact number of trajectories of
        m* moves), ``final_states`` and the optimal DAG.
    yellow : YellowResult
        The least-length arriving trajectory: ``moves``, ``length`` (exact, cell widths).
    bound : Bound
        Yellow's move count as the bound on m*, and whether the unbounded protection rerun
        was needed.
    aptitude : LapAptitude
        Whether the car can make another lap: ``kind`` is "stage" or "circuit".
    continuity : Continuity or None
        On a circuit, how many optimal trajectories continue into another lap (race rule
        and editor's rule) and ``m_cont``; None when the finish is unreachable.
    representatives : Representatives or None
        ``green`` and ``blue``: the shortest and longest optimal trajectories, each with
        its exact ``length`` (cell widths) and ``ties`` (how many optimal trajectories
        have exactly that length); None when the finish is unreachable.
    coverage : Coverage or None
        Red coverage: the cells touched by some optimal trajectory out of the drivable
        ones (``fraction``, exact).
    score : Score or None
        The design score, 0 to 100 (``total``, ``band``, docs/score.md).
    seconds : float
        Wall seconds of the whole analysis (machine-dependent; no figure depends on it).
    timings : dict of str to float
        Wall seconds of each pipeline step ("yellow", "bfs", "laps", ...).

    Examples
    --------
    >>> import racecert
    >>> a = racecert.analyze("tracks/tiny_straight.toml")
    >>> a.bfs.m_star, a.bfs.optimal_count, a.kind, str(a.representatives.green.length)
    (3, 1, 'stage', '6')
    >>> a._repr_html_().startswith('<div class="racecert-analysis-view"')
    True
    """

    track: Track
    mode: Mode
    bfs: BfsResult
    yellow: YellowResult
    bound: Bound
    aptitude: LapAptitude
    continuity: Continuity | None = None
    representatives: Representatives | None = None
    coverage: Coverage | None = None
    score: Score | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    def __repr__(self) -> str:
        """One line: the headline figures (the full report is `to_json()` or the CLI)."""
        b = self.bfs
        figures = (f"m_star={b.m_star}, optimal_count={b.optimal_count}, kind={self.kind!r}"
                   if b.reachable else "reachable=False")
        score = "" if self.score is None else f", score={float(self.score.total):.2f}"
        return f"Analysis({self.track.name!r}, mode={self.mode!r}, {figures}{score})"

    @property
    def kind(self) -> str:
        """The computed kind ("stage" / "circuit", docs/continuity.md)."""
        return self.aptitude.kind

    @property
    def design_score(self) -> Any:
        """The score's total (`score.total`), None without a score."""
        return None if self.score is None else self.score.total

    @property
    def circuit(self) -> bool:
        return self.kind == "circuit"

    @property
    def opening_moves_after_arrival(self) -> int | None:
        """How many moves after an optimal arrival still obey the opening rule.

        Every optimal arrival is move m*, so its phase is min(m*, K): the next lap's
        moves m*+1..K still obey the rule (docs/continuity.md). 0 without a rule or
        when m* >= K; None when nothing arrives.
        """
        if not self.bfs.reachable or self.bfs.m_star is None:
            return None
        opening = self.track.opening
        return 0 if opening is None else max(0, opening.moves - self.bfs.m_star)

    @property
    def yellow_trajectory(self) -> Trajectory | None:
        y = self.yellow
        if not y.reachable:
            return None
        return Trajectory(y.positions, y.accelerations)

    def to_json(self) -> dict[str, Any]:
        """The fixed JSON interface (counts as decimal strings: they exceed 2^53)."""
        b = self.bfs
        c = self.continuity
        cn = c if c is not None and c.applicable else None  # figures only where they apply
        yt = self.yellow_trajectory
        out: dict[str, Any] = {
            "track": self.track.name,
            "sha256": self.track.sha256,
            "mode": self.mode,
            "reachable": b.reachable,
            "m_star": b.m_star,
            "optimal_count": str(b.optimal_count),
            "final_states": b.final_states,
            "states_explored": b.states_explored,
            "seconds": round(self.seconds, 4),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "kind": self.kind,
            "kind_declared": self.track.kind,
            "kind_matches_declared": self.track.kind in (None, self.kind),
            "aptitude": {
                "kind": self.aptitude.kind,
                "topological": self.aptitude.topological,
                "kinematic": self.aptitude.kinematic,
                "states_explored": self.aptitude.states_explored,
            },
            "continuity_applicable": None if c is None else c.applicable,
            "continuable_count": None if cn is None else str(cn.continuable_count),
            "continuable_count_editor": None if cn is None else str(cn.continuable_count_editor),
            "continuable_percent": None if cn is None else float(100 * cn.percent),
            "continuable_fraction_exact": None if cn is None else str(cn.percent),
            "m_cont": None if c is None else c.m_cont,
            "m_cont_null_reason": None if c is None else c.m_cont_null_reason,
            "m_cont_exact": None if c is None else c.m_cont_exact,
            "opening_active_at_arrival": (None if self.opening_moves_after_arrival is None
                                          else self.opening_moves_after_arrival > 0),
            "opening_moves_after_arrival": self.opening_moves_after_arrival,
            "bound": self.bound.to_json(),
            "yellow": None if yt is None else {
                **yt.to_json(),
                "selection": self.yellow.selection,
                "certified_minimum": self.yellow.certified,
                "states_settled": self.yellow.states_settled,
            },
            "green": None,
            "blue": None,
            "coverage": None,
            "score": None if self.score is None else self.score.to_json(),
        }
        r = self.representatives
        if r is not None:
            for name, ext in (("green", r.green), ("blue", r.blue)):
                out[name] = {**ext.trajectory.to_json(), "length_exact": str(ext.length),
                             "ties": str(ext.ties)}
        cov = self.coverage
        if cov is not None:
            out["coverage"] = {
                "red": str(cov.fraction),
                "red_float": float(cov.fraction),
                "touched_cells": len(cov.cells),
                "drivable_cells": cov.drivable,
            }
        return out


def _bfs_with_bound(track: Track, mode: Mode, yellow: YellowResult,
                    progress: ProgressFn | None, rules: RuleProfile,
                    budget: StateBudget | None) -> tuple[BfsResult, Bound]:
    """Steps 2-4: `bounded_bfs` (envelope pruning, protection rerun) with yellow's moves
    as the bound; an unbounded BFS when yellow found no arrival."""
    if not yellow.reachable:
        bfs = layered_bfs(track, mode, progress=progress, rules=rules, budget=budget)
        return bfs, Bound(None, None, None, False, None)
    run = bounded_bfs(track, mode, yellow.moves, progress=progress, rules=rules, budget=budget)
    return run.result, Bound(yellow.moves, "envelopes", run.bounded.reachable,
                             run.protection_rerun, run.bounded.states_explored)


def analyze(track: Track, mode: Mode = "exact", progress: ProgressFn | None = None,
            step: StepFn | None = None, rules: RuleProfile | None = None, *,
            budget: StateBudget | None = None,
            yellow_progress: YellowProgressFn | None = None) -> Analysis:
    """Run the whole pipeline on `track` with the given state key.

    `progress(depth, frontier, states)` reports BFS layers and
    `yellow_progress(rounds, settled)` yellow's rounds; `step(name)` is
    called as each pipeline step starts (for a progress display). `rules` is
    the rule profile every solver uses (default: the grid rules of the track),
    built once here and passed down, so another profile plugs in at this call.
    `budget` bounds the states of every search (`StateLimitReached` past it); below
    it, every figure is the same as without it.
    """
    if profile_of(track) is not GRID:
        raise TypeError(f"a track of the {profile_of(track).name} profile: use racecert.analyze "
                        "(every profile) or racecert.analysis.lattice.pipeline.analyze_lattice")
    rules = rules or VectorRaceRules(track)
    t0 = time.perf_counter()
    timings: dict[str, float] = {}

    def begin(name: str) -> float:
        trim_heap()  # racecert.model.heap: what the last step freed goes back to the system
        if step is not None:
            step(name)
        return time.perf_counter()

    s = begin("yellow")
    yellow = shortest_trajectory(track, mode, length_of=RadicalSum.of_vector,
                                 zero=RadicalSum.zero(), rules=rules, progress=yellow_progress,
                                 budget=budget)
    timings["yellow"] = time.perf_counter() - s
    s = begin("bfs")
    bfs, bound = _bfs_with_bound(track, mode, yellow, progress, rules, budget)
    timings["bfs"] = time.perf_counter() - s
    s = begin("laps")
    aptitude = lap_aptitude(track, rules, budget)
    timings["laps"] = time.perf_counter() - s
    cont = None
    if bfs.reachable:
        s = begin("continuity")
        cont = continuity(track, bfs, aptitude, rules, budget)
        timings["continuity"] = time.perf_counter() - s
    reps = cov = score = None
    if bfs.reachable and bfs.dag is not None:
        s = begin("representatives")
        reps = RepresentativeDP(bfs.dag, track.car.position).select()
        timings["representatives"] = time.perf_counter() - s
        s = begin("coverage")
        cov = red_coverage(track, bfs.dag)
        timings["coverage"] = time.perf_counter() - s
        circuit = aptitude.kind == "circuit"
        if reps is not None and yellow.reachable and cont is not None:
            s = begin("score")
            score = compute_score(
                red=cov.fraction, yellow_moves=yellow.moves, m_star=bfs.m_star,
                green=reps.green.length, blue=reps.blue.length,
                spatial_sep=jaccard_distance(reps.green.trajectory.cells,
                                             reps.blue.trajectory.cells),
                circuit=circuit,
                continuable=cont.percent)
            timings["score"] = time.perf_counter() - s
    return Analysis(track, mode, bfs, yellow, bound, aptitude, cont, reps, cov, score,
                    time.perf_counter() - t0, timings)
