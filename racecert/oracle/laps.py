"""Lap aptitude (docs/continuity.md): can the car go start → finish → start → finish?

Two steps (docs/continuity.md):

1. A topological precondition (`racecert.model.topology.lap_precondition`):
   from the finish line's exit side the drivable region must lead to a legal
   start crossing (and on to the finish) without crossing a line against its
   direction. It is a relaxation of the car's motion, so failing it proves the
   track is a stage; it is what keeps a spiral stage from counting as a circuit
   through a geometrically possible backtrack.
2. An exhaustive kinematic search: a BFS over (lap, exact state) from the
   initial state. An arriving move of lap 0 yields a lap-1 state (carrying the
   next lap's progress bit, see `racecert.model.rules`); an arriving move of
   lap 1 proves a circuit. The search ends at the first lap-1 arrival or when
   nothing new is reachable.

The module also holds the vectorised explorer the continuity analysis uses
(`explore`, `can_arrive`): a multi-source forward exploration of the exact
state graph, then a backward fixed point over it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from tqdm import tqdm

from racecert.model.budget import StateBudget, check
from racecert.model.rules import RuleProfile, StateArrays, VectorRaceRules
from racecert.model.states import StateCodec
from racecert.model.topology import lap_precondition
from racecert.model.track import Track
from racecert.model.unique import unique_sorted

Kind = Literal["stage", "circuit"]


@dataclass(frozen=True)
class LapAptitude:
    """The computed kind of a track and how it was decided.

    `kinematic` is None when the topological precondition already failed (the
    kinematic search is then not needed: it could not succeed).
    """

    kind: Kind
    topological: bool
    kinematic: bool | None
    states_explored: int


def exact_codec(track: Track, rules: RuleProfile) -> StateCodec:
    """The codec of the exact key (every field, phase included)."""
    return StateCodec(track.width, track.height, rules.phase_limit + 1, keep_phase=True)


def _new_keys(keys: np.ndarray, visited: np.ndarray) -> np.ndarray:
    """Mask of `keys` (sorted, unique) not in the sorted array `visited`."""
    if len(visited) == 0:
        return np.ones(len(keys), dtype=bool)
    pos = np.searchsorted(visited, keys)
    pos[pos == len(visited)] = 0
    return visited[pos] != keys


def _bar(desc: str) -> tqdm:
    # disable=None: no bar unless stderr is a terminal (no \r or escapes in a log)
    return tqdm(desc=desc, unit=" states", delay=2, file=sys.stderr, leave=False, disable=None)


def two_laps_possible(track: Track, rules: RuleProfile | None = None,
                      budget: StateBudget | None = None) -> tuple[bool, int]:
    """Exhaustive BFS over (lap, state) from the initial state (`budget` bounds its states).

    Returns (some trajectory arrives twice, states explored). Keys are exact
    state keys with the lap appended; arrivals of lap 0 become lap-1 states
    with the progress the arriving move left (1 if it crossed S after F).
    """
    rules = rules or VectorRaceRules(track)
    codec = exact_codec(track, rules)
    frontier = StateArrays.of([rules.initial_state()])
    laps = np.zeros(1, dtype=np.int64)
    visited = np.sort(codec.encode(frontier) * 2 + laps)
    total = 1
    depth = 0
    with _bar("laps") as bar:
        while len(frontier):
            exp = rules.expand(frontier)
            if (laps[exp.arrive_src] == 1).any():
                return True, total
            lap0_arr = laps[exp.arrive_src] == 0
            nxt = StateArrays.concat([exp.succ, exp.arrive_state.take(lap0_arr)])
            nlaps = np.concatenate([laps[exp.src], np.ones(int(lap0_arr.sum()), np.int64)])
            keys = codec.encode(nxt) * 2 + nlaps
            uniq, first = np.unique(keys, return_index=True)
            new = _new_keys(uniq, visited)
            pick = first[new]
            frontier, laps = nxt.take(pick), nlaps[pick]
            visited = np.sort(np.concatenate([visited, uniq[new]]), kind="stable")
            total += len(pick)
            depth += 1
            check(budget, total, "lap search", f"at depth {depth}")
            bar.update(len(pick))
    return False, total


def lap_aptitude(track: Track, rules: RuleProfile | None = None,
                 budget: StateBudget | None = None) -> LapAptitude:
    """Stage or circuit, computed (docs/continuity.md); compare with `track.kind` to check a
    declaration. `budget` bounds the kinematic search.

    >>> from racecert.model.parse import load_track
    >>> lap_aptitude(load_track("tracks/tiny_straight.toml")).kind  # doctest: +SKIP
    'stage'
    """
    if not lap_precondition(track):
        return LapAptitude("stage", False, None, 0)
    ok, explored = two_laps_possible(track, rules, budget)
    return LapAptitude("circuit" if ok else "stage", True, ok, explored)


# -- the explorer used by continuity -------------------------------------------------------


@dataclass(frozen=True)
class Exploration:
    """A forward exploration of the exact state graph (arrivals end a trajectory).

    Node i is `states` row i (key `keys[i]`); `src`, `dst` are its moves between
    nodes; `arrives[i]` says node i has an arriving move; `leaf[i]` marks nodes
    that were not expanded because their answer was already known (`leaf_value`).
    """

    states: StateArrays
    keys: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    arrives: np.ndarray
    leaf: np.ndarray
    leaf_value: np.ndarray


LeafFn = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # keys -> (known, value)


def explore(rules: RuleProfile, codec: StateCodec, sources: StateArrays,
            known: LeafFn | None = None, budget: StateBudget | None = None) -> Exploration:
    """Everything reachable from `sources` (deduplicated by exact key), as a graph.

    `known(keys)` may mark states whose "can still arrive" answer is already
    known: they become leaves and are not expanded (memoisation across calls).
    `budget` bounds the states explored (checked after each layer).
    """
    keys0, first0 = np.unique(codec.encode(sources), return_index=True)
    frontier = sources.take(first0)
    frontier_ids = np.arange(len(keys0), dtype=np.int64)
    all_states = [frontier]
    all_keys = [keys0]
    sorted_keys, sorted_ids = keys0.copy(), frontier_ids.copy()
    srcs: list[np.ndarray] = []
    dsts: list[np.ndarray] = []
    arrive_ids: list[np.ndarray] = []
    leaf_ids: list[np.ndarray] = []
    leaf_vals: list[np.ndarray] = []
    n = len(keys0)
    with _bar("continuity") as bar:
        while len(frontier):
            fkeys = all_keys[-1]
            expand = np.ones(len(frontier), dtype=bool)
            if known is not None:
                is_known, value = known(fkeys)
                expand = ~is_known
                leaf_ids.append(frontier_ids[is_known])
                leaf_vals.append(value[is_known])
            batch, batch_ids = frontier.take(expand), frontier_ids[expand]
            exp = rules.expand(batch)
            arrive_ids.append(unique_sorted(batch_ids[exp.arrive_src]))
            skeys = codec.encode(exp.succ)
            uniq, first, inverse = np.unique(skeys, return_index=True, return_inverse=True)
            new = _new_keys(uniq, sorted_keys)
            ids = np.empty(len(uniq), dtype=np.int64)
            ids[new] = n + np.arange(int(new.sum()))
            old = ~new
            if old.any():
                ids[old] = sorted_ids[np.searchsorted(sorted_keys, uniq[old])]
            srcs.append(batch_ids[exp.src])
            dsts.append(ids[inverse.ravel()])
            frontier = exp.succ.take(first[new])
            frontier_ids = ids[new]
            all_states.append(frontier)
            all_keys.append(uniq[new])
            order = np.argsort(np.concatenate([sorted_keys, uniq[new]]), kind="stable")
            sorted_keys = np.concatenate([sorted_keys, uniq[new]])[order]
            sorted_ids = np.concatenate([sorted_ids, frontier_ids])[order]
            n += len(frontier_ids)
            check(budget, n, "continuity exploration", f"at depth {len(all_keys) - 1}")
            bar.update(len(frontier_ids))
    arrives = np.zeros(n, dtype=bool)
    arrives[np.concatenate(arrive_ids)] = True
    leaf = np.zeros(n, dtype=bool)
    leaf_value = np.zeros(n, dtype=bool)
    if leaf_ids:
        li = np.concatenate(leaf_ids)
        leaf[li] = True
        leaf_value[li] = np.concatenate(leaf_vals)
    return Exploration(StateArrays.concat(all_states), np.concatenate(all_keys),
                       np.concatenate(srcs), np.concatenate(dsts), arrives, leaf, leaf_value)


def can_arrive(ex: Exploration) -> np.ndarray:
    """Per explored node: some trajectory from it arrives (backward fixed point).

    Seeds are nodes with an arriving move and leaves known to arrive; the
    answer spreads backwards along moves, each move visited once (CSR by
    destination).
    """
    n = len(ex.keys)
    good = ex.arrives | (ex.leaf & ex.leaf_value)
    order = np.argsort(ex.dst, kind="stable")
    preds = ex.src[order]
    starts = np.searchsorted(ex.dst[order], np.arange(n + 1))
    frontier = np.nonzero(good)[0]
    while len(frontier):
        lo, hi = starts[frontier], starts[frontier + 1]
        cnt = hi - lo
        if cnt.sum() == 0:
            break
        idx = np.repeat(lo - np.cumsum(np.concatenate([[0], cnt[:-1]])), cnt) + np.arange(
            int(cnt.sum()))
        p = unique_sorted(preds[idx])
        p = p[~good[p]]
        good[p] = True
        frontier = p
    return good
