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
(`StateCodec`), decoded to `StateArrays` in chunks when it is expanded; the
successor keys of a whole layer are deduplicated by one sort, checked against
the visited set (one sorted array, merged per layer) and turned into int32 edges.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from racecert.model.budget import StateBudget, check
from racecert.model.rules import (
    CarState,
    RuleProfile,
    StateArrays,
    VectorRaceRules,
)
from racecert.model.states import StateCodec
from racecert.model.track import Track
from racecert.oracle.counts import crt_rows, layered_counts, primes_for_bound, sum_residues

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


CHUNK = 1 << 14  # states expanded per call: keeps numpy's temporaries in cache
SLICE = 1 << 17  # sorted successor keys scanned per step
PACK_BITS = 63  # (key << b | index) must fit in this many bits to sort packed


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

    Each layer is kept as its sorted int64 keys only and decoded on demand; the
    edges as int32 (src, dst) pairs.

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
    visited = keys_by_layer[0].copy()
    edges: list[tuple[np.ndarray, np.ndarray]] = []
    # scratch buffers for one layer's successors, reused (fresh memory costs page faults)
    buf_keys = np.empty(0, dtype=np.int64)
    buf_src = np.empty(0, dtype=np.int32)
    total = len(first)
    depth = 0
    while True:
        if max_depth is not None and depth >= max_depth:
            return _unreachable(mode, total, depth, True, t0)
        frontier = keys_by_layer[-1]
        if 9 * len(frontier) >= 2**31:
            raise ValueError(f"layer {depth} has {len(frontier):,} states: its moves do not "
                             "fit the int32 edge arrays")
        # successor keys are packed with their candidate index when that fits (see _new_keys)
        bits = max(1, (9 * len(frontier)).bit_length())
        packing = codec.key_bound.bit_length() + bits <= PACK_BITS
        if len(buf_keys) < 9 * len(frontier):
            size = max(9 * len(frontier), 2 * len(buf_keys))
            buf_keys = buf_src = None  # free the old buffers first
            buf_keys = np.empty(size, dtype=np.int64)
            buf_src = np.empty(size, dtype=np.int32)
        n_succ = 0
        arrivals: list[tuple[np.ndarray, StateArrays]] = []
        for lo in range(0, len(frontier), CHUNK):
            batch = first if depth == 0 else _layer_states(codec, frontier[lo: lo + CHUNK],
                                                           depth, k, mode)
            if depth == 0 and mode == "editor" and k:  # later layers: see _layer_states
                batch = StateArrays(*batch.fields()[:6], np.zeros(len(batch), dtype=np.int32))
            exp = rules.expand(batch)
            if len(exp.arrive_src):
                a_src, a_state = exp.arrive_src, exp.arrive_state
                if accept_arrival is not None:
                    ok = accept_arrival(a_state)
                    a_src, a_state = a_src[ok], a_state.take(ok)
                if len(a_src):
                    arrivals.append((a_src + lo, a_state))
            if not arrivals:
                key = codec.encode(exp.succ)
                end = n_succ + len(key)
                if packing:
                    key <<= bits
                    key |= np.arange(n_succ, end, dtype=np.int64)
                buf_keys[n_succ:end] = key
                np.add(exp.src, lo, out=buf_src[n_succ:end], casting="unsafe")
                n_succ = end
        if arrivals:
            a_src = np.concatenate([a for a, _ in arrivals])
            a_state = StateArrays.concat([s for _, s in arrivals])
            dag, counts, per_arrival = _finish(codec, keys_by_layer, edges, a_src, a_state,
                                               depth + 1, first, k, mode)
            return BfsResult(mode, True, depth + 1, sum(counts), tuple(counts), dag, total,
                             depth + 1, False, time.perf_counter() - t0, per_arrival)
        keys, pos, edge = _new_keys(buf_keys[:n_succ], buf_src[:n_succ], visited,
                                    bits if packing else 0)
        edges.append(edge)
        visited = np.insert(visited, pos, keys)
        if prune is not None and max_depth is not None:
            mask = prune(_layer_states(codec, keys, depth + 1, k, mode), depth + 1, max_depth)
            if not mask.all():
                kept_index = np.full(len(keys), -1, dtype=np.int32)
                kept_index[mask] = np.arange(int(mask.sum()), dtype=np.int32)
                e_src, e_dst = edges[-1]
                d2 = kept_index[e_dst]
                edges[-1] = (e_src[d2 >= 0], d2[d2 >= 0])
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


