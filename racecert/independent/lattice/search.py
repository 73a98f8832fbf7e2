"""An independent count for lattice tracks: m*, the exact counts per start, the finals.

A layered forward search written apart from the oracle's `layered_bfs`: it uses the
independent geometry (`LatticeGeometry.valid_moves`, `finish_codes`), the track's
acceleration set as the independent side states it (`race_rules.lattice_accels`), its
own state keys (deduplicated with `np.unique` and `np.isin`, not by packed sorting), and counts
with Python integers in object arrays, one column per start, so every count is exact
without residues. Layer t holds the states first reached after t moves from any of
the starts; the first layer with a finishing move fixes m*.

Why one column per start is exact: a state on an optimal trajectory of a start s
(one with the least m* over the starts) is first reached at its depth along that
trajectory, from every start (a shorter way from any start would give a smaller m*),
so s's paths through the layers are all of s's trajectories; a start whose own least
number of moves is larger has no path of m* moves, hence a count of 0.

Bounded: the search stops after `max_states` states (a deterministic work unit) and
says so (`complete` False); a net lap count beyond ±`NET_RANGE` stops it the same way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from racecert.independent.lattice.geometry import LatticeGeometry
from racecert.independent.race_rules import lattice_accels
from racecert.independent.radical_forms import Sum, add, approx, compare, length
from racecert.model.lattice.track import LatticeTrack, Point

NET_RANGE = 128


@dataclass(frozen=True)
class SearchResult:
    """What the independent search found.

    `counts[i]`: the trajectories of m* moves from `starts[i]` (0 for a start that needs
    more); `finals`: (x, y, vx, vy) local -> trajectories ending there (all starts).
    `shortest` / `longest`: the least / greatest exact length of those trajectories with
    the number of them that have it (computed when asked for: `extremes=True`).
    """

    starts: tuple[Point, ...]
    complete: bool
    reason: str
    m_star: int | None
    counts: tuple[int, ...]
    finals: dict[tuple[int, int, int, int], int]
    states: int
    seconds: float
    shortest: tuple[Sum, int] | None = None
    longest: tuple[Sum, int] | None = None

    @property
    def reachable(self) -> bool:
        return self.m_star is not None

    @property
    def total(self) -> int:
        return sum(self.counts)


class _SortedRuns:
    """A set of int64 keys as a few sorted runs whose sizes at least double from the last
    to the first (merged as they grow), so membership is one binary search per run and
    the merging costs O(n log n) over the whole search."""

    def __init__(self, keys: np.ndarray) -> None:
        self.runs = [np.sort(keys)]

    def contains(self, keys: np.ndarray) -> np.ndarray:
        out = np.zeros(len(keys), dtype=bool)
        for run in self.runs:
            pos = np.minimum(np.searchsorted(run, keys), len(run) - 1)
            out |= run[pos] == keys
        return out

    def add(self, keys: np.ndarray) -> None:
        """Add sorted keys not yet in the set."""
        if not len(keys):
            return
        self.runs.append(keys)
        while len(self.runs) > 1 and len(self.runs[-2]) <= 2 * len(self.runs[-1]):
            last = self.runs.pop()
            self.runs[-1] = np.sort(np.concatenate([self.runs[-1], last]), kind="mergesort")


class _Keys:
    """Integer keys of (x, y, vx, vy, net) for one track."""

    def __init__(self, track: LatticeTrack) -> None:
        self.w, self.h = track.width, track.height
        self.v = max(track.width, track.height)
        self.vs = 2 * self.v + 1

    def key(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
            net: np.ndarray) -> np.ndarray:
        k = (net + NET_RANGE) * self.vs + (vy + self.v)
        k = k * self.vs + (vx + self.v)
        return (k * self.h + y) * self.w + x


def count_trajectories(track: LatticeTrack, starts: Sequence[Point], *,
                       max_states: int = 5_000_000, extremes: bool = False) -> SearchResult:
    """The least number of moves over `starts` (local points, at rest), and the exact
    number of such trajectories from each start (with `extremes`, also the least and
    greatest lengths of those trajectories: the layers' moves are kept for that)."""
    t0 = time.perf_counter()
    geo = LatticeGeometry(track)
    fin = track.finish
    keys = _Keys(track)
    accels = lattice_accels(track.accelerations)  # the track's set, read from its data
    ax = np.array([a[0] for a in accels], dtype=np.int64)
    ay = np.array([a[1] for a in accels], dtype=np.int64)
    starts = tuple(dict.fromkeys(starts))
    n_src = len(starts)
    x = np.array([p[0] for p in starts], dtype=np.int64)
    y = np.array([p[1] for p in starts], dtype=np.int64)
    vx = np.zeros(n_src, dtype=np.int64)
    vy = np.zeros(n_src, dtype=np.int64)
    net = np.zeros(n_src, dtype=np.int64)
    counts = np.zeros((n_src, n_src), dtype=object)
    for i in range(n_src):
        counts[i, i] = 1
    visited = _SortedRuns(keys.key(x, y, vx, vy, net))
    total, depth = n_src, 0
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []  # per layer

    def result(complete: bool, reason: str, m: int | None = None,
               per_start: tuple[int, ...] = (), finals: dict | None = None) -> SearchResult:
        return SearchResult(starts, complete, reason, m, per_start or (0,) * n_src,
                            finals or {}, total, time.perf_counter() - t0)

    while len(x):
        nvx = (vx[:, None] + ax).ravel()
        nvy = (vy[:, None] + ay).ravel()
        src = np.repeat(np.arange(len(x)), len(accels))
        px, py = x[src], y[src]
        qx, qy = px + nvx, py + nvy
        ok = np.flatnonzero(geo.valid_moves(px, py, qx, qy))
        src, px, py, qx, qy, nvx, nvy = (a[ok] for a in (src, px, py, qx, qy, nvx, nvy))
        code = geo.finish_codes(px, py, qx, qy)
        new_net = net[src] + code if fin.laps is not None else np.zeros(len(src), np.int64)
        arrive = (new_net == fin.laps) if fin.laps is not None else code == 1
        depth += 1
        if arrive.any():
            a = np.flatnonzero(arrive)
            per_start = tuple(int(sum(counts[src[a], j])) for j in range(n_src))
            finals: dict[tuple[int, int, int, int], int] = {}
            for i in a.tolist():
                k = (int(qx[i]), int(qy[i]), int(nvx[i]), int(nvy[i]))
                finals[k] = finals.get(k, 0) + int(sum(counts[src[i]]))
            res = result(True, f"first finishing move at depth {depth}", depth, per_start,
                         finals)
            if extremes:
                ends = (src[a], nvx[a], nvy[a])
                res = _with_extremes(res, kept, ends, n_src)
            return res
        if len(new_net) and int(np.abs(new_net).max()) > NET_RANGE:
            return result(False, f"a net lap count beyond ±{NET_RANGE} at depth {depth}")
        k = keys.key(qx, qy, nvx, nvy, new_net)
        uniq, first, inv = np.unique(k, return_index=True, return_inverse=True)
        fresh = ~visited.contains(uniq)
        layer_counts = np.zeros((len(uniq), n_src), dtype=object)
        np.add.at(layer_counts, inv, counts[src])
        keep = np.flatnonzero(fresh)
        pick = first[keep]
        x, y, vx, vy, net = qx[pick], qy[pick], nvx[pick], nvy[pick], new_net[pick]
        if extremes:  # the moves into the new layer, and the new states' velocities
            into = np.full(len(uniq), -1, dtype=np.int64)
            into[keep] = np.arange(len(keep))
            dst = into[inv]
            live = np.flatnonzero(dst >= 0)
            kept.append((src[live], dst[live], nvx[pick], nvy[pick]))
        counts = layer_counts[keep]
        visited.add(uniq[keep])
        total += len(keep)
        if total > max_states:
            return result(False, f"stopped after {total:,} states (cap {max_states:,}) at "
                                 f"depth {depth}")
    return result(True, f"no finishing move: every reachable state visited ({depth} layers)")


def _with_extremes(res: SearchResult, kept: list, ends: tuple, n_src: int) -> SearchResult:
    """`res` with the least and greatest lengths over its trajectories (see `_extreme`)."""
    from dataclasses import replace

    return replace(res, shortest=_extreme(kept, ends, n_src, 1),
                   longest=_extreme(kept, ends, n_src, -1))


def _extreme(kept: list, ends: tuple, n_src: int, sign: int) -> tuple[Sum, int]:
    """Least (sign 1) or greatest (sign -1) length over every trajectory that ends with a
    finishing move, with the number of trajectories that have it.

    Backwards from the finishing moves, the states on such trajectories; forwards, per
    state, the extreme length of a path to it and how many paths have it. Every move into
    a state has that state's velocity, so the extreme into a state is the extreme over its
    predecessors plus one fixed length. Floats only preselect; ties are exact.
    """
    src_end, vx_end, vy_end = ends
    alive = [np.zeros(0, dtype=bool)] * (len(kept) + 1)
    alive[len(kept)] = np.zeros(len(kept[-1][2]) if kept else n_src, dtype=bool)
    alive[len(kept)][src_end] = True
    for t in range(len(kept) - 1, -1, -1):
        s, d, _, _ = kept[t]
        n_here = len(kept[t - 1][2]) if t else n_src
        a = np.zeros(n_here, dtype=bool)
        a[s[alive[t + 1][d]]] = True
        alive[t] = a
    best: dict[int, tuple[Sum, int]] = {i: ({}, 1) for i in np.flatnonzero(alive[0]).tolist()}
    for t, (s, d, vx, vy) in enumerate(kept):
        use = np.flatnonzero(alive[t + 1][d])
        preds: dict[int, list[int]] = {}
        for i, j in zip(s[use].tolist(), d[use].tolist(), strict=True):
            preds.setdefault(j, []).append(i)
        best = {j: _pick([best[i] for i in ps], length(int(vx[j]), int(vy[j])), sign)
                for j, ps in preds.items()}
    finals = [(best[i], length(int(x), int(y)))
              for i, x, y in zip(src_end.tolist(), vx_end.tolist(), vy_end.tolist(),
                                 strict=True)]
    return _pick_ends(finals, sign)


def _pick(cands: list[tuple[Sum, int]], step: tuple, sign: int) -> tuple[Sum, int]:
    """The extreme of `cands` plus `step`, with the summed ties of those that reach it."""
    value, ties = _extreme_of([(v, n) for v, n in cands], sign)
    return add(value, step), ties


def _pick_ends(finals: list, sign: int) -> tuple[Sum, int]:
    return _extreme_of([(add(v, step), n) for (v, n), step in finals], sign)


def _extreme_of(cands: list[tuple[Sum, int]], sign: int) -> tuple[Sum, int]:
    floats = [sign * approx(v) for v, _ in cands]
    lo = min(floats)
    near = [i for i, f in enumerate(floats) if f <= lo + 1e-6 * (1 + abs(lo))]
    ext = cands[near[0]][0]
    for i in near[1:]:
        if sign * compare(cands[i][0], ext) < 0:
            ext = cands[i][0]
    ties = sum(n for i in near for v, n in [cands[i]] if v == ext)
    return ext, ties
