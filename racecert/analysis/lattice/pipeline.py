"""The analysis of a lattice track (docs/report.md, "Lattice tracks").

1. BFS: `layered_bfs` with the `LatticeRules` profile, from the configured start or,
   with `best_start`, from every start at once (layer 0 holds them all, so m* is the
   least over the starts and the optimal DAG keeps exactly the starts that reach it);
2. per optimal start: its part of the DAG (the states reachable from it), its exact
   count and final states, its green and blue trajectories (`RepresentativeDP`);
3. green / blue over every optimal start: the least / greatest exact length, the ties
   summed over the starts that reach it.

The grid profile's other pieces do not apply as such and are skipped, each with its
reason in `SKIPPED` (and in the JSON report): the yellow trajectory and the envelope
bound (they read the grid's lines and cells), lap aptitude, continuity and m_cont
(they are defined by the grid's start and finish lines), red coverage (cells; the
picture draws the optimal DAG's moves instead) and the score (built on those).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from racecert.analysis.base import BaseAnalysis
from racecert.analysis.representatives import Extreme, RepresentativeDP, Representatives
from racecert.model.budget import StateBudget
from racecert.model.cellpath.track import CellPathTrack
from racecert.model.lattice.rules import LatticeLimitError, LatticeRules
from racecert.model.lattice.track import LatticeTrack, Point
from racecert.model.profiles import acceleration_set_name, profile_of
from racecert.model.radicals import RadicalSum
from racecert.oracle.bfs import BfsResult, OptimalDag, ProgressFn, layered_bfs
from racecert.oracle.counts import last_layer_counts, primes_for_bound, sum_residues

STEPS = ("bfs", "representatives")
"""The pipeline's steps, in the order `analyze_lattice` announces them to `step`."""
MAX_STATES = 30_000_000
"""States the lattice BFS may hold (some 1.5 GB of keys and edges) before it stops."""
SKIPPED: dict[str, str] = {
    "yellow": "the least-length search reads the grid's start and finish lines",
    "bound": "no yellow bound: the BFS runs unbounded (no envelope pruning)",
    "kind": "lap aptitude (stage or circuit) is defined by the grid's start and finish lines",
    "continuity": "continuity into another lap and m_cont are defined by the grid's lines",
    "coverage": "red coverage counts grid cells; the picture draws the optimal moves instead",
    "score": "the design score is built on yellow, coverage and continuity",
}


@dataclass(frozen=True)
class StartResult:
    """One start that reaches the finish in m* moves: its trajectories' figures."""

    position: Point  # local
    optimal_count: int
    final_states: int
    representatives: Representatives


@dataclass(frozen=True)
class LatticeAnalysis(BaseAnalysis):
    """Every figure of the analysis of one lattice or cell-path track: the start-list
    profiles' `BaseAnalysis` (its picture and notebook view come from there, drawn by
    their `racecert.analysis.profiles` entries)."""

    track: LatticeTrack
    best_start: bool
    bfs: BfsResult
    starts: tuple[StartResult, ...] = ()
    green: Extreme | None = None
    blue: Extreme | None = None
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)

    mode = "exact"

    def __repr__(self) -> str:
        b = self.bfs
        figures = (f"m_star={b.m_star}, optimal_count={b.optimal_count}" if b.reachable
                   else "reachable=False")
        return (f"LatticeAnalysis({self.track.name!r}, best_start={self.best_start}, "
                f"{figures})")

    @property
    def considered(self) -> tuple[Point, ...]:
        """The start positions searched from (local)."""
        return self.track.starts if self.best_start else (self.track.start,)

    def to_json(self) -> dict[str, Any]:
        """The JSON report (docs/report.md, "Lattice tracks"); file coordinates."""
        t, b = self.track, self.bfs
        out: dict[str, Any] = {
            "track": t.name,
            "sha256": t.sha256,
            "rules": profile_of(t).name,
            "accelerations": acceleration_set_name(t),
            "speed_cap": t.speed_cap if isinstance(t, CellPathTrack) else None,
            "mode": self.mode,
            "best_start": self.best_start,
            "starts_considered": [list(t.to_file(p)) for p in self.considered],
            "reachable": b.reachable,
            "m_star": b.m_star,
            "optimal_count": str(b.optimal_count),
            "final_states": b.final_states,
            "optimal_starts": [{"position": list(t.to_file(s.position)),
                                "optimal_count": str(s.optimal_count),
                                "final_states": s.final_states} for s in self.starts],
            "states_explored": b.states_explored,
            "seconds": round(self.seconds, 4),
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "green": None,
            "blue": None,
            "skipped": dict(SKIPPED),
        }
        for name, ext in (("green", self.green), ("blue", self.blue)):
            if ext is not None:
                out[name] = {**ext.trajectory.to_json(), "length_exact": str(ext.length),
                             "ties": str(ext.ties)}
        return out


