"""Yellow: the arriving trajectory of minimum total Euclidean length (docs/report.md).

The length of a trajectory is the sum of |v'| over its moves. Dijkstra runs on
the phase-aware state key (x, y, vx, vy, layer, progress, phase), so the
opening rule is applied exactly.

Two selections:

- ``exact`` (default): distances are ordered exactly. Every float distance is
  the float sum along one path, so its error is certified (`float_error`);
  float keys decide only when they are further apart than that bound, and
  anything closer is settled exactly (interned forms, else `RadicalSum`). The
  result certifies that no shorter arriving trajectory exists; its length is
  built with the caller's arithmetic.
- ``editor``: float distances, two lengths within 1e-6 count as tied, as the
  editor does (docs/formal-limits.md, limit 2). The chosen trajectory's length is then rebuilt
  exactly with the caller's arithmetic.

Ties (exact or within 1e-6) are broken deterministically: fewer moves, then
the lexicographically smallest sequence of accelerations, each acceleration
ranked by its index in `racecert.model.rules.ACCELERATIONS` (ay, then ax, from
-1 to 1).

One compiled search (`racecert.oracle.yellow_kernel`, driven by `yellow_search.Search`):
Dijkstra over dense state ids with a bucket queue. Every move is at least 1 long, so the
states whose distance lies in [k, k + 1) cannot improve one another and are settled in
any order (each bucket split at the certified error margin so that floats within the
error bound never decide it); moves are expanded one state at a time by the same
compiled rules as the BFS (`model.expand_kernel`); the state index chains the
phase-aware keys per cell (`yellow_tables.state_find`: the states read one after another
lie near one another); successors that provably cannot arrive (too fast to stay on the
grid until they could: `yellow_prune.doomed_one`) are dropped. Exact lengths are kept
per state as a pair (integer part, id of the interned irrational part), interned by the
kernel itself; only two lengths with different irrational parts that floats cannot order
go to Python (`RadicalSum`), as do the square-free decompositions of move lengths (a few
hundred per track). The kernel returns between slices of states settled (progress,
Ctrl-C, time limits) and stops at the state budget.

Pruning by a certified bound (`prune=True`, the default; the result is the
same, fewer states are settled): the estimate of a state is the larger of
`finish_distance` (straight-line distance to F, + 1/2) and the king steps to just past
F through drivable cells (`yellow_prune.cell_steps`), both lower bounds on the length
still needed. A first best-first search on dist + estimate finds some arriving
trajectory; its float length plus its error bound is an upper bound U on the minimum.
The exact search then drops every move whose end cannot arrive within U. On the open
200x200 benchmark this settles ~200 states instead of 13 million. The first search
is an A* within a thirty-second of `BOUND_BUDGET_PER_CELL` settled states per drivable cell
and, where that finds nothing (winding tracks), a weighted A* within the whole budget
(`yellow_bound.STAGES`). Where finish_distance is exact (a straight corridor) every
straight trajectory landing just past F ties with yellow: the exact search then leaves
unexpanded the states that can only lose the tie-break on moves
(`racecert.oracle.yellow_bound`), so a 5000 x 5 corridor settles about as many states as
its layered BFS instead of millions.

Selection (`_select`): the kept moves that are tight (d(u) + |e| = d(v), exactly by the
forms, or within 1e-6 in the editor selection) between settled states, the fewest moves
over them, and the greedy walk by acceleration index; only the few arrivals within the
error bound of the best are compared exactly.

>>> from racecert.model.parse import load_track  # doctest: +SKIP
>>> from racecert.model.radicals import RadicalSum  # doctest: +SKIP
>>> y = shortest_trajectory(load_track("tracks/tiny_straight.toml"),
...     length_of=RadicalSum.of_vector, zero=RadicalSum.zero())  # doctest: +SKIP
>>> y.moves, str(y.length)  # doctest: +SKIP
(3, '6')
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar

import numpy as np

from racecert.model.budget import StateBudget
from racecert.model.rules import (
    ACCELERATIONS,
    CarState,
    RuleProfile,
    StateArrays,
    VectorRaceRules,
)
from racecert.model.track import Track
from racecert.oracle import yellow_kernel as yk
from racecert.oracle.dag_order import fewest_moves, mark_sources
from racecert.oracle.yellow_bound import cut_of, finish_gap2, upper_bound
from racecert.oracle.yellow_search import Search, initial_capacity

Selection = Literal["editor", "exact"]
EDITOR_TOLERANCE = yk.EDITOR_TOLERANCE
# The bounding search (`yellow_bound.upper_bound`) gives up after this many settled states per
# drivable cell: past it the bound would cost about as much as it saves.
BOUND_BUDGET_PER_CELL = 16
_U = 2.0**-53


class OrderedAdditive(Protocol):
    """An exact length type: sums, exact equality and an always-correct order."""

    def __add__(self, other: OrderedAdditive, /) -> OrderedAdditive: ...

    def __lt__(self, other: OrderedAdditive, /) -> bool: ...

    def __eq__(self, other: object, /) -> bool: ...


L = TypeVar("L", bound=OrderedAdditive)


def float_error(x: np.ndarray | float) -> np.ndarray | float:
    """A bound on |computed - exact| for a float path length of about x.

    A path length is summed move by move from correctly rounded square roots
    of integers (each within u = 2^-53 relative). With n moves the error is at
    most (n + 1) u x (1 + O(nu)), and n <= x since every move is >= 1 long;
    the bound returned, 8 u (x + 3) x, is four times that (it also covers x
    being itself a computed value). For x = 1000 it is about 9e-10.
    """
    return 8.0 * _U * (x + 3.0) * x


@dataclass(frozen=True)
class YellowResult(Generic[L]):
    """The shortest arriving trajectory (or `reachable=False`).

    `positions` has moves + 1 points (P0 first), `accelerations` and
    `velocities` one entry per move. `length` is exact (the caller's
    arithmetic), `length_float` its float value as Dijkstra computed it.
    `certified` is True in ``exact`` selection: no arriving trajectory is
    shorter. `states_settled` counts states whose distance became final and
    `rounds` the unit distance windows they span (1 + floor of the largest
    settled distance: about the yellow length).
    """

    selection: Selection
    reachable: bool
    moves: int | None
    positions: tuple[tuple[int, int], ...]
    accelerations: tuple[tuple[int, int], ...]
    velocities: tuple[tuple[int, int], ...]
    length: L | None
    length_float: float | None
    certified: bool
    states_settled: int
    seconds: float
    rounds: int = 0


ProgressFn = Callable[[int, int], None]  # (rounds, states settled)


def finish_distance(track: Track) -> Callable[[StateArrays], np.ndarray]:
    """Per state, a float lower bound on the Euclidean length still needed to arrive.

    The arriving move crosses the finish line F at a point c of its closed
    segment and ends at a cell centre q beyond it; F lies on a half-integer
    boundary, so |c - q| >= 1/2. The rest of the trajectory from p passes
    through c and then q, so its length is at least |p - c| + 1/2 >= dist(p, F)
    + 1/2 (walls, layers, S and the opening rule ignored: a relaxation). With
    2·dx and 2·dy integers, sqrt((2dx)² + (2dy)²) is correctly rounded; the
    factor 1 - 2^-40 keeps the float value below the exact bound. E.g. on
    tracks/tiny_straight.toml (F at x = 6.5) the car at (1, 1) gets 6 (1 - 2^-40),
    and its yellow trajectory is exactly 6 long.
    """
    gap2 = finish_gap2(track)

    def bound(states: StateArrays) -> np.ndarray:
        d = np.sqrt(gap2(states).astype(np.float64))
        return (0.5 * d + 0.5) * (1.0 - 2.0**-40)

    return bound


def shortest_trajectory(
    track: Track,
    selection: Selection = "exact",
    *,
    length_of: Callable[[int, int], L],
    zero: L,
    progress: ProgressFn | None = None,
    prune: bool = True,
    rules: RuleProfile | None = None,
    budget: StateBudget | None = None,
) -> YellowResult[L]:
    """The yellow trajectory: minimum Σ|v'| over arriving trajectories.

    `length_of(vx, vy)` is the exact length of one move and `zero` the empty
    length, in an `OrderedAdditive` type (racecert passes `RadicalSum`).
    `progress(rounds, settled)` is called between slices of the compiled search
    (`yellow_search.SLICE_STATES` states settled) and at its end. `prune=False`
    switches the bound below off (the same result, more states settled).
    `rules`: the grid rules (default: `VectorRaceRules(track)`; the search runs their
    compiled expansion, `VectorRaceRules.kernel_args`). `budget` bounds the states stored
    by each of the two searches (`StateLimitReached`, raised as soon as it is crossed).

    Pruning (sound, the result is unchanged): a first best-first search finds
    some arriving trajectory, whose float length plus its error bound is a
    certified upper bound U >= the minimum. The exact search then drops every
    move whose prefix length (float, minus its error bound) plus the
    estimate of its end (module docstring) exceeds U (plus a margin): no trajectory through
    it is within U, so none is optimal or tied. In `editor` selection the margin
    also covers the 1e-6 tolerance of every move (a trajectory has at most U moves).
    In exact selection the bounding trajectory's exact length and moves also let the
    search leave unexpanded the settled states that can only lose the tie-break
    (`racecert.oracle.yellow_bound.cut_of`).
    """
    if selection not in ("editor", "exact"):
        raise ValueError(f"selection must be 'editor' or 'exact', not {selection!r}")
    t0 = time.perf_counter()
    exact = selection == "exact"
    rules = rules or VectorRaceRules(track)
    if not hasattr(rules, "kernel_args"):
        raise TypeError(f"yellow needs the grid rules (VectorRaceRules), not "
                        f"{type(rules).__name__}")
    limit = np.inf
    found = None
    if prune:
        cells = int(track.surface_arrays.drivable.any(axis=0).sum())
        found = upper_bound(rules, track, BOUND_BUDGET_PER_CELL * cells, budget)
        if found.found:  # else nothing arrives, or over budget: no pruning
            u = found.value + float_error(found.value)
            limit = u + 2 * float_error(u + 1.0)
            if not exact:
                limit += 2 * EDITOR_TOLERANCE * (u + 2.0)
    search = Search(rules.kernel_args(), track, yk.EXACT if exact else yk.EDITOR,
                    prune=bool(np.isfinite(limit)), limit=limit,
                    capacity=initial_capacity(track, budget.limit if budget else -1))
    if exact and found is not None and found.found:
        search.cut = cut_of(found, search)
        search.cut_on = True
    search.start(rules.initial_state())
    search.run(budget, "yellow search", progress)
    settled, rounds = search.states_settled, search.windows
    a_src, a_acc, a_len = search.arrivals()
    if not len(a_src):
        return YellowResult(selection, False, None, (), (), (), None, None, exact,
                            settled, time.perf_counter() - t0, rounds)
    accs = _select(search, 0, search.edges(), (a_src, a_acc, a_len), exact)
    positions, velocities = _replay(rules.initial_state(), accs)
    length = zero
    length_f = 0.0
    for vx, vy in velocities:
        length = length + length_of(vx, vy)
        length_f += math.sqrt(vx * vx + vy * vy)
    return YellowResult(selection, True, len(accs), positions, accs, velocities, length,
                        length_f, exact, settled, time.perf_counter() - t0, rounds)


def _select(store: Search, start: int, edges: tuple[np.ndarray, np.ndarray, np.ndarray],
            arrivals: tuple[np.ndarray, np.ndarray, np.ndarray],
            exact: bool) -> tuple[tuple[int, int], ...]:
    """The tie-broken best trajectory: min length, then fewer moves, then lexicographic.

    Keeps the tight edges (d(u) + |e| = d(v), exactly or within 1e-6) between
    settled states, takes n(v) = the fewest moves over tight paths, keeps the
    edges with n(v) = n(u) + 1, marks the states that still reach a best
    arrival along them, and walks greedily from the start taking the smallest
    acceleration index that stays on a best trajectory. Every tight edge goes from a
    distance d to d + |v'| >= d + 1, so the propagations are single passes over the edges
    in a topological order (`racecert.oracle.dag_order`): sorted by distance, or in exact
    selection simply the order the search kept them in (by settled source).
    """
    e_src, e_dst, e_acc = edges
    a_src, a_acc, a_len = arrivals
    n = store.n
    dist = store.dist[:n]
    amin = float(a_len.min())
    if exact:
        near_arr = np.nonzero(a_len <= amin + 2 * float_error(amin + 1.0))[0]
        acc_xy = np.array(ACCELERATIONS, dtype=np.int64)[a_acc[near_arr]]
        s_near = a_src[near_arr]
        ip, ir = store.extend(s_near, store.cols[2][s_near] + acc_xy[:, 0],
                              store.cols[3][s_near] + acc_xy[:, 1])
        if (ir == ir[0]).all():  # one irrational part: integers decide
            best_arr = near_arr[ip == ip.min()]
        else:
            values = {r: store.value(int(a), int(b))
                      for r, a, b in zip(near_arr.tolist(), ip.tolist(), ir.tolist(),
                                         strict=True)}
            best = min(values.values(), key=_Key)
            best_arr = np.array(sorted(r for r, v in values.items() if v == best),
                                dtype=np.int64)
        # Exactly tight edges are among the float-near ones, which are all the edges here
        # (`Search.edges`); only those leading to a best arrival matter, so the exact check
        # is limited to them. The edges come in the order their sources were settled, and
        # the source of a float-near edge is settled before its target (the bucket queue's
        # late parts: `yellow_kernel`), so that order is topological: no sort is needed.
        reach = np.zeros(n, dtype=bool)
        reach[a_src[best_arr]] = True
        mark_sources(e_src, e_dst, reach)
        tight = np.zeros(len(e_src), dtype=bool)
        rows = np.nonzero(reach[e_dst])[0]
        # canonical forms: equal lengths exactly when the forms are equal
        r_dst = e_dst[rows]
        ip, ir = store.extend(e_src[rows], store.cols[2][r_dst], store.cols[3][r_dst])
        tight[rows] = (ip == store.ipart[r_dst]) & (ir == store.irr[r_dst])
    else:
        vx, vy = store.cols[2][e_dst], store.cols[3][e_dst]
        step = np.sqrt((vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2).astype(np.float64))
        tight = np.abs(dist[e_src] + step - dist[e_dst]) <= EDITOR_TOLERANCE
        best_arr = np.nonzero(a_len <= amin + EDITOR_TOLERANCE)[0]
    t_src, t_dst, t_acc = e_src[tight], e_dst[tight], e_acc[tight]
    unreached = np.iinfo(np.int64).max // 4
    moves = np.full(n, unreached, dtype=np.int64)
    moves[start] = 0
    # the fewest moves over tight paths: one pass in order of the source's distance (exact:
    # the order the edges came in, as above; a tolerance of 1e-6 may put both ends of a
    # tight edge in one bucket, settled in any order, so the editor selection sorts)
    if exact:
        fewest_moves(t_src, t_dst, moves)
    else:
        by_src = np.argsort(dist[t_src], kind="stable")
        fewest_moves(t_src[by_src], t_dst[by_src], moves)
    arr_moves = moves[a_src[best_arr]] + 1
    m_best = int(arr_moves.min())
    best_arr = best_arr[arr_moves == m_best]
    keep = moves[t_dst] == moves[t_src] + 1
    t_src, t_dst, t_acc = t_src[keep], t_dst[keep], t_acc[keep]
    good = np.zeros(n, dtype=bool)
    good[a_src[best_arr]] = True
    if exact:
        mark_sources(t_src, t_dst, good)
    else:  # backwards from the farthest target
        by_dst = np.argsort(dist[t_dst], kind="stable")
        mark_sources(t_src[by_dst], t_dst[by_dst], good)
    order = np.lexsort((t_acc, t_src))
    t_src, t_dst, t_acc = t_src[order], t_dst[order], t_acc[order]
    cur = start
    accs: list[tuple[int, int]] = []
    for _ in range(m_best - 1):
        lo, hi = np.searchsorted(t_src, [cur, cur + 1])
        acc, cur = min((int(t_acc[j]), int(t_dst[j])) for j in range(lo, hi) if good[t_dst[j]])
        accs.append(ACCELERATIONS[acc])
    last = min(int(a_acc[r]) for r in best_arr.tolist() if int(a_src[r]) == cur)
    accs.append(ACCELERATIONS[last])
    return tuple(accs)


class _Key:
    """Sort key wrapper so `min` uses the arithmetic's own (exact) `<`."""

    def __init__(self, v: OrderedAdditive) -> None:
        self.v = v

    def __lt__(self, other: _Key) -> bool:
        return self.v < other.v


def _replay(start: CarState, accs: tuple[tuple[int, int], ...]
            ) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Positions (P0..Pm) and velocities of the moves with the given accelerations."""
    x, y, vx, vy = start.x, start.y, start.vx, start.vy
    pos = [(x, y)]
    vel = []
    for ax, ay in accs:
        vx, vy = vx + ax, vy + ay
        x, y = x + vx, y + vy
        pos.append((x, y))
        vel.append((vx, vy))
    return tuple(pos), tuple(vel)
