"""An independent search for cell-path tracks: m*, the exact counts per start, the finals,
the least and greatest lengths.

Written apart from the oracle (`racecert.oracle.bfs.layered_bfs` over
`racecert.model.cellpath.rules.CellPathRules`): plain Python dictionaries keyed by
(x, y, vx, vy) tuples, the moves of `racecert.independent.cellpath.walk` (exact
rationals), and every figure carried forward layer by layer on each state: one Python
integer count per start, and the least and greatest exact length (a sum of square roots,
`racecert.independent.radical_forms`) of a path to it with the number of paths that have it.
Layer t holds the states first reached after t moves from any start; the first layer
with an arriving move fixes m*, and the arriving moves of that layer are the optimal
trajectories' last moves (one count per start is exact for the reason given in
`racecert.independent.lattice.search`).

A trajectory's length is the length of its path through the cells it stands on: |v'|
for each move, except the arriving one, which ends on the goal cell its walk reached
(docs/rules.md, "The cell-path profile").

Bounded: the search stops after `max_states` states and says so (`complete` False).

>>> from racecert.independent.radical_forms import text
>>> from racecert.model.cellpath.track import CellPathTrack
>>> t = CellPathTrack("t", 4, 1, ("s..g",), ((0, 0),))
>>> r = count_trajectories(t, [(0, 0)])
>>> r.m_star, r.counts, r.finals, text(r.shortest[0]), text(r.longest[0])
(2, (1,), {(3, 0, 2, 0): 1}, '3', '3')
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from racecert.independent.cellpath.walk import State, accelerations, successor
from racecert.independent.lattice.search import SearchResult
from racecert.independent.radical_forms import Sum, add, approx, compare, length
from racecert.model.cellpath.track import CellPathTrack

_TOLERANCE = 1e-9


@dataclass
class _Node:
    """What the search knows of one state of the current layer."""

    counts: list[int]
    low: Sum
    low_ties: int
    low_f: float
    high: Sum
    high_ties: int
    high_f: float

    @classmethod
    def start(cls, index: int, n: int) -> _Node:
        counts = [0] * n
        counts[index] = 1
        return cls(counts, {}, 1, 0.0, {}, 1, 0.0)

    def extended(self, step: tuple[tuple[int, int], ...], f: float) -> _Node:
        """This node's figures after one more move of length `step` (float `f`)."""
        return _Node(list(self.counts), add(self.low, step), self.low_ties, self.low_f + f,
                     add(self.high, step), self.high_ties, self.high_f + f)

    def merge(self, other: _Node) -> None:
        """Add the paths of `other` (into the same state)."""
        self.counts = [a + b for a, b in zip(self.counts, other.counts, strict=True)]
        c = _order(other.low, other.low_f, self.low, self.low_f)
        if c < 0:
            self.low, self.low_f, self.low_ties = other.low, other.low_f, other.low_ties
        elif c == 0:
            self.low_ties += other.low_ties
        c = _order(other.high, other.high_f, self.high, self.high_f)
        if c > 0:
            self.high, self.high_f, self.high_ties = other.high, other.high_f, other.high_ties
        elif c == 0:
            self.high_ties += other.high_ties


def _order(a: Sum, fa: float, b: Sum, fb: float) -> int:
    """The sign of a - b: by the floats when they are far apart, else exactly."""
    if abs(fa - fb) > _TOLERANCE * (1.0 + abs(fa) + abs(fb)):
        return 1 if fa > fb else -1
    return compare(a, b)


def _step(track: CellPathTrack, layer: dict[State, _Node], seen: set[State]
          ) -> tuple[dict[State, _Node], dict[State, _Node]]:
    """(the next layer's fresh states, the arrival states) with their figures."""
    nxt: dict[State, _Node] = {}
    arrivals: dict[State, _Node] = {}
    accs = accelerations(track)
    for s, node in layer.items():
        for a in accs:
            r = successor(track, s, a)
            if r is None:
                continue
            t, arrives = r
            if not arrives and t in seen:
                continue
            into = arrivals if arrives else nxt
            step = length(t[0] - s[0], t[1] - s[1])  # to where the move ends
            moved = node.extended(step, approx(dict(step)))
            if t in into:
                into[t].merge(moved)
            else:
                into[t] = moved
    return nxt, arrivals


def count_trajectories(track: CellPathTrack, starts: Sequence[tuple[int, int]], *,
                       max_states: int = 2_000_000) -> SearchResult:
    """The least number of moves over `starts` (cells, at rest), the exact number of such
    trajectories from each start, the final states with their counts, and the least and
    greatest lengths with their ties."""
    t0 = time.perf_counter()
    starts = tuple(dict.fromkeys(starts))
    n = len(starts)
    layer = {(x, y, 0, 0): _Node.start(i, n) for i, (x, y) in enumerate(starts)}
    seen = set(layer)
    depth = 0

    def result(complete: bool, reason: str, m: int | None = None,
               arrivals: dict[State, _Node] | None = None) -> SearchResult:
        if not arrivals:
            return SearchResult(starts, complete, reason, m, (0,) * n, {}, len(seen),
                                time.perf_counter() - t0)
        nodes = list(arrivals.values())
        per_start = tuple(sum(nd.counts[j] for nd in nodes) for j in range(n))
        finals = {s: sum(nd.counts) for s, nd in arrivals.items()}
        low = _extreme(nodes, +1)
        high = _extreme(nodes, -1)
        return SearchResult(starts, complete, reason, m, per_start, finals, len(seen),
                            time.perf_counter() - t0, low, high)

    while layer:
        nxt, arrivals = _step(track, layer, seen)
        depth += 1
        if arrivals:
            return result(True, f"first arriving move at depth {depth}", depth, arrivals)
        seen.update(nxt)
        if len(seen) > max_states:
            return result(False, f"stopped after {len(seen):,} states (cap {max_states:,}) "
                                 f"at depth {depth}")
        layer = nxt
    return result(True, f"no arriving move: every reachable state visited ({depth} layers)")


def _extreme(nodes: list[_Node], sign: int) -> tuple[Sum, int]:
    """The least (sign 1) or greatest (sign -1) length over the arrivals, with its ties."""
    if sign > 0:
        cands = [(nd.low, nd.low_f, nd.low_ties) for nd in nodes]
    else:
        cands = [(nd.high, nd.high_f, nd.high_ties) for nd in nodes]
    best, best_f, ties = cands[0]
    for v, f, k in cands[1:]:
        c = sign * _order(v, f, best, best_f)
        if c < 0:
            best, best_f, ties = v, f, k
        elif c == 0:
            ties += k
    return best, ties