def source_dag(dag: OptimalDag, source: int) -> OptimalDag:
    """The part of a DAG with several layer-0 states reachable from layer-0 state `source`.

    Every state of an optimal DAG lies at its first-reach depth from *every* source that
    reaches it optimally (a shorter path from another source would give a smaller m*),
    so this restriction is exactly the optimal DAG of `source` alone.
    """
    reach = [np.zeros(len(layer), dtype=bool) for layer in dag.layers]
    reach[0][source] = True
    for t, (src, dst) in enumerate(dag.edges):
        reach[t + 1][dst[reach[t][src]]] = True
    remap = []
    for r in reach:
        m = np.full(len(r), -1, dtype=np.int64)
        m[r] = np.arange(int(r.sum()))
        remap.append(m)
    layers = tuple(layer.take(np.flatnonzero(r)) for layer, r in zip(dag.layers, reach,
                                                                       strict=True))
    edges = []
    for t, (src, dst) in enumerate(dag.edges):
        keep = reach[t][src]
        edges.append((remap[t][src[keep]], remap[t + 1][dst[keep]]))
    last = len(dag.layers) - 1
    arr = np.flatnonzero(reach[last][dag.arrive_src])
    finals_used, final_idx = np.unique(dag.arrive_final[arr], return_inverse=True)
    return OptimalDag(layers, tuple(edges), remap[last][dag.arrive_src[arr]],
                      final_idx.astype(np.int64), dag.arrive_state.take(arr),
                      dag.final_states.take(finals_used))


def _counts(dag: OptimalDag, m_star: int, branching: int) -> tuple[int, int]:
    """(optimal trajectories, distinct final states) of a one-source DAG, exactly
    (`branching`: the most moves from one state)."""
    primes = primes_for_bound(branching**m_star)
    residues = last_layer_counts([len(layer) for layer in dag.layers], dag.edges, primes)
    per_final = sum_residues(residues, dag.arrive_final, len(dag.final_states), primes,
                             rows_of=dag.arrive_src)
    return sum(per_final), len(per_final)


def _extreme(parts: list[tuple[int, Extreme]], least: bool) -> Extreme:
    """The least (greatest) length over the starts; ties summed; the first start's
    representative among those that reach it (file order)."""
    best: RadicalSum | None = None
    for _, e in parts:
        if best is None or (e.length < best if least else e.length > best):
            best = e.length
    winners = [(i, e) for i, e in parts if e.length == best]
    _, first = min(winners, key=lambda w: w[0])
    return Extreme(first.length, sum(e.ties for _, e in winners), first.trajectory)


def _bounded(progress: ProgressFn | None, max_states: int) -> ProgressFn:
    """A BFS progress callback that stops the search once it holds `max_states` states."""
    def update(depth: int, frontier: int, total: int) -> None:
        if total > max_states:
            raise LatticeLimitError(f"the search holds {total:,} states after {depth} moves, "
                                    f"more than the limit of {max_states:,}")
        if progress is not None:
            progress(depth, frontier, total)
    return update


def analyze_lattice(track: LatticeTrack, best_start: bool = False,
                    progress: ProgressFn | None = None,
                    rules: LatticeRules | None = None,
                    max_states: int | None = None,
                    budget: StateBudget | None = None,
                    step: Callable[[str], None] | None = None) -> LatticeAnalysis:
    """Run the lattice pipeline: m*, exact counts, the optimal starts, green and blue.

    The BFS stops with `LatticeLimitError` (one line; exit status 4 on the command line)
    once it holds more than `max_states` states (default `MAX_STATES`), and with
    `StateLimitReached` past `budget` (`--max-states`, as on grid tracks), both checked
    after each layer. `step(name)` is called as each of `STEPS` starts (for a progress
    display).
    """
    rules = rules or profile_of(track).rules(track)
    t0 = time.perf_counter()
    if step is not None:
        step("bfs")
    initial = rules.start_states() if best_start else [rules.initial_state()]
    bfs = layered_bfs(track, "exact", rules=rules, initial=initial,  # type: ignore[arg-type]
                      progress=_bounded(progress, max_states or MAX_STATES), budget=budget)
    timings = {"bfs": time.perf_counter() - t0}
    if not bfs.reachable or bfs.dag is None or bfs.m_star is None:
        return LatticeAnalysis(track, best_start, bfs, seconds=time.perf_counter() - t0,
                               timings=timings)
    if step is not None:
        step("representatives")
    s = time.perf_counter()
    order = {p: i for i, p in enumerate(track.starts)}
    layer0 = bfs.dag.layers[0]
    results: list[tuple[int, StartResult]] = []
    for i in range(len(layer0)):
        sub = source_dag(bfs.dag, i)
        pos = (int(layer0.x[i]), int(layer0.y[i]))
        count, finals = _counts(sub, bfs.m_star, len(rules.accelerations))
        reps = RepresentativeDP(sub, track.to_file(pos)).select()
        assert reps is not None
        results.append((order[pos], StartResult(pos, count, finals, reps)))
    results.sort(key=lambda r: r[0])
    if sum(r.optimal_count for _, r in results) != bfs.optimal_count:
        raise AssertionError("per-start counts do not add up to the BFS count")
    green = _extreme([(i, r.representatives.green) for i, r in results], least=True)
    blue = _extreme([(i, r.representatives.blue) for i, r in results], least=False)
    timings["representatives"] = time.perf_counter() - s
    return LatticeAnalysis(track, best_start, bfs, tuple(r for _, r in results), green, blue,
                           time.perf_counter() - t0, timings)
