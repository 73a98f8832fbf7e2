"""Lap aptitude and the first continuable arrival, decided on the independent side.

Two questions of docs/continuity.md, answered without the oracle:

- **Can this state make a further arrival?** `Continuations` decides it for many
  states (x, y, vx, vy, layer, progress, phase) at once: a forward exploration of
  the exact state graph from the states not yet settled (moves by
  `racecert.independent.fastgeom`, keys by `racecert.independent.search.StateKey`;
  an arriving move ends a trajectory and is what is looked for), then a backward
  pass over the explored moves marks every state from which an arriving move is
  reachable. Answers are remembered, so later questions stop at settled states.
  The exploration is bounded by a state budget (`ContinuationBudgetExceeded`).
- **The first continuable arrival.** `first_continuable(track, mode, ...)` runs the
  independent layered search (`racecert.independent.search.explore`) with an
  arrival filter that keeps only the arrivals whose arrived state (with its phase,
  min(moves made, K), so the opening rule carries over) can make a further arrival.
  Its first depth with a kept arrival is the least number of moves of a continuable
  arrival: m* when an optimal arrival continues, m_cont when none does.

The kind follows from the second: with the exact key the search is exhaustive
(every (state, phase) is reached; the graph does not depend on time), so
"no continuable arrival at any depth" means no trajectory arrives twice (a
**stage**), and a kept arrival is the first half of a two-lap trajectory (a
**circuit**). With the editor key the same search can come back empty on a
circuit (docs/continuity.md, worked example 5): then `status` is "none" and only
the exact key's result decides the kind.

>>> # r = first_continuable(load_track("tracks/tiny_circuit_nocont.toml"), "exact")
>>> # r.kind, r.depth  ->  ('circuit', 18)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from racecert.independent.fastgeom import OK, FastGeometry
from racecert.independent.search import (
    CHUNK,
    DEFAULT_MAX_STATES,
    Mode,
    ProgressFn,
    StateKey,
    explore,
)
from racecert.independent.unique import distinct_sorted
from racecert.model.track import Track

FirstStatus = Literal["arrived", "none", "budget"]


class ContinuationBudgetExceeded(Exception):
    """The continuation decider would store more states than its budget allows."""


class Continuations:
    """Memoised "can a further arrival be made from this state?" (exact key).

    Call it with aligned int64 arrays x, y, vx, vy, layer, progress, phase; it
    returns a bool mask. `states` counts the settled states (the work spent).
    `progress(waves, states)` (display only) is told after each wave of an exploration
    how many states are settled or being explored.
    """

    def __init__(self, track: Track, max_states: int = DEFAULT_MAX_STATES,
                 progress: ProgressFn | None = None) -> None:
        self.progress = progress
        self.geom = FastGeometry(track)
        self.k = self.geom.k
        self.key = StateKey(track.width, track.height, self.k + 1)
        self.max_states = max_states
        self._keys = np.zeros(0, dtype=np.int64)  # settled keys, sorted
        self._good = np.zeros(0, dtype=bool)

    @property
    def states(self) -> int:
        """States settled so far."""
        return len(self._keys)

    def __call__(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                 layer: np.ndarray, progress: np.ndarray, phase: np.ndarray) -> np.ndarray:
        keys = self.key.encode(*(np.asarray(a, dtype=np.int64)
                                 for a in (x, y, vx, vy, layer, progress, phase)))
        known, _ = self._lookup(keys)
        if not known.all():
            self._settle(distinct_sorted(keys[~known]))
        return self._lookup(keys)[1]

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(settled, settled and good) per key."""
        if len(self._keys) == 0:
            none = np.zeros(len(keys), dtype=bool)
            return none, none.copy()
        pos = np.minimum(np.searchsorted(self._keys, keys), len(self._keys) - 1)
        hit = self._keys[pos] == keys
        return hit, hit & self._good[pos]

    def _moves(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(successor keys, their source keys, keys of states with an arriving move)."""
        succ, srcs, arriving = [], [], []
        for lo in range(0, len(keys), CHUNK):
            part = keys[lo: lo + CHUNK]
            fields = self.key.decode(part)
            m = self.geom.classify(*fields)
            ok = m.code == OK
            arriving.append(part[m.src[ok & m.arrives]])
            go = np.flatnonzero(ok & ~m.arrives)
            phase = np.minimum(fields[6][m.src[go]] + 1, self.k)
            succ.append(self.key.encode(m.x[go], m.y[go], m.vx[go], m.vy[go], m.layer[go],
                                        m.progress[go], phase))
            srcs.append(part[m.src[go]])
        return np.concatenate(succ), np.concatenate(srcs), np.concatenate(arriving)

    def _settle(self, sources: np.ndarray) -> None:
        """Explore forward from `sources` (sorted, unsettled) and settle all it reaches."""
        seen = sources
        frontier = sources
        edge_src: list[np.ndarray] = []
        edge_dst: list[np.ndarray] = []
        seeds: list[np.ndarray] = []
        waves = 0
        while len(frontier):
            succ, src, arriving = self._moves(frontier)
            seeds.append(arriving)
            settled, good = self._lookup(succ)
            seeds.append(src[good])
            succ, src = succ[~settled], src[~settled]
            edge_src.append(src)
            edge_dst.append(succ)
            fresh = distinct_sorted(succ)
            pos = np.searchsorted(seen, fresh)
            inside = pos < len(seen)
            old = np.zeros(len(fresh), dtype=bool)
            old[inside] = seen[pos[inside]] == fresh[inside]
            fresh, pos = fresh[~old], pos[~old]
            if len(self._keys) + len(seen) + len(fresh) > self.max_states:
                raise ContinuationBudgetExceeded(
                    f"continuation state budget of {self.max_states:,} exceeded: "
                    f"{len(self._keys) + len(seen) + len(fresh):,} states would be settled")
            seen = np.insert(seen, pos, fresh)
            frontier = fresh
            waves += 1
            if self.progress is not None:
                self.progress(waves, len(self._keys) + len(seen))
        good = np.zeros(len(seen), dtype=bool)
        good[np.searchsorted(seen, distinct_sorted(np.concatenate(seeds)))] = True
        src_id = np.searchsorted(seen, np.concatenate(edge_src))
        dst_id = np.searchsorted(seen, np.concatenate(edge_dst))
        good = reaches_good(good, src_id, dst_id)
        keys = np.concatenate([self._keys, seen])
        vals = np.concatenate([self._good, good])
        order = np.argsort(keys, kind="stable")
        self._keys, self._good = keys[order], vals[order]


def reaches_good(good: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Every node with a path (moves src -> dst) to a node marked in `good`.

    Backwards from the marked nodes, one wave of predecessors at a time; the moves are
    grouped by destination once (a sort), so each move is looked at once.
    """
    good = good.copy()
    order = np.argsort(dst, kind="stable")
    preds = src[order]
    bounds = np.searchsorted(dst[order], np.arange(len(good) + 1))
    wave = np.flatnonzero(good)
    while len(wave):
        lo, hi = bounds[wave], bounds[wave + 1]
        width = hi - lo
        total = int(width.sum())
        if total == 0:
            break
        offset = np.arange(total) - np.repeat(np.cumsum(width) - width, width)
        found = distinct_sorted(preds[np.repeat(lo, width) + offset])
        wave = found[~good[found]]
        good[wave] = True
    return good


@dataclass(frozen=True)
class FirstContinuable:
    """The least number of moves of a continuable arrival, in one state key.

    `status`: "arrived" (`depth` is that number and `count` the number of trajectories
    of `depth` moves whose arrival continues), "none" (no arrival at any depth
    continues: the search was exhaustive) or "budget" (`message` names the budget).
    `search_states` / `continuation_states` are the work spent by the layered search
    and by the continuation decider.
    """

    mode: Mode
    status: FirstStatus
    depth: int | None
    count: int
    search_states: int
    continuation_states: int
    message: str

    @property
    def kind(self) -> Literal["stage", "circuit"] | None:
        """With the exact key: circuit iff some arrival continues (None on a budget stop)."""
        if self.status == "budget":
            return None
        return "circuit" if self.status == "arrived" else "stage"

    @property
    def work(self) -> str:
        """The deterministic work spent, in states."""
        return (f"{self.search_states:,} first-lap states, "
                f"{self.continuation_states:,} continuation states")


def first_continuable(track: Track, mode: Mode = "exact", *,
                      max_states: int = DEFAULT_MAX_STATES,
                      continuations: Continuations | None = None,
                      progress: ProgressFn | None = None) -> FirstContinuable:
    """The independent layered search in `mode`, keeping only continuable arrivals.

    `continuations` may be shared between calls (its answers are in the exact key,
    whatever the first lap's key); both it and the search are bounded by `max_states`.
    `progress(depth, states)` sees the first-lap search's layers (display only).
    """
    decider = continuations or Continuations(track, max_states)
    try:
        res = explore(track, mode, max_states=max_states, accept=decider, progress=progress)
    except ContinuationBudgetExceeded as exc:
        return FirstContinuable(mode, "budget", None, 0, 0, decider.states, str(exc))
    if res.status == "budget":
        return FirstContinuable(mode, "budget", None, 0, res.states_explored, decider.states,
                                res.message)
    if res.status == "arrived":
        return FirstContinuable(mode, "arrived", res.m_star, res.optimal_count,
                                res.states_explored, decider.states,
                                f"first continuable arrival after {res.m_star} moves "
                                f"({res.optimal_count:,} trajectories)")
    return FirstContinuable(mode, "none", None, 0, res.states_explored, decider.states,
                            f"no arrival continues: all {res.states_explored:,} first-lap "
                            "states explored")
