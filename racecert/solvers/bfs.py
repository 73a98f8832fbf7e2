"""The layered BFS oracle: m*, the optimal DAG and exact counts (SPEC §3-§5).

Layer t holds the states first reached after t moves. The first layer whose
expansion produces arriving moves fixes m*; that whole layer is expanded so no
arrival is lost, then a backward pass keeps only the states and moves on some
optimal trajectory, and exact counts are computed on that DAG.

Two keys (SPEC §4):
- ``exact``: the state includes the opening phase min(t, K); the state graph
  is then time-homogeneous, so the layered BFS is exact.
- ``editor``: the phase is left out of the key (the editor's choice) and the
  opening rule is applied by layer index. A kinematic state first reached in
  an early phase shadows later visits, which can change m* or the counts on
  adversarial tracks; racecert reports both and the certifier arbitrates.

Data layout: states are int64 keys (`StateCodec`) handled a whole layer at a
time with numpy; the visited set is one sorted array merged per layer.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from racecert.model.rules import (
    CarState,
    Expansion,
    RuleProfile,
    StateArrays,
    VectorRaceRules,
)
from racecert.model.states import StateCodec
from racecert.model.track import Track
from racecert.solvers.counts import crt, layered_counts, primes_for_bound, sum_residues

Mode = Literal["editor", "exact"]
ProgressFn = Callable[[int, int, int], None]  # (depth, frontier size, states so far)
# A pruner gets (new states of depth `depth`, depth, max_depth) and returns a keep-mask.
# It may only drop states that provably cannot arrive by max_depth (SPEC §5 envelopes).
PruneFn = Callable[[StateArrays, int, int], np.ndarray]
# An arrival filter gets the arrived states of one expansion and returns which count as
# arrivals (e.g. only continuable ones, for m_cont); rejected arrivals end there.
AcceptFn = Callable[[StateArrays], np.ndarray]


@dataclass(frozen=True)
class OptimalDag:
    """States and moves on some optimal trajectory, layer by layer.

    `layers[t]` are the DAG states after t moves (t = 0..m*-1; layer 0 is the
    initial state). `edges[t] = (src, dst)` index moves from `layers[t]` to
    `layers[t+1]`. The arriving moves leave `layers[m*-1]`: `arrive_src[i]` is
    the source index of arriving move i and `arrive_final[i]` the index of its
    final state in `final_states`.
    """

    layers: tuple[StateArrays, ...]
    edges: tuple[tuple[np.ndarray, np.ndarray], ...]
    arrive_src: np.ndarray
    arrive_final: np.ndarray
    arrive_state: StateArrays
    final_states: StateArrays

    @property
    def size(self) -> int:
        """Number of DAG states (excluding final states)."""
        return sum(len(layer) for layer in self.layers)


@dataclass(frozen=True)
class BfsResult:
    """What the oracle found. Counts are exact Python ints.

    `arrival_counts[i]` is the number of optimal trajectories whose last move is
    arriving move i of the DAG (`dag.arrive_src[i]`, `dag.arrive_state` row i).
    """

    mode: Mode
    reachable: bool
    m_star: int | None
    optimal_count: int
    final_counts: tuple[int, ...]
    dag: OptimalDag | None
    states_explored: int
    depth_explored: int
    bounded: bool
    seconds: float
    arrival_counts: tuple[int, ...] = ()

    @property
    def final_states(self) -> int:
        """Number of distinct final kinematic states (q, v', layer)."""
        return len(self.final_counts)

    def final_state_list(self) -> list[tuple[tuple[int, int, int, int, int], int]]:
        """[(final state (x, y, vx, vy, layer), number of optimal trajectories ending there)]."""
        if self.dag is None:
            return []
        f = self.dag.final_states
        return [(f.state(i).kinematic, c) for i, c in enumerate(self.final_counts)]


def _merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Union of two sorted, disjoint key arrays (timsort merges the two runs)."""
    return np.sort(np.concatenate((a, b)), kind="stable")


def layered_bfs(
    track: Track,
    mode: Mode = "exact",
    *,
    rules: RuleProfile | None = None,
    max_depth: int | None = None,
    initial: CarState | None = None,
    progress: ProgressFn | None = None,
    prune: PruneFn | None = None,
    accept_arrival: AcceptFn | None = None,
) -> BfsResult:
    """Minimum moves to arrive, the optimal DAG and exact trajectory counts.

    `max_depth` bounds the search (e.g. by the yellow trajectory's moves): a
    bounded search that finds nothing reports `reachable=False, bounded=True`.
    `prune` (used only together with `max_depth`) drops new states that cannot
    arrive within the bound; pruned states still count as visited.
    `accept_arrival` filters arriving moves: m* becomes the first depth with an
    accepted arrival (used for m_cont, the first continuable depth).

    >>> from racecert.model.parse import load_track
    >>> r = layered_bfs(load_track("tracks/tiny_straight.toml"))  # doctest: +SKIP
    >>> r.m_star, r.optimal_count  # doctest: +SKIP
    (3, 1)
    """
    t0 = time.perf_counter()
    rules = rules or VectorRaceRules(track)
    k = rules.phase_limit
    codec = StateCodec(track.width, track.height, k + 1, keep_phase=(mode == "exact"))
    start = initial or rules.initial_state()
    frontier = StateArrays.of([start])
    keys_by_layer = [codec.encode(frontier)]
    states_by_layer = [frontier]
    visited = keys_by_layer[0].copy()
    edges: list[tuple[np.ndarray, np.ndarray]] = []
    total = 1
    depth = 0
    while True:
        if max_depth is not None and depth >= max_depth:
            return _unreachable(mode, total, depth, True, t0)
        batch = frontier
        if mode == "editor" and k:
            batch = StateArrays(*frontier.fields()[:6],
                                np.full(len(frontier), min(depth, k), dtype=np.int32))
        exp = rules.expand(batch)
        if accept_arrival is not None and len(exp.arrive_src):
            ok = accept_arrival(exp.arrive_state)
            exp = Expansion(exp.src, exp.succ, exp.arrive_src[ok], exp.arrive_state.take(ok))
        if len(exp.arrive_src):
            dag, counts, per_arrival = _finish(codec, states_by_layer, edges, exp, depth + 1)
            return BfsResult(mode, True, depth + 1, sum(counts), tuple(counts), dag, total,
                             depth + 1, False, time.perf_counter() - t0, per_arrival)
        succ_keys = codec.encode(exp.succ)
        uniq, first, inverse = np.unique(succ_keys, return_index=True, return_inverse=True)
        pos = np.searchsorted(visited, uniq)
        pos[pos == len(visited)] = 0
        new = visited[pos] != uniq if len(visited) else np.ones(len(uniq), dtype=bool)
        new_index = np.full(len(uniq), -1, dtype=np.int64)
        new_index[new] = np.arange(int(new.sum()))
        dst = new_index[inverse]
        live = dst >= 0
        edges.append((exp.src[live], dst[live]))
        frontier = exp.succ.take(first[new])
        keys = uniq[new]
        visited = _merge_sorted(visited, keys)
        if prune is not None and max_depth is not None:
            mask = prune(frontier, depth + 1, max_depth)
            if not mask.all():
                kept_index = np.full(len(keys), -1, dtype=np.int64)
                kept_index[mask] = np.arange(int(mask.sum()))
                src, d = edges[-1]
                d2 = kept_index[d]
                edges[-1] = (src[d2 >= 0], d2[d2 >= 0])
                frontier, keys = frontier.take(mask), keys[mask]
        keys_by_layer.append(keys)
        states_by_layer.append(frontier)
        total += len(keys)
        depth += 1
        if progress is not None:
            progress(depth, len(keys), total)
        if len(keys) == 0:
            return _unreachable(mode, total, depth, False, t0)


def _unreachable(mode: Mode, total: int, depth: int, bounded: bool, t0: float) -> BfsResult:
    return BfsResult(mode, False, None, 0, (), None, total, depth, bounded,
                     time.perf_counter() - t0)


def _finish(codec: StateCodec, states: list[StateArrays],
            edges: list[tuple[np.ndarray, np.ndarray]], exp, m_star: int
            ) -> tuple[OptimalDag, list[int], tuple[int, ...]]:
    """Prune to the optimal DAG (backward pass), then count exactly (forward pass)."""
    last = m_star - 1
    keep = [np.zeros(len(s), dtype=bool) for s in states[: last + 1]]
    keep[last][exp.arrive_src] = True
    for t in range(last - 1, -1, -1):
        src, dst = edges[t]
        keep[t][src[keep[t + 1][dst]]] = True
    remap = []
    for kt in keep:
        r = np.full(len(kt), -1, dtype=np.int64)
        r[kt] = np.arange(int(kt.sum()))
        remap.append(r)
    layers = tuple(states[t].take(keep[t]) for t in range(last + 1))
    dag_edges = []
    for t in range(last):
        src, dst = edges[t]
        m = keep[t][src] & keep[t + 1][dst]
        dag_edges.append((remap[t][src[m]], remap[t + 1][dst[m]]))
    arrive_src = remap[last][exp.arrive_src]
    fkeys = codec.kinematic(exp.arrive_state)
    ukeys, first, final_idx = np.unique(fkeys, return_index=True, return_inverse=True)
    finals = exp.arrive_state.take(first)
    primes = primes_for_bound(9**m_star)
    residues = layered_counts([len(layer) for layer in layers], dag_edges, primes)
    counts = sum_residues(residues[last][arrive_src], final_idx, len(ukeys), primes)
    dag = OptimalDag(layers, tuple(dag_edges), arrive_src, final_idx, exp.arrive_state, finals)
    rows = residues[last][arrive_src]
    per_arrival = tuple(crt([int(r) for r in row], primes) for row in rows)
    return dag, counts, per_arrival
