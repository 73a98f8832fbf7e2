"""The layered BFS oracle: m*, the optimal DAG and exact counts (docs/rules.md).

Layer t holds the states first reached after t moves. The first layer whose
expansion produces arriving moves fixes m*; that whole layer is expanded so no
arrival is lost, then a backward pass keeps only the states and moves on some
optimal trajectory, and exact counts are computed on that DAG.

Two keys (docs/rules.md):
- ``exact``: the state includes the opening phase min(t, K); the state graph
  is then time-homogeneous, so the layered BFS is exact.
- ``editor``: the phase is left out of the key (the editor's choice) and the
  opening rule is applied by layer index. A kinematic state first reached in
  an early phase shadows later visits, which can change m* or the counts on
  adversarial tracks; racecert reports both and the certifier arbitrates.

Data layout: a layer is the sorted array of its states' int64 keys
(`StateCodec`), decoded to `StateArrays` in chunks when it is expanded; each chunk's
successor keys go straight into the visited set (`oracle.visited`: compiled tiled
bitmaps, about a bit per state), which marks the new ones and hands them back sorted at
the end of the layer (no sort of the keys). No edges are stored: the
backward pass enumerates the predecessors of each kept state (p = q - v', any
acceleration), finds them in the previous layer and re-expands only those, so the
memory is about 8 bytes per state plus the bitmaps.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numba import njit

from racecert.model.budget import StateBudget, check
from racecert.model.heap import trim_heap
from racecert.model.packed import IndexedStates, PackedStates
from racecert.model.rules import (
    CarState,
    RuleProfile,
    StateArrays,
    VectorRaceRules,
)
from racecert.model.states import StateCodec
from racecert.model.track import Track
from racecert.model.unique import unique_sorted
from racecert.oracle.backward import candidate_sources
from racecert.oracle.counts import (
    ExactCounts,
    count_bound,
    crt_counts,
    last_layer_counts,
    primes_for_bound,
    sum_residues,
)
from racecert.oracle.visited import VisitedSet

Mode = Literal["editor", "exact"]
ProgressFn = Callable[[int, int, int], None]  # (depth, frontier size, states so far)
# A pruner gets (new states of depth `depth`, depth, max_depth) and returns a keep-mask.
# It may only drop states that provably cannot arrive by max_depth (docs/envelopes.md).
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
    final state in `final_states`. `layered_bfs` builds them as int32 (a layer holds
    fewer than 2^31 states; a large DAG has tens of millions of moves); other builders
    (the lattice pipeline's sub-DAGs) may use int64. `arrive_state` row i is the state
    arriving move i ends in; `layered_bfs` keeps it as `IndexedStates` (its final state
    and its own progress and phase: a large open area has tens of millions of arriving
    moves, so ask it for the rows needed, `take`).
    """

    layers: tuple[StateArrays, ...]
    edges: tuple[tuple[np.ndarray, np.ndarray], ...]
    arrive_src: np.ndarray
    arrive_final: np.ndarray
    arrive_state: StateArrays | PackedStates | IndexedStates
    final_states: StateArrays

    @property
    def size(self) -> int:
        """Number of DAG states (excluding final states)."""
        return sum(len(layer) for layer in self.layers)


@dataclass(frozen=True)
class BfsResult:
    """What the oracle found. Counts are exact Python ints.

    `final_counts[i]` is the number of optimal trajectories ending in final state i
    (`dag.final_states` row i), and `arrival_counts[i]` the number whose last move is
    arriving move i of the DAG (`dag.arrive_src[i]`, `dag.arrive_state` row i): each a
    sequence of Python ints, held as one int64 array where they fit (`ExactCounts`).
    """

    mode: Mode
    reachable: bool
    m_star: int | None
    optimal_count: int
    final_counts: ExactCounts
    dag: OptimalDag | None
    states_explored: int
    depth_explored: int
    bounded: bool
    seconds: float
    arrival_counts: ExactCounts = field(default_factory=ExactCounts)

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


CHUNK = 1 << 14  # states expanded per call: keeps numpy's temporaries in cache


