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
are kept by a k-best dynamic programme over the layers, vectorised: a length is a
float for speed and an integer vector over square-free radicands for exactness
(`_Radicands`); floats decide only beyond their error bound, equal vectors are equal
lengths, and the rare distinct-but-close ones are compared as `RadicalSum`s. Ties
in length are broken by the acceleration sequence (the order of
`racecert.model.rules.ACCELERATIONS`, move by move), so the result is one
deterministic list.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from racecert.model.radicals import RadicalSum, squarefree_decomposition
from racecert.model.rules import ACCELERATIONS, CarState, RuleProfile, StateArrays
from racecert.model.states import StateCodec
from racecert.model.unique import unique_sorted
from racecert.oracle.dijkstra import float_error
from racecert.race.driver import Acceleration


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


class _Radicands:
    """Exact move lengths as integer vectors: |v| = k * sqrt(d), d squarefree, is the
    vector with k at d's index. A route's length is the sum of its moves' vectors, a
    canonical form of the exact sum: two routes have the same length iff their vectors
    are equal."""

    def __init__(self) -> None:
        self.index: dict[int, int] = {}
        self.values: list[int] = []

    def steps(self, vx: np.ndarray, vy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per move: (index of d, k) with |v| = k * sqrt(d)."""
        n = vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2
        uniq, inverse = np.unique(n, return_inverse=True)
        d_idx, mult = [], []
        for value in uniq.tolist():
            k, d = squarefree_decomposition(value)
            if d not in self.index:
                self.index[d] = len(self.values)
                self.values.append(d)
            d_idx.append(self.index[d])
            mult.append(k)
        return (np.array(d_idx, dtype=np.int64)[inverse.ravel()],
                np.array(mult, dtype=np.int32)[inverse.ravel()])

    def exact(self, coef: np.ndarray) -> RadicalSum:
        return RadicalSum.from_terms((d, int(c)) for d, c in zip(self.values, coef.tolist(),
                                                                   strict=False) if c)


@dataclass(frozen=True)
class _Entries:
    """The kept partial routes into the states of one layer, grouped by state (CSR):
    entries of state i are rows starts[i]:starts[i + 1]. `pred` is the entry of the
    previous layer a route extends, `acc` its last acceleration's index, `rank` the
    position of the route's acceleration sequence among the layer's (lexicographic)."""

    starts: np.ndarray
    length: np.ndarray
    coef: np.ndarray
    pred: np.ndarray
    acc: np.ndarray
    rank: np.ndarray


def _select(group: np.ndarray, length: np.ndarray, coef: np.ndarray, prank: np.ndarray,
            acc: np.ndarray, best: int, radicands: _Radicands) -> np.ndarray:
    """The `best` first candidates of each group in exact order (length, then the route's
    accelerations: predecessor rank, last acceleration), as indices grouped by group.

    Floats order candidates whose lengths differ by more than twice their error bound
    (`float_error`); closer ones form a cluster. A cluster whose exact vectors are all
    equal is one length; a mixed cluster is ordered by exact `RadicalSum` comparison.
    """
    n = len(length)
    order = np.lexsort((acc, prank, length, group))
    g, f = group[order], length[order]
    err = 2.0 * float_error(np.abs(f) + 1.0)
    new = np.ones(n, dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (f[1:] - f[:-1] > np.maximum(err[1:], err[:-1]))
    cluster = np.cumsum(new) - 1
    head = np.flatnonzero(new)
    c = coef[order]
    same = np.all(c == c[head[cluster]], axis=1)
    sub = np.zeros(n, dtype=np.int64)
    ends = np.append(head[1:], n)
    for cl in unique_sorted(cluster[~same]).tolist():
        rows = range(int(head[cl]), int(ends[cl]))
        values = [radicands.exact(c[i]) for i in rows]
        classes = sorted(set(values))  # RadicalSum: structural equality, certified order
        for i, v in zip(rows, values, strict=True):
            sub[i] = classes.index(v)
    final = order[np.lexsort((acc[order], prank[order], sub, cluster))]
    gs = group[final]
    first = np.ones(n, dtype=bool)
    first[1:] = gs[1:] != gs[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n), 0))
    return final[np.arange(n) - start < best]


def _expand_entries(entries: _Entries, src: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each move from state src[i]: the entries it extends. Returns (move row, entry)."""
    count = entries.starts[src + 1] - entries.starts[src]
    rows = np.repeat(np.arange(len(src)), count)
    offset = np.arange(len(rows)) - np.repeat(np.cumsum(count) - count, count)
    return rows, entries.starts[src][rows] + offset


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
        """The `best` least-length routes arriving on move `depth` (k-best DP, exact)."""
        a_src, a_state = self.arrivals[depth]
        last = depth - 1
        keep = [np.zeros(len(layer), dtype=bool) for layer in self.layers[: last + 1]]
        keep[last][a_src] = True
        for t in range(last - 1, -1, -1):
            src, dst = self.edges[t]
            keep[t][src[keep[t + 1][dst]]] = True
        rad = _Radicands()
        z = np.zeros(1, dtype=np.int64)
        layers = [_Entries(np.array([0, 1]), np.zeros(1), np.zeros((1, 0), dtype=np.int32),
                           z - 1, z - 1, z)]
        for t in range(1, last + 1):
            src, dst = self.edges[t - 1]
            on = np.flatnonzero(keep[t - 1][src] & keep[t][dst])
            layers.append(self._step(t, src[on], dst[on], layers[-1], best, rad))
        rows, chosen = self._arrivals(last, a_src, a_state, layers[-1], best, rad)
        routes = []
        for i in chosen.tolist():
            accs = [int(rows["acc"][i])]
            e = int(rows["pred"][i])
            for t in range(last, 0, -1):
                accs.append(int(layers[t].acc[e]))
                e = int(layers[t].pred[e])
            routes.append(Route(tuple(ACCELERATIONS[k] for k in reversed(accs)),
                                rad.exact(rows["coef"][i])))
        return tuple(routes)

    def _candidates(self, src: np.ndarray, vx: np.ndarray, vy: np.ndarray, prev_layer: int,
                    entries: _Entries, rad: _Radicands) -> dict[str, np.ndarray]:
        """Every kept route into `src` extended by the move to velocity (vx, vy)."""
        rows, pe = _expand_entries(entries, src)
        a = self.layers[prev_layer]
        vx, vy, s = vx[rows], vy[rows], src[rows]
        acc = (vy - a.vy[s] + 1) * 3 + (vx - a.vx[s] + 1)
        d_idx, mult = rad.steps(vx, vy)
        coef = np.zeros((len(rows), len(rad.values)), dtype=np.int32)
        old = entries.coef[pe]
        coef[:, : old.shape[1]] = old
        np.add.at(coef, (np.arange(len(rows)), d_idx), mult)
        length = entries.length[pe] + np.sqrt((vx.astype(np.int64) ** 2
                                               + vy.astype(np.int64) ** 2).astype(np.float64))
        return {"rows": rows, "pred": pe, "acc": acc.astype(np.int64), "coef": coef,
                "length": length, "prank": entries.rank[pe]}

    def _step(self, t: int, src: np.ndarray, dst: np.ndarray, entries: _Entries, best: int,
              rad: _Radicands) -> _Entries:
        """The kept routes into layer t's states, from the kept moves (src, dst)."""
        b = self.layers[t]
        c = self._candidates(src, b.vx[dst].astype(np.int64), b.vy[dst].astype(np.int64),
                             t - 1, entries, rad)
        group = dst[c["rows"]]
        pick = _select(group, c["length"], c["coef"], c["prank"], c["acc"], best, rad)
        counts = np.bincount(group[pick], minlength=len(b))
        starts = np.concatenate([[0], np.cumsum(counts)])
        acc, prank = c["acc"][pick], c["prank"][pick]
        rank = np.empty(len(pick), dtype=np.int64)
        rank[np.lexsort((acc, prank))] = np.arange(len(pick))
        return _Entries(starts, c["length"][pick], c["coef"][pick], c["pred"][pick], acc, rank)

    def _arrivals(self, last: int, a_src: np.ndarray, a_state: StateArrays, entries: _Entries,
                  best: int, rad: _Radicands) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The arriving moves from layer `last` as candidates, and the indices of the `best`
        of them, in order."""
        c = self._candidates(a_src, a_state.vx.astype(np.int64), a_state.vy.astype(np.int64),
                             last, entries, rad)
        group = np.zeros(len(c["length"]), dtype=np.int64)
        return c, _select(group, c["length"], c["coef"], c["prank"], c["acc"], best, rad)


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
