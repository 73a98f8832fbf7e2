"""A* with the envelope heuristic (experimental; docs/envelopes.md).

Searches the exact state graph (every field in the key, the opening phase
included) from the initial state for one shortest arriving trajectory. The
heuristic is `EnvelopePruner.remaining_lower_bound`: admissible (a relaxation's
first possible crossing of F) and consistent (a move changes it by at most one;
the tests check both on every state of the optimal DAGs), so a state's first
expansion has its optimal depth.

Expansion is batched: all open states with the same (f, g) are expanded
together by the vectorised rules. With a consistent heuristic a successor has
f' >= f, so bucket (f, g) is complete when it is taken; the search ends when
the smallest open f reaches the best arrival found. BFS stays the authority:
A* keeps one trajectory, not the ties the counts need.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from racecert.model.rules import CarState, RuleProfile, StateArrays, VectorRaceRules
from racecert.model.states import StateCodec
from racecert.model.track import Track
from racecert.model.unique import unique_sorted
from racecert.oracle.envelopes import EnvelopePruner


@dataclass(frozen=True)
class AStarResult:
    """One A* run: `moves` is m* (None if nothing arrives), `trajectory` the states from
    the initial one to the arrived one (len = moves + 1)."""

    reachable: bool
    moves: int | None
    states_expanded: int
    seconds: float
    trajectory: tuple[CarState, ...]
    initial_bound: int


def astar(track: Track, pruner: EnvelopePruner | None = None,
          rules: RuleProfile | None = None) -> AStarResult:
    """A shortest arriving trajectory of `track` by A* with the envelope heuristic.

    >>> from racecert.model.parse import load_track
    >>> astar(load_track("tracks/tiny_straight.toml")).moves  # doctest: +SKIP
    3
    """
    t0 = time.perf_counter()
    rules = rules or VectorRaceRules(track)
    pruner = pruner or EnvelopePruner(track)
    codec = StateCodec(track.width, track.height, rules.phase_limit + 1, keep_phase=True)
    start = StateArrays.of([rules.initial_state()])
    h0 = int(pruner.remaining_lower_bound(start)[0])
    start_key = codec.encode(start)
    buckets: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = {
        (h0, 0): [(start_key, np.full(1, -1, dtype=np.int64))]}
    closed = np.zeros(0, dtype=np.int64)
    parent: dict[int, int] = {}
    best: tuple[int, int, CarState] | None = None  # (moves, source key, arrived state)
    expanded = 0
    while buckets:
        f, g = min(buckets)
        if best is not None and f >= best[0]:
            break
        parts = buckets.pop((f, g))
        keys = np.concatenate([k for k, _ in parts])
        pars = np.concatenate([p for _, p in parts])
        uniq, first = np.unique(keys, return_index=True)
        if len(closed):
            pos = np.searchsorted(closed, uniq)
            pos[pos == len(closed)] = 0
            fresh = closed[pos] != uniq
            uniq, first = uniq[fresh], first[fresh]
        if len(uniq) == 0:
            continue
        parent.update(zip(uniq.tolist(), pars[first].tolist(), strict=True))
        closed = np.sort(np.concatenate([closed, uniq]), kind="stable")
        expanded += len(uniq)
        exp = rules.expand(codec.decode(uniq))
        if len(exp.arrive_src) and (best is None or g + 1 < best[0]):
            best = (g + 1, int(uniq[exp.arrive_src[0]]), exp.arrive_state.state(0))
        if len(exp.src) == 0:
            continue
        skeys = codec.encode(exp.succ)
        h = pruner.remaining_lower_bound(exp.succ)
        fs = g + 1 + h
        for fv in unique_sorted(fs):
            m = fs == fv
            buckets.setdefault((int(fv), g + 1), []).append((skeys[m], uniq[exp.src[m]]))
    seconds = time.perf_counter() - t0
    if best is None:
        return AStarResult(False, None, expanded, seconds, (), h0)
    moves, key, arrived = best
    path: list[int] = []
    while key != -1:
        path.append(key)
        key = parent[key]
    states = codec.decode(np.array(path[::-1], dtype=np.int64))
    traj = tuple(states.state(i) for i in range(len(states))) + (arrived,)
    return AStarResult(True, moves, expanded, seconds, traj, h0)