def layered_bfs(
    track: Track,
    mode: Mode = "exact",
    *,
    rules: RuleProfile | None = None,
    max_depth: int | None = None,
    initial: CarState | Sequence[CarState] | None = None,
    progress: ProgressFn | None = None,
    prune: PruneFn | None = None,
    accept_arrival: AcceptFn | None = None,
    budget: StateBudget | None = None,
) -> BfsResult:
    """Minimum moves to arrive, the optimal DAG and exact trajectory counts.

    `max_depth` bounds the search (e.g. by the yellow trajectory's moves): a
    bounded search that finds nothing reports `reachable=False, bounded=True`.
    `prune` (used only together with `max_depth`) drops new states that cannot
    arrive within the bound; pruned states still count as visited.
    `accept_arrival` filters arriving moves: m* becomes the first depth with an
    accepted arrival (used for m_cont, the first continuable depth).
    `initial` may be several states (e.g. every start of a lattice track): layer 0 holds
    them all, m* is the least over them, and each one starts one path of the counts.
    `budget` bounds the states explored (checked after each layer: `StateLimitReached`).

    Each layer is kept as its sorted int64 keys only (8 bytes a state) and decoded on
    demand; the visited set is a compiled tiled bitmap (`oracle.visited`); no edges are
    stored: the backward pass recomputes the moves into the optimal DAG from its states.

    >>> from racecert.model.parse import load_track
    >>> r = layered_bfs(load_track("tracks/tiny_straight.toml"))  # doctest: +SKIP
    >>> r.m_star, r.optimal_count  # doctest: +SKIP
    (3, 1)
    """
    t0 = time.perf_counter()
    rules = rules or VectorRaceRules(track)
    k = rules.phase_limit
    codec = StateCodec(track.width, track.height, k + 1, keep_phase=(mode == "exact"))
    first = StateArrays.of(_initial_states(initial, rules))
    first = first.take(np.unique(codec.encode(first), return_index=True)[1])  # key order
    keys_by_layer = [codec.encode(first)]
    visited = VisitedSet(track.width * track.height)
    branching = len(rules.accelerations)  # moves per state at most
    succ_keys = np.empty(branching * CHUNK, dtype=np.int64)
    visited.add(keys_by_layer[0])
    visited.take_fresh()
    total = len(first)
    depth = 0
    while True:
        if max_depth is not None and depth >= max_depth:
            return _unreachable(mode, total, depth, True, t0)
        frontier = keys_by_layer[-1]
        arrivals: list[tuple[np.ndarray, PackedStates]] = []
        for lo in range(0, len(frontier), CHUNK):
            batch = _batch(codec, frontier, lo, min(lo + CHUNK, len(frontier)), depth,
                           first, k, mode)
            if len(succ_keys) < branching * len(batch):
                succ_keys = np.empty(branching * len(batch), dtype=np.int64)
            n_succ, a_src, a_state = _successor_keys(rules, codec, batch, succ_keys)
            if len(a_src):
                if accept_arrival is not None:
                    ok = accept_arrival(a_state)
                    a_src, a_state = a_src[ok], a_state.take(ok)
                if len(a_src):  # int32: a layer holds fewer than 2^31 states
                    arrivals.append(((a_src + lo).astype(np.int32), PackedStates.pack(a_state)))
            if not arrivals:
                visited.add(succ_keys[:n_succ])
        if arrivals:
            # the backward pass reads the layers' keys only
            del visited
            trim_heap()  # the visited set's pages back to the system (`model.heap`)
            dag, counts, per_arrival = _finish(codec, rules, keys_by_layer, arrivals,
                                               depth + 1, first, k, mode)
            return BfsResult(mode, True, depth + 1, counts.total(), counts, dag, total,
                             depth + 1, False, time.perf_counter() - t0, per_arrival)
        keys = visited.take_fresh()  # the new states, sorted
        if prune is not None and max_depth is not None:
            mask = prune(_layer_states(codec, keys, depth + 1, k, mode), depth + 1, max_depth)
            if not mask.all():
                keys = keys[mask]
        keys_by_layer.append(keys)
        total += len(keys)
        depth += 1
        check(budget, total, "BFS", f"at depth {depth}")
        if progress is not None:
            progress(depth, len(keys), total)
        if len(keys) == 0:
            # With pruning against a bound, an empty frontier only says "not within the bound".
            pruned = prune is not None and max_depth is not None
            return _unreachable(mode, total, depth, pruned, t0)


def _initial_states(initial: CarState | Sequence[CarState] | None, rules: RuleProfile
                    ) -> list[CarState]:
    """Layer 0: one initial state, or several (each a source with one path, e.g. every
    start position of a lattice track; the caller orders them by key, without repeats)."""
    if initial is None:
        return [rules.initial_state()]
    if isinstance(initial, CarState):
        return [initial]
    if not initial:
        raise ValueError("no initial state")
    return list(initial)


