"""The Amateur's local search: a capped breadth-first search to the next arrival, and the
few least-length routes of the optimal and of the one-move-longer move counts.

The search is the oracle's layered search in miniature (exact state key, layer t
holding the states first reached after t moves, `racecert.model.rules` expansions),
written here because it must stop at a state cap and look one layer further:

- it expands layer after layer; before expanding a layer it checks that the states
  expanded so far plus that layer stay within `cap`, and stops otherwise (`capped`);
- the first depth m with an arriving move gives the *optimal* routes (m moves from
  the car's state, with occupancy on the first move as the rules profile says);
- it then expands layer m too: its arrivals are the *one move longer* routes
  (m + 1 moves through states each first reached at its own time: the routes of
  the search's layered graph, which is what a local search sees).

For each of the two move counts the `best` routes of least exact Euclidean length
(`RadicalSum`, compared exactly) are kept by a k-best dynamic programme over the
layers; ties in length are broken by the acceleration sequence (the order of
`racecert.model.rules.ACCELERATIONS`, move by move), so the result is one
deterministic list.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from racecert.model.rules import ACCELERATIONS, CarState, RuleProfile, StateArrays
from racecert.model.states import StateCodec
from racecert.race.driver import Acceleration
from racecert.verify.radicals import RadicalSum


@dataclass(frozen=True)
class Route:
    """A route to the next arrival: its accelerations and exact Euclidean length."""

    accelerations: tuple[Acceleration, ...]
    length: RadicalSum

    @property
    def moves(self) -> int:
        return len(self.accelerations)


@dataclass(frozen=True)
class LocalSearchResult:
    """What one local search found.

    `optimal_moves` is the least number of moves to an arrival it found (None: none);
    `optimal` / `longer` the least-length routes of that many moves and of one more;
    `longer_searched` says whether the layer of one move more was searched at all
    (False when the cap or the depth bound came first); `exhausted` says that the
    search stopped because no new state was reachable (so, without a cap, no arrival
    exists beyond what it reports).
    """

    states_expanded: int
    cap: int
    capped: bool
    exhausted: bool
    optimal_moves: int | None
    optimal: tuple[Route, ...]
    longer: tuple[Route, ...]
    longer_searched: bool


class _Entry:
    """One of the best partial routes into a search state (k-best DP bookkeeping)."""

    __slots__ = ("length", "pred", "acc", "rank")

    def __init__(self, length: RadicalSum, pred: _Entry | None, acc: int) -> None:
        self.length = length
        self.pred = pred
        self.acc = acc
        self.rank = 0

    def key(self) -> tuple[RadicalSum, int, int]:
        """Order: exact length, then the route's accelerations (predecessor rank, last)."""
        return (self.length, -1 if self.pred is None else self.pred.rank, self.acc)

    def accelerations(self) -> tuple[Acceleration, ...]:
        out = []
        e: _Entry | None = self
        while e is not None and e.pred is not None:
            out.append(ACCELERATIONS[e.acc])
            e = e.pred
        return tuple(reversed(out))


def _acc_index(ax: int, ay: int) -> int:
    return (ay + 1) * 3 + (ax + 1)


