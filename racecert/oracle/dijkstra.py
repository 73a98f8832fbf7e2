"""Yellow: the arriving trajectory of minimum total Euclidean length (docs/report.md).

The length of a trajectory is the sum of |v'| over its moves. Dijkstra runs on
the phase-aware state key (x, y, vx, vy, layer, progress, phase), so the
opening rule is applied exactly.

Two selections:

- ``exact`` (default): distances are ordered exactly. Every float distance is
  the float sum along one path, so its error is certified (`float_error`);
  float keys decide only when they are further apart than that bound, and
  anything closer is settled by exact comparison of the lengths built with
  the caller's arithmetic (`RadicalSum` in racecert). The result certifies
  that no shorter arriving trajectory exists.
- ``editor``: float distances, two lengths within 1e-6 count as tied, as the
  editor does (docs/formal-limits.md, limit 2). The chosen trajectory's length is then rebuilt
  exactly with the caller's arithmetic.

Ties (exact or within 1e-6) are broken deterministically: fewer moves, then
the lexicographically smallest sequence of accelerations, each acceleration
ranked by its index in `racecert.model.rules.ACCELERATIONS` (ay, then ax, from
-1 to 1).

Batches instead of a heap: every move is at least 1 long, so once D is the
smallest open tentative distance, every open state with tentative <= D + 1 is
final (a detour through another open state costs >= D + 1). Each round settles
that whole window and expands it with one vectorised `VectorRaceRules.expand`
call; the number of rounds is about the yellow length.

Pruning by a certified bound (`prune=True`, the default; the result is the
same, fewer states are settled): `finish_distance` is a lower bound on the
length still needed from a position (straight-line distance to F, + 1/2). A
first, cheap best-first search on dist + finish_distance finds some arriving
trajectory; its float length plus its error bound is an upper bound U on the
minimum. The exact search then drops every move whose end cannot arrive within
U. On the open 200x200 benchmark this settles ~2,000 states instead of 13
million. Where finish_distance is weak (winding tracks) the first search gives
up after `BOUND_BUDGET_PER_CELL` settled states per drivable cell. Where it is
exact (a straight corridor) every straight trajectory landing just past F ties
with yellow: the exact search then leaves unexpanded the states that can only
lose the tie-break on moves (`racecert.oracle.yellow_bound`), so a 5000 x 5
corridor settles about as many states as its layered BFS instead of millions.

Data layout: per-state numpy arrays indexed by a dense id; the key -> id map
is a few sorted runs searched with `np.searchsorted` (`_IdMap`), so a round
costs a handful of vectorised passes and no Python loop per state; only
targets whose candidates floats cannot order go through the exact arithmetic.

Exact arithmetic: the exact selection keeps every path length as a
`racecert.model.radicals.RadicalForms` pair (integer part, interned irrational
part), which settles equalities and ties within one irrational part; the rest
goes through the caller's `length_of(vx, vy)` and `zero`, values of any type
satisfying `OrderedAdditive` (racecert passes `RadicalSum`).

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

from racecert.model.budget import StateBudget, check
from racecert.model.radicals import RadicalForms
from racecert.model.rules import (
    ACCELERATIONS,
    CarState,
    RuleProfile,
    StateArrays,
    VectorRaceRules,
)
from racecert.model.states import StateCodec
from racecert.model.track import Track
from racecert.oracle.dag_order import fewest_moves, mark_sources
from racecert.oracle.yellow_bound import MovesCut, finish_gap2, moves_to_cross, upper_bound

Selection = Literal["editor", "exact"]
EDITOR_TOLERANCE = 1e-6
# The bounding search (`yellow_bound.upper_bound`) gives up after this many settled states per
# drivable cell: past it the bound would cost about as much as it saves.
BOUND_BUDGET_PER_CELL = 16
# Exact ties by `RadicalForms` (integer part, interned irrational part) where they decide;
# False sends every tie to the caller's exact arithmetic (the tests compare both).
TIES_BY_FORMS = True
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
    `rounds` the batches that settled them (about the yellow length: each
    batch is a window of width 1).
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


class _IdMap:
    """State key -> dense id, as a few sorted runs searched with `np.searchsorted`.

    New keys arrive as one sorted run per call; runs of similar size are merged
    (the last run is merged into the previous one while that one is at most twice
    as long), so there are O(log n) runs and every key is merged O(log n) times:
    no Python loop per key.

    >>> m = _IdMap()
    >>> m.add(np.array([5, 9]), np.array([0, 1])); m.add(np.array([7]), np.array([2]))
    >>> m.find(np.array([9, 7, 8])).tolist()
    [1, 2, -1]
    """

    def __init__(self) -> None:
        self._runs: list[tuple[np.ndarray, np.ndarray]] = []

    def find(self, keys: np.ndarray) -> np.ndarray:
        """The id of each key, -1 where the key is unknown."""
        out = np.full(len(keys), -1, dtype=np.int64)
        for rk, rid in self._runs:
            pos = np.searchsorted(rk, keys)
            pos[pos == len(rk)] = 0
            hit = rk[pos] == keys
            out[hit] = rid[pos[hit]]
        return out

    def add(self, keys: np.ndarray, ids: np.ndarray) -> None:
        """Record unknown, sorted, distinct `keys` with their `ids`."""
        if not len(keys):
            return
        self._runs.append((keys, ids))
        while len(self._runs) > 1 and len(self._runs[-2][0]) <= 2 * len(self._runs[-1][0]):
            (k1, i1), (k2, i2) = self._runs.pop(), self._runs.pop()
            k, i = np.concatenate((k2, k1)), np.concatenate((i2, i1))
            order = np.argsort(k, kind="stable")
            self._runs.append((k[order], i[order]))


class _Store:
    """Growable per-state arrays indexed by a dense state id, and the key -> id map.

    `bound` holds each state's `finish_distance` when the search prunes by it;
    `ipart` / `irr` the exact length of the path to the state along `pred` as a
    `RadicalForms` pair (kept only when `forms` is given: exact selection); `moves`
    the number of moves of that path; `left` a lower bound on the moves still needed
    (kept only when `left` is given: the bounding search).
    """

    FIELDS = 7

    def __init__(self, bound: Callable[[StateArrays], np.ndarray] | None = None,
                 forms: RadicalForms | None = None,
                 left: Callable[[StateArrays], np.ndarray] | None = None) -> None:
        self.index = _IdMap()
        self.forms = forms
        self.bound_of = bound
        self.left_of = left
        self.n = 0
        self.dist = np.full(1024, np.inf)
        self.settled = np.zeros(1024, dtype=bool)
        self.in_open = np.zeros(1024, dtype=bool)
        self.pred = np.full(1024, -1, dtype=np.int64)
        self.bound = np.zeros(1024)
        self.ipart = np.zeros(1024, dtype=np.int64)
        self.irr = np.zeros(1024, dtype=np.int64)
        self.moves = np.zeros(1024, dtype=np.int32)
        self.left = np.zeros(1024 if left is not None else 0, dtype=np.int32)
        self.cols = [np.zeros(1024, dtype=np.int32) for _ in range(self.FIELDS)]

    def ids(self, keys: np.ndarray, states: StateArrays) -> np.ndarray:
        """Dense ids for the sorted distinct `keys` of `states` (unseen keys get new ids,
        in key order)."""
        out = self.index.find(keys)
        new = np.nonzero(out < 0)[0]
        if len(new):
            lo, hi = self.n, self.n + len(new)
            out[new] = np.arange(lo, hi, dtype=np.int64)
            self.index.add(keys[new], out[new])
            self._grow(hi)
            fresh = states.take(new)
            for col, field in zip(self.cols, fresh.fields(), strict=True):
                col[lo:hi] = field
            if self.bound_of is not None:
                self.bound[lo:hi] = self.bound_of(fresh)
            if self.left_of is not None:
                self.left[lo:hi] = self.left_of(fresh)
            self.n = hi
        return out

    def _grow(self, size: int) -> None:
        cap = len(self.dist)
        if size <= cap:
            return
        while cap < size:
            cap *= 2
        extra = cap - len(self.dist)
        self.dist = np.concatenate((self.dist, np.full(extra, np.inf)))
        self.settled = np.concatenate((self.settled, np.zeros(extra, dtype=bool)))
        self.in_open = np.concatenate((self.in_open, np.zeros(extra, dtype=bool)))
        self.pred = np.concatenate((self.pred, np.full(extra, -1, dtype=np.int64)))
        self.bound = np.concatenate((self.bound, np.zeros(extra)))
        self.ipart = np.concatenate((self.ipart, np.zeros(extra, dtype=np.int64)))
        self.irr = np.concatenate((self.irr, np.zeros(extra, dtype=np.int64)))
        self.moves = np.concatenate((self.moves, np.zeros(extra, dtype=np.int32)))
        if self.left_of is not None:
            self.left = np.concatenate((self.left, np.zeros(extra, dtype=np.int32)))
        self.cols = [np.concatenate((c, np.zeros(extra, dtype=np.int32))) for c in self.cols]

    def take(self, ids: np.ndarray) -> StateArrays:
        """The states with the given ids."""
        return StateArrays(*(c[ids] for c in self.cols))

    def velocity(self, i: int) -> tuple[int, int]:
        """(vx, vy) of state i."""
        return int(self.cols[2][i]), int(self.cols[3][i])

    def extend(self, src: np.ndarray, vx: np.ndarray, vy: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
        """Exact lengths (`RadicalForms` pairs) of the paths to `src` plus one move (vx, vy)."""
        assert self.forms is not None
        return self.forms.extend(self.ipart[src], self.irr[src], vx, vy)

    def set_pred(self, t: np.ndarray, src: np.ndarray, dist: np.ndarray) -> None:
        """Targets `t` now come from `src` with float distance `dist` (exact form updated)."""
        if self.forms is not None and len(t):
            self.ipart[t], self.irr[t] = self.extend(src, self.cols[2][t], self.cols[3][t])
        self.dist[t] = dist
        self.pred[t] = src
        self.moves[t] = self.moves[src] + 1

    def open(self, ids: np.ndarray, open_ids: np.ndarray) -> np.ndarray:
        """`open_ids` plus those of the distinct `ids` that are neither settled nor open."""
        new = ids[~self.settled[ids] & ~self.in_open[ids]]
        self.in_open[new] = True
        return np.concatenate((open_ids, new))


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
    `progress(rounds, settled)` is called after each round. `prune=False`
    switches the bound below off (the same result, more states settled).
    `rules`: the rule profile (default: `VectorRaceRules(track)`). `budget` bounds
    the states stored by each of the two searches (`StateLimitReached`).

    Pruning (sound, the result is unchanged): a first best-first search finds
    some arriving trajectory, whose float length plus its error bound is a
    certified upper bound U >= the minimum. The exact search then drops every
    move whose prefix length (float, minus its error bound) plus the
    `finish_distance` of its end exceeds U (plus a margin): no trajectory through
    it is within U, so none is optimal or tied. In `editor` selection the margin
    also covers the 1e-6 tolerance of every move (a trajectory has at most U moves).
    In exact selection the bounding trajectory's exact length and moves also let the
    search leave unexpanded the settled states that can only lose the tie-break
    (`racecert.oracle.yellow_bound.MovesCut`).
    """
    if selection not in ("editor", "exact"):
        raise ValueError(f"selection must be 'editor' or 'exact', not {selection!r}")
    t0 = time.perf_counter()
    exact = selection == "exact"
    rules = rules or VectorRaceRules(track)
    codec = StateCodec(track.width, track.height, rules.phase_limit + 1, keep_phase=True)
    bound_of = finish_distance(track) if prune else None
    forms = RadicalForms() if exact else None
    limit = np.inf
    cut = None
    if bound_of is not None:
        cells = int(track.surface_arrays.drivable.any(axis=0).sum())
        found = upper_bound(rules, codec, _Store(bound_of, forms, moves_to_cross(track)),
                            BOUND_BUDGET_PER_CELL * cells, budget)
        if not found.found:  # nothing arrives, or over budget: no pruning
            bound_of = None
        else:
            u = found.value + float_error(found.value)
            limit = u + 2 * float_error(u + 1.0)
            if not exact:
                limit += 2 * EDITOR_TOLERANCE * (u + 2.0)
            else:
                cut = MovesCut(track, found)
    store = _Store(bound_of, forms)
    start = StateArrays.of([rules.initial_state()])
    start_id = int(store.ids(codec.encode(start), start)[0])
    store.dist[start_id] = 0.0
    # Exact distances, computed only where floats cannot decide: memo of
    # exact(i) = exact(pred(i)) + |v_i|; predecessors are always settled, and an
    # open state's entry is dropped whenever its predecessor changes.
    ex: dict[int, L] = {start_id: zero}
    edges: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    arrivals: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    best_arrival = np.inf
    open_ids = store.open(np.array([start_id], dtype=np.int64), np.zeros(0, dtype=np.int64))
    rounds = settled_total = 0

    def exact_dist(i: int) -> L:
        chain = []
        while i not in ex:
            chain.append(i)
            i = int(store.pred[i])
        value = ex[i]
        for j in reversed(chain):
            value = ex[j] = value + length_of(*store.velocity(j))
        return value

    while len(open_ids):
        d_open = store.dist[open_ids]
        dmin = float(d_open.min())
        if best_arrival < np.inf:
            slack = 2 * float_error(best_arrival + 1.0) if exact else EDITOR_TOLERANCE
            if dmin + 1.0 > best_arrival + slack:
                break  # every later arrival is longer than the best one found
        margin = 2 * float_error(dmin + 2.0) if exact else 0.0
        pick = d_open <= dmin + 1.0 - margin
        batch = np.sort(open_ids[pick])
        open_ids = open_ids[~pick]
        store.in_open[batch] = False
        batch = batch[np.argsort(store.dist[batch], kind="stable")]
        store.settled[batch] = True
        settled_total += len(batch)
        rounds += 1
        states = store.take(batch)
        if cut is not None:
            keep = ~cut(store, batch, states)
            if not keep.all():
                batch, states = batch[keep], states.take(keep)
        exp = rules.expand(states)
        if len(exp.arrive_src):
            a_src = batch[exp.arrive_src]
            avx, avy = exp.arrive_state.vx, exp.arrive_state.vy
            a_len = store.dist[a_src] + np.sqrt((avx * avx + avy * avy).astype(np.float64))
            acc = _acc_index(avx - states.vx[exp.arrive_src], avy - states.vy[exp.arrive_src])
            arrivals.append((a_src, acc, a_len))
            best_arrival = min(best_arrival, float(a_len.min()))
        if len(exp.src):
            e_src, succ = exp.src, exp.succ
            src = batch[e_src]
            cand = store.dist[src] + np.sqrt((succ.vx * succ.vx + succ.vy * succ.vy)
                                             .astype(np.float64))
            if bound_of is not None:
                keep = cand - float_error(cand) + bound_of(succ) <= limit
                if not keep.all():
                    e_src, src, cand, succ = e_src[keep], src[keep], cand[keep], succ.take(keep)
            if len(src):
                uniq, first, inverse = np.unique(codec.encode(succ), return_index=True,
                                                 return_inverse=True)
                uid = store.ids(uniq, succ.take(first))
                dst = uid[inverse]
                edges.append((src, dst, _acc_index(succ.vx - states.vx[e_src],
                                                   succ.vy - states.vy[e_src])))
                live = ~store.settled[dst]
                _relax(store, src[live], dst[live], cand[live], exact, length_of, exact_dist,
                       ex)
                open_ids = store.open(uid, open_ids)
        check(budget, store.n, "yellow search", f"after {rounds} rounds")
        if progress:
            progress(rounds, settled_total)

    if not arrivals:
        return YellowResult(selection, False, None, (), (), (), None, None, exact,
                            settled_total, time.perf_counter() - t0, rounds)
    accs = _select(store, start_id, [np.concatenate(c) for c in zip(*edges, strict=True)]
                   if edges else [np.zeros(0, np.int64)] * 3,
                   [np.concatenate(c) for c in zip(*arrivals, strict=True)],
                   exact, length_of, exact_dist)
    positions, velocities = _replay(rules.initial_state(), accs)
    length = zero
    length_f = 0.0
    for vx, vy in velocities:
        length = length + length_of(vx, vy)
        length_f += math.sqrt(vx * vx + vy * vy)
    return YellowResult(selection, True, len(accs), positions, accs, velocities, length,
                        length_f, exact, settled_total, time.perf_counter() - t0, rounds)