def _new_keys(succ: np.ndarray, src: np.ndarray, visited: np.ndarray, b: int
              ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Deduplicate one layer's successor keys against themselves and `visited` (sorted).

    Returns (the new keys, sorted; their insertion points in `visited`; the edges
    (src, dst) into the new layer as int32, dst indexing the new keys).

    With b > 0, `succ` holds (key << b | candidate index), packed by the caller where
    it fits in 63 bits: one plain in-place sort (numpy's vectorised quicksort, several
    times faster than an argsort) orders it, so `succ` is scratch. With b = 0 it holds
    plain keys and an argsort is used. The sorted run is then scanned in cache-sized
    slices.
    """
    n = len(succ)
    if n == 0:
        z = np.zeros(0, dtype=np.int32)
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), (z, z)
    packed = None
    if b:
        packed = succ
        packed.sort()
    else:
        order_all = np.argsort(succ)
    mask = (1 << b) - 1
    keys_out: list[np.ndarray] = []
    pos_out: list[np.ndarray] = []
    src_out: list[np.ndarray] = []
    dst_out: list[np.ndarray] = []
    prev = -1  # the last key of the previous slice (keys are >= 0)
    prev_dst = -1  # its index in the new layer, or -1 when it was visited before
    count = 0  # new keys so far
    for lo in range(0, n, SLICE):
        if packed is not None:
            pk = packed[lo: lo + SLICE]
            order, skeys = pk & mask, pk >> b
        else:
            order = order_all[lo: lo + SLICE]
            skeys = succ[order]
        head = np.empty(len(skeys), dtype=bool)
        head[0] = skeys[0] != prev
        np.not_equal(skeys[1:], skeys[:-1], out=head[1:])
        hidx = np.flatnonzero(head)
        uniq = skeys[hidx]
        # search only the part of `visited` within this slice's key range (cache-sized)
        v_lo, v_hi = np.searchsorted(visited, (uniq[0], uniq[-1] + 1)) if len(uniq) else (0, 0)
        near = visited[v_lo:v_hi]
        pos = np.searchsorted(near, uniq)
        found = np.zeros(len(uniq), dtype=bool)
        inside = np.flatnonzero(pos < len(near))
        found[inside] = near[pos[inside]] == uniq[inside]
        pos += v_lo
        new = np.flatnonzero(~found)
        # index in the new layer of each group head (-1: visited before); slot 0 of
        # `head_dst` stands for a group continued from the previous slice
        head_dst = np.full(len(uniq) + 1, -1, dtype=np.int32)
        head_dst[0] = prev_dst
        head_dst[new + 1] = np.arange(count, count + len(new), dtype=np.int32)
        dst = head_dst[np.cumsum(head, dtype=np.int32)]
        live = np.flatnonzero(dst >= 0)
        src_out.append(src[order[live]])
        dst_out.append(dst[live])
        keys_out.append(uniq[new])
        pos_out.append(pos[new])
        count += len(new)
        prev, prev_dst = int(skeys[-1]), int(dst[-1])
    return (np.concatenate(keys_out), np.concatenate(pos_out),
            (np.concatenate(src_out), np.concatenate(dst_out)))


def _unreachable(mode: Mode, total: int, depth: int, bounded: bool, t0: float) -> BfsResult:
    return BfsResult(mode, False, None, 0, (), None, total, depth, bounded,
                     time.perf_counter() - t0)


def _finish(codec: StateCodec, keys: list[np.ndarray],
            edges: list[tuple[np.ndarray, np.ndarray]], a_src: np.ndarray,
            a_state: StateArrays, m_star: int, first: StateArrays, k: int, mode: Mode
            ) -> tuple[OptimalDag, list[int], tuple[int, ...]]:
    """Prune to the optimal DAG (backward pass), then count exactly (forward pass)."""
    last = m_star - 1
    keep = [np.zeros(len(s), dtype=bool) for s in keys[: last + 1]]
    keep[last][a_src] = True
    for t in range(last - 1, -1, -1):
        src, dst = edges[t]
        keep[t][src[keep[t + 1][dst]]] = True
    remap = []
    for kt in keep:
        r = np.full(len(kt), -1, dtype=np.int64)
        r[kt] = np.arange(int(kt.sum()))
        remap.append(r)
    layers = tuple(first.take(keep[0]) if t == 0
                   else _layer_states(codec, keys[t][keep[t]], t, k, mode)
                   for t in range(last + 1))
    dag_edges = []
    for t in range(last):
        src, dst = edges[t]
        m = np.flatnonzero(keep[t][src] & keep[t + 1][dst])
        dag_edges.append((remap[t][src[m]], remap[t + 1][dst[m]]))
    arrive_src = remap[last][a_src]
    fkeys = codec.kinematic(a_state)
    ukeys, first_idx, final_idx = np.unique(fkeys, return_index=True, return_inverse=True)
    finals = a_state.take(first_idx)
    primes = primes_for_bound(len(first) * 9**m_star)  # every layer-0 state is a source
    residues = layered_counts([len(layer) for layer in layers], dag_edges, primes)
    rows = residues[last][arrive_src]
    counts = sum_residues(rows, final_idx, len(ukeys), primes)
    dag = OptimalDag(layers, tuple(dag_edges), arrive_src, final_idx, a_state, finals)
    per_arrival = tuple(crt_rows(rows, primes))
    return dag, counts, per_arrival