class _Layers:
    """The layered search graph: states per layer, edges, arrivals per depth."""

    def __init__(self, rules: RuleProfile, origin: CarState) -> None:
        t = rules.track
        self.rules = rules
        self.codec = StateCodec(t.width, t.height, rules.phase_limit + 1, keep_phase=True)
        self.layers = [StateArrays.of([origin])]
        self.visited = self.codec.encode(self.layers[0])
        self.edges: list[tuple[np.ndarray, np.ndarray]] = []
        self.arrivals: dict[int, tuple[np.ndarray, StateArrays]] = {}

    def expand(self, d: int, build_next: bool) -> None:
        """Expand layer d: record its arrivals (depth d + 1) and, if asked, layer d + 1."""
        exp = self.rules.expand(self.layers[d])
        if len(exp.arrive_src):
            self.arrivals[d + 1] = (exp.arrive_src, exp.arrive_state)
        if not build_next:
            return
        keys = self.codec.encode(exp.succ)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        pos = np.searchsorted(self.visited, uniq)
        seen = np.zeros(len(uniq), dtype=bool)
        inside = pos < len(self.visited)
        seen[inside] = self.visited[pos[inside]] == uniq[inside]
        ids = np.full(len(uniq), -1, dtype=np.int64)
        ids[~seen] = np.arange(int((~seen).sum()))
        dst = ids[inverse.ravel()]
        live = dst >= 0
        self.edges.append((exp.src[live], dst[live]))
        self.layers.append(exp.succ.take(first[~seen]))
        self.visited = np.sort(np.concatenate([self.visited, uniq[~seen]]))

    def best_routes(self, depth: int, best: int) -> tuple[Route, ...]:
        """The `best` least-length routes arriving on move `depth` (k-best DP)."""
        a_src, a_state = self.arrivals[depth]
        last = depth - 1
        keep = [np.zeros(len(layer), dtype=bool) for layer in self.layers[: last + 1]]
        keep[last][a_src] = True
        for t in range(last - 1, -1, -1):
            src, dst = self.edges[t]
            keep[t][src[keep[t + 1][dst]]] = True
        entries: list[dict[int, list[_Entry]]] = [{0: [_Entry(RadicalSum.zero(), None, -1)]}]
        for t in range(1, last + 1):
            src, dst = self.edges[t - 1]
            on = np.flatnonzero(keep[t - 1][src] & keep[t][dst])
            entries.append(self._layer_entries(t, src[on].tolist(), dst[on].tolist(),
                                               entries[t - 1], best))
        prev = self.layers[last]
        cands = []
        for src, vx, vy in zip(a_src.tolist(), a_state.vx.tolist(), a_state.vy.tolist(),
                               strict=True):
            acc = _acc_index(vx - int(prev.vx[src]), vy - int(prev.vy[src]))
            step = RadicalSum.of_vector(vx, vy)
            cands += [_Entry(e.length + step, e, acc) for e in entries[last][src]]
        chosen = heapq.nsmallest(best, cands, key=_Entry.key)
        return tuple(Route(e.accelerations(), e.length) for e in chosen)

    def _layer_entries(self, t: int, src: list[int], dst: list[int],
                       before: dict[int, list[_Entry]], best: int) -> dict[int, list[_Entry]]:
        """The `best` partial routes into each kept state of layer t, ranked."""
        a, b = self.layers[t - 1], self.layers[t]
        cands: dict[int, list[_Entry]] = {}
        for s, d in zip(src, dst, strict=True):
            vx, vy = int(b.vx[d]), int(b.vy[d])
            acc = _acc_index(vx - int(a.vx[s]), vy - int(a.vy[s]))
            step = RadicalSum.of_vector(vx, vy)
            cands.setdefault(d, []).extend(_Entry(e.length + step, e, acc) for e in before[s])
        out = {d: heapq.nsmallest(best, c, key=_Entry.key) for d, c in cands.items()}
        # rank every entry of the layer by its acceleration sequence (lexicographic)
        ranked = sorted((e for es in out.values() for e in es),
                        key=lambda e: (e.pred.rank if e.pred else -1, e.acc))
        for r, e in enumerate(ranked):
            e.rank = r
        return out


def local_search(rules: RuleProfile, origin: CarState, cap: int, max_depth: int,
                 best: int = 3) -> LocalSearchResult:
    """Search from `origin` with at most `cap` states expanded (module docstring).

    `rules` may be a `racecert.race.planning.FirstMoveFilter` (occupancy on the first
    move); `max_depth` bounds the moves of a route (the race's turns left).
    """
    g = _Layers(rules, origin)
    expanded = 0
    m: int | None = None
    capped = exhausted = longer_searched = False
    d = 0
    while d < max_depth:
        if expanded + len(g.layers[d]) > cap:
            capped = True
            break
        final = m is not None  # this layer's arrivals are the one-move-longer ones
        g.expand(d, build_next=not final and d + 1 < max_depth)
        expanded += len(g.layers[d])
        if final:
            longer_searched = True
            break
        if d + 1 in g.arrivals:
            m = d + 1
        if len(g.layers) == d + 1:  # depth bound reached: nothing built
            break
        if len(g.layers[d + 1]) == 0:
            exhausted = True
            longer_searched = m is not None  # no state at depth m: no longer route
            break
        d += 1
    optimal = g.best_routes(m, best) if m is not None else ()
    longer = g.best_routes(m + 1, best) if m is not None and m + 1 in g.arrivals else ()
    return LocalSearchResult(expanded, cap, capped, exhausted, m, optimal, longer,
                             longer_searched)