def _layer_states(codec: StateCodec, keys: np.ndarray, depth: int, k: int,
                  mode: Mode) -> StateArrays:
    """Decode keys of layer `depth` (> 0); the editor key has no phase: it is min(depth, K)."""
    s = codec.decode(keys)
    if mode == "editor" and k:
        s = StateArrays(*s.fields()[:6], np.full(len(keys), min(depth, k), dtype=np.int32))
    return s


def _unreachable(mode: Mode, total: int, depth: int, bounded: bool, t0: float) -> BfsResult:
    return BfsResult(mode, False, None, 0, ExactCounts(), None, total, depth, bounded,
                     time.perf_counter() - t0)


def _batch(codec: StateCodec, keys: np.ndarray, lo: int, hi: int, depth: int,
           first: StateArrays, k: int, mode: Mode, idx: np.ndarray | None = None
           ) -> StateArrays:
    """States `lo:hi` of layer `depth` (or the rows `idx` of it), ready to expand.

    Layer 0 is the initial states as given; under the editor key with an opening rule
    its phase is 0 (later layers get min(depth, K) from `_layer_states`).
    """
    if depth == 0:
        batch = first.take(np.arange(lo, hi) if idx is None else idx)
        if mode == "editor" and k:
            batch = StateArrays(*batch.fields()[:6], np.zeros(len(batch), dtype=np.int32))
        return batch
    return _layer_states(codec, keys[lo:hi] if idx is None else keys[idx], depth, k, mode)


def _successor_keys(rules: RuleProfile, codec: StateCodec, batch: StateArrays,
                    out: np.ndarray) -> tuple[int, np.ndarray, StateArrays]:
    """The successors of `batch` as keys in `out` (how many), and its arrivals: the
    profile's compiled `expand_keys` where it has one, else its `expand`, encoded."""
    expand_keys = getattr(rules, "expand_keys", None)
    if expand_keys is not None:
        return expand_keys(batch, codec.keep_phase, out)
    exp = rules.expand(batch)
    n = len(exp.src)
    out[:n] = codec.encode(exp.succ)
    return n, exp.arrive_src, exp.arrive_state