def _acc_index(ax: np.ndarray, ay: np.ndarray) -> np.ndarray:
    """Index of (ax, ay) in ACCELERATIONS (ordered by ay, then ax)."""
    return ((ay.astype(np.int64) + 1) * 3 + (ax.astype(np.int64) + 1))


def _relax(store: _Store, src: np.ndarray, dst: np.ndarray, cand: np.ndarray, exact: bool,
           length_of: Callable[[int, int], L], exact_dist: Callable[[int], L],
           memo: dict[int, L]) -> None:
    """Lower the tentative distances of `dst` to their best candidates.

    Editor selection: plain float minimum. Exact selection: a target whose
    current value and candidates have a unique element within the float error
    bound of their minimum takes it; otherwise the near elements are compared
    exactly — by their integer parts when they share one irrational part
    (`RadicalForms`), else with the caller's exact arithmetic — and exact ties go to
    the path of fewer moves (the current predecessor on a tie of both), so that a
    settled state's `moves` are the fewest over its shortest paths (`MovesCut`).
    """
    if not len(dst):
        return
    targets, inv = np.unique(dst, return_inverse=True)
    m = len(targets)
    best = np.full(m, np.inf)
    np.minimum.at(best, inv, cand)
    cur = store.dist[targets]
    if not exact:
        _set_pred(store, src, inv, cand, targets, best < cur, best)
        return
    lim = np.minimum(cur, best)
    lim = lim + 2 * float_error(lim + 1.0)
    near = cand <= lim[inv]
    cur_near = (cur <= lim) & np.isfinite(cur)
    n_near = np.bincount(inv[near], minlength=m) + cur_near
    easy = (n_near == 1) & (best < cur)
    _set_pred(store, src, inv, cand, targets, easy, best)
    for t in targets[easy].tolist():
        memo.pop(t, None)
    rows = np.nonzero(near & (n_near > 1)[inv])[0]
    if not len(rows):
        return
    g = inv[rows]
    t_rows = targets[g]
    ip, ir = store.extend(src[rows], store.cols[2][t_rows], store.cols[3][t_rows])
    ref = np.zeros(m, dtype=np.int64)
    ref[g] = ir  # one irrational id per group (any row's)
    cur_ip, cur_ir = store.ipart[targets], store.irr[targets]
    mixed = np.bincount(g[ir != ref[g]], minlength=m) > 0
    mixed |= cur_near & (cur_ir != ref)
    ok = ~mixed[g] if TIES_BY_FORMS else np.zeros(len(rows), dtype=bool)
    if ok.any():
        r_ok, g_ok, v_ok = rows[ok], g[ok], ip[ok]
        vmin = np.full(m, np.iinfo(np.int64).max)
        np.minimum.at(vmin, g_ok, v_ok)
        win = np.flatnonzero(v_ok == vmin[g_ok])
        r_w, g_w = r_ok[win], g_ok[win]
        mv = store.moves[src[r_w]] + 1
        by = np.lexsort((mv, g_w))  # per target: the fewest moves first (stable: edge order)
        r_w, g_w, mv = r_w[by], g_w[by], mv[by]
        _, first = np.unique(g_w, return_index=True)
        r_win, g_win, mv_win = r_w[first], g_w[first], mv[first]
        cur_mv = store.moves[targets[g_win]]
        stay = cur_near[g_win] & ((cur_ip[g_win] < vmin[g_win])
                                  | ((cur_ip[g_win] == vmin[g_win]) & (cur_mv <= mv_win)))
        r_win, g_win = r_win[~stay], g_win[~stay]
        t = targets[g_win]
        store.dist[t] = cand[r_win]
        store.pred[t] = src[r_win]
        store.moves[t] = store.moves[src[r_win]] + 1
        store.ipart[t] = vmin[g_win]
        store.irr[t] = ref[g_win]
        for i in t.tolist():
            memo.pop(i, None)
    for r in rows[~ok].tolist():
        t, s = int(dst[r]), int(src[r])
        exact_value = exact_dist(s) + length_of(*store.velocity(t))
        if not np.isfinite(store.dist[t]) or exact_value < (current := exact_dist(t)) or (
                exact_value == current and store.moves[s] + 1 < store.moves[t]):
            memo[t] = exact_value
            store.set_pred(np.array([t]), np.array([s]), np.array([cand[r]]))