def _moves_into(codec: StateCodec, rules: RuleProfile, keys: list[np.ndarray], t: int,
                dst: np.ndarray, first: StateArrays, k: int, mode: Mode
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every move from layer t into the states `dst` (sorted indices) of layer t + 1.

    The candidate sources are the predecessors of those states found in layer t
    (`oracle.backward`: a compiled ordered walk of the layer's sorted keys); they
    are expanded by the rules (so a move is exactly a legal, non-arriving move) and
    their successors matched against `dst`. Returns the sources (sorted indices into
    layer t) and the moves as (position in the sources, position in `dst`), ordered by
    (dst, src): the order in which the forward pass met them.
    """
    layer, nxt = keys[t], keys[t + 1]
    dst_keys = nxt[dst]
    cand = candidate_sources(layer, dst_keys, codec, k, rules.accelerations)
    src_out, dst_out = [], []
    for lo in range(0, len(cand), CHUNK):
        idx = cand[lo: lo + CHUNK]
        exp = rules.expand(_batch(codec, layer, 0, 0, t, first, k, mode, idx=idx))
        succ = codec.encode(exp.succ)
        j = np.searchsorted(dst_keys, succ)
        j[j == len(dst_keys)] = 0
        hit = np.flatnonzero(dst_keys[j] == succ)
        src_out.append(exp.src[hit] + lo)  # positions in `cand`
        dst_out.append(j[hit])
    z = np.zeros(0, dtype=np.int64)
    src_all = np.concatenate(src_out) if src_out else z
    dst_all = np.concatenate(dst_out) if dst_out else z
    used = np.zeros(len(cand), dtype=bool)
    used[src_all] = True
    rank = np.cumsum(used) - 1  # position of a used candidate among the sources
    order = np.argsort(dst_all, kind="stable")  # the sources already ascend
    return cand[used], rank[src_all[order]], dst_all[order]


def _runs(idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of the ascending `idx`, and the position of each entry among
    them (int32: a pass over `idx`, no search)."""
    if len(idx) and np.any(idx[1:] < idx[:-1]):
        raise ValueError("the profile's arrivals must come state-major (`Expansion`)")
    start = np.ones(len(idx), dtype=bool)
    start[1:] = idx[1:] != idx[:-1]
    return idx[start], np.cumsum(start, dtype=np.int32) - 1


def _final_states(codec: StateCodec, a_state: PackedStates
                  ) -> tuple[np.ndarray, np.ndarray, StateArrays]:
    """The distinct final states of the arrivals (kinematic key order), the index of each
    arrival's among them (int32) and its first arrival's full state.

    What `np.unique(keys, return_index=True, return_inverse=True)` gives, in about a third
    of its memory (it sorts an index array and builds two more as long as the arrivals: a
    large open area has tens of millions): the keys are computed and their indices
    looked up `CHUNK_ARRIVALS` arrivals at a time, and the first arrival per state is
    found by one compiled pass.
    """
    n = len(a_state)
    vx, vy = a_state.columns[2:4]
    span = (max(codec.width - 1, -int(vx.min(initial=0)), int(vx.max(initial=0))),
            max(codec.height - 1, -int(vy.min(initial=0)), int(vy.max(initial=0))))
    parts = range(0, n, CHUNK_ARRIVALS)
    fkeys = np.concatenate([codec.kinematic(a_state.take(slice(lo, lo + CHUNK_ARRIVALS)),
                                            span) for lo in parts] or [np.zeros(0, np.int64)])
    ukeys = unique_sorted(fkeys)
    final_idx = np.empty(n, dtype=np.int32)
    for lo in parts:
        final_idx[lo: lo + CHUNK_ARRIVALS] = np.searchsorted(ukeys, fkeys[lo: lo + CHUNK_ARRIVALS])
    first = np.full(len(ukeys), -1, dtype=np.int64)
    _first_rows(final_idx, first)
    return ukeys, final_idx, a_state.take(first)


@njit(cache=True, nogil=True)
def _first_rows(group, first):
    """first[g] = the first row i with group[i] == g (first[g] < 0 on entry)."""
    for i in range(len(group)):
        if first[group[i]] < 0:
            first[group[i]] = i


CHUNK_ARRIVALS = 1 << 20
"""Arrivals keyed and looked up at a time when their final states are found."""


def _finish(codec: StateCodec, rules: RuleProfile, keys: list[np.ndarray],
            arrivals: list[tuple[np.ndarray, PackedStates]], m_star: int, first: StateArrays,
            k: int, mode: Mode) -> tuple[OptimalDag, ExactCounts, ExactCounts]:
    """The optimal DAG by a backward pass that recomputes its moves, then exact counts.

    `arrivals` (the forward pass's batches of arriving moves: sources, states) is emptied
    once they are joined, so that no second copy of them stays alive."""
    last = m_star - 1
    a_src = np.concatenate([a for a, _ in arrivals])
    a_state = PackedStates.concat([s for _, s in arrivals])
    arrivals.clear()
    # the arrivals come in the forward pass's order: their sources ascend
    kept_last, arrive_src = _runs(a_src)
    del a_src
    kept = [kept_last]  # sorted kept indices, from t = last down
    moves: list[tuple[np.ndarray, np.ndarray]] = []
    for t in range(last - 1, -1, -1):
        sources, src, dst = _moves_into(codec, rules, keys, t, kept[-1], first, k, mode)
        # int32: a layer holds < 2^31 states, and a large DAG has tens of millions of moves
        moves.append((src.astype(np.int32), dst.astype(np.int32)))
        kept.append(sources)
    kept.reverse()
    moves.reverse()
    layers = tuple(_batch(codec, keys[t], 0, 0, t, first, k, mode, idx=kept[t])
                   if t else first.take(kept[0]) for t in range(last + 1))
    dag_edges = tuple(moves)
    ukeys, final_idx, finals = _final_states(codec, a_state)
    # an arrival's state is its final state's (the same kinematic key) with its own
    # progress and phase
    arrived = IndexedStates(finals, final_idx, *a_state.columns[5:])
    del a_state
    sizes = [len(layer) for layer in layers]
    primes = primes_for_bound(count_bound(sizes, dag_edges))  # layer 0: one path each
    residues = last_layer_counts(sizes, dag_edges, primes)
    # an arriving move is one move from its source: as many trajectories end with it as
    # reach its source, so the CRT runs once per last-layer state, not once per arrival
    counts = sum_residues(residues, final_idx, len(ukeys), primes, rows_of=arrive_src)
    dag = OptimalDag(layers, dag_edges, arrive_src, final_idx, arrived, finals)
    return dag, counts, crt_counts(residues, primes).take(arrive_src)