def _set_pred(store: _Store, src: np.ndarray, inv: np.ndarray, cand: np.ndarray,
              targets: np.ndarray, mask: np.ndarray, values: np.ndarray) -> None:
    """For each target with `mask`, take the first edge (in edge order) whose candidate
    equals its value (`inv` maps edges to targets)."""
    if not mask.any():
        return
    rows = np.nonzero(mask[inv] & (cand == values[inv]))[0]
    _, first = np.unique(inv[rows], return_index=True)
    rows = rows[first]
    store.set_pred(targets[inv[rows]], src[rows], cand[rows])


def _select(store: _Store, start: int, edges: list[np.ndarray], arrivals: list[np.ndarray],
            exact: bool, length_of: Callable[[int, int], L],
            exact_dist: Callable[[int], L]) -> tuple[tuple[int, int], ...]:
    """The tie-broken best trajectory: min length, then fewer moves, then lexicographic.

    Keeps the tight edges (d(u) + |e| = d(v), exactly or within 1e-6) between
    settled states, takes n(v) = the fewest moves over tight paths, keeps the
    edges with n(v) = n(u) + 1, marks the states that still reach a best
    arrival along them, and walks greedily from the start taking the smallest
    acceleration index that stays on a best trajectory. Every tight edge goes from a
    distance d to d + |v'| >= d + 1, so the propagations are single passes over the edges
    sorted by distance (`racecert.oracle.dag_order`).
    """
    e_src, e_dst, e_acc = edges
    a_src, a_acc, a_len = arrivals
    n = store.n
    dist = store.dist[:n]
    ok = store.settled[e_dst]
    e_src, e_dst, e_acc = e_src[ok], e_dst[ok], e_acc[ok]
    vx, vy = store.cols[2][e_dst], store.cols[3][e_dst]
    step = np.sqrt((vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2).astype(np.float64))
    gap = np.abs(dist[e_src] + step - dist[e_dst])
    amin = float(a_len.min())
    if exact:
        near_arr = np.nonzero(a_len <= amin + 2 * float_error(amin + 1.0))[0]
        acc_xy = np.array(ACCELERATIONS, dtype=np.int64)[a_acc[near_arr]]
        s_near = a_src[near_arr]
        ip, ir = store.extend(s_near, store.cols[2][s_near] + acc_xy[:, 0],
                              store.cols[3][s_near] + acc_xy[:, 1])
        if TIES_BY_FORMS and (ir == ir[0]).all():  # one irrational part: integers decide
            best_arr = near_arr[ip == ip.min()]
        else:
            values: dict[int, L] = {}
            for r in near_arr.tolist():
                s = int(a_src[r])
                ax, ay = ACCELERATIONS[int(a_acc[r])]
                svx, svy = store.velocity(s)
                values[r] = exact_dist(s) + length_of(svx + ax, svy + ay)
            best = min(values.values(), key=_Key)
            best_arr = np.array(sorted(r for r, v in values.items() if v == best),
                                dtype=np.int64)
        # Exactly tight edges are among the float-near ones; only those leading to a best
        # arrival matter, so the exact check is limited to them.
        maybe = gap <= 2 * float_error(dist[e_dst] + 1.0)
        reach = np.zeros(n, dtype=bool)
        reach[a_src[best_arr]] = True
        m_src, m_dst = e_src[maybe], e_dst[maybe]
        mark_sources(m_src, m_dst, np.argsort(-dist[m_dst], kind="stable"), reach)
        tight = np.zeros(len(e_src), dtype=bool)
        rows = np.nonzero(maybe & reach[e_dst])[0]
        if TIES_BY_FORMS:  # equal forms: equal lengths
            ip, ir = store.extend(e_src[rows], vx[rows], vy[rows])
            tight[rows] = (ip == store.ipart[e_dst[rows]]) & (ir == store.irr[e_dst[rows]])
        else:
            for r in rows.tolist():
                tight[r] = (exact_dist(int(e_src[r])) + length_of(int(vx[r]), int(vy[r]))
                            == exact_dist(int(e_dst[r])))
    else:
        tight = gap <= EDITOR_TOLERANCE
        best_arr = np.nonzero(a_len <= amin + EDITOR_TOLERANCE)[0]
    t_src, t_dst, t_acc = e_src[tight], e_dst[tight], e_acc[tight]
    unreached = np.iinfo(np.int64).max // 4
    moves = np.full(n, unreached, dtype=np.int64)
    moves[start] = 0
    # the fewest moves over tight paths: one pass in order of the source's distance
    fewest_moves(t_src, t_dst, np.argsort(dist[t_src], kind="stable"), moves)
    arr_moves = moves[a_src[best_arr]] + 1
    m_best = int(arr_moves.min())
    best_arr = best_arr[arr_moves == m_best]
    keep = moves[t_dst] == moves[t_src] + 1
    t_src, t_dst, t_acc = t_src[keep], t_dst[keep], t_acc[keep]
    good = np.zeros(n, dtype=bool)
    good[a_src[best_arr]] = True
    mark_sources(t_src, t_dst, np.argsort(-dist[t_dst], kind="stable"), good)
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
