"""Yellow: the arriving trajectory of minimum total Euclidean length (SPEC §5.1).

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
  editor does (seed, limit 2). The chosen trajectory's length is then rebuilt
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

Layering: this module must not import `racecert.verify`; the exact arithmetic
comes in as `length_of(vx, vy)` and `zero`, values of any type satisfying
`OrderedAdditive`.

>>> from racecert.model.parse import load_track  # doctest: +SKIP
>>> from racecert.verify.radicals import RadicalSum  # doctest: +SKIP
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

from racecert.model.rules import ACCELERATIONS, CarState, StateArrays, VectorRaceRules
from racecert.model.states import StateCodec
from racecert.model.track import Track

Selection = Literal["editor", "exact"]
EDITOR_TOLERANCE = 1e-6
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
    shorter. `states_settled` counts states whose distance became final.
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


ProgressFn = Callable[[int, int], None]  # (rounds, states settled)


class _Store:
    """Growable per-state arrays indexed by a dense state id, and the key -> id map."""

    FIELDS = 7

    def __init__(self) -> None:
        self.index: dict[int, int] = {}
        self.n = 0
        self.dist = np.full(1024, np.inf)
        self.settled = np.zeros(1024, dtype=bool)
        self.pred = np.full(1024, -1, dtype=np.int64)
        self.cols = [np.zeros(1024, dtype=np.int32) for _ in range(self.FIELDS)]

    def ids(self, keys: np.ndarray, states: StateArrays) -> np.ndarray:
        """Dense ids for the distinct `keys` of `states` (unseen keys get new ids)."""
        out = np.empty(len(keys), dtype=np.int64)
        new_rows: list[int] = []
        index = self.index
        for i, k in enumerate(keys.tolist()):
            j = index.get(k)
            if j is None:
                j = index[k] = self.n + len(new_rows)
                new_rows.append(i)
            out[i] = j
        if new_rows:
            rows = np.array(new_rows, dtype=np.int64)
            lo, hi = self.n, self.n + len(rows)
            self._grow(hi)
            for col, field in zip(self.cols, states.fields(), strict=True):
                col[lo:hi] = field[rows]
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
        self.pred = np.concatenate((self.pred, np.full(extra, -1, dtype=np.int64)))
        self.cols = [np.concatenate((c, np.zeros(extra, dtype=np.int32))) for c in self.cols]

    def take(self, ids: np.ndarray) -> StateArrays:
        """The states with the given ids."""
        return StateArrays(*(c[ids] for c in self.cols))

    def velocity(self, i: int) -> tuple[int, int]:
        """(vx, vy) of state i."""
        return int(self.cols[2][i]), int(self.cols[3][i])


def shortest_trajectory(
    track: Track,
    selection: Selection = "exact",
    *,
    length_of: Callable[[int, int], L],
    zero: L,
    progress: ProgressFn | None = None,
) -> YellowResult[L]:
    """The yellow trajectory: minimum Σ|v'| over arriving trajectories.

    `length_of(vx, vy)` is the exact length of one move and `zero` the empty
    length, in an `OrderedAdditive` type (racecert passes `RadicalSum`).
    `progress(rounds, settled)` is called after each round.
    """
    if selection not in ("editor", "exact"):
        raise ValueError(f"selection must be 'editor' or 'exact', not {selection!r}")
    t0 = time.perf_counter()
    exact = selection == "exact"
    rules = VectorRaceRules(track)
    codec = StateCodec(track.width, track.height, rules.phase_limit + 1, keep_phase=True)
    store = _Store()
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
    open_ids = np.array([start_id], dtype=np.int64)
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
        batch = open_ids[pick]
        open_ids = open_ids[~pick]
        batch = batch[np.argsort(store.dist[batch], kind="stable")]
        store.settled[batch] = True
        settled_total += len(batch)
        rounds += 1
        states = store.take(batch)
        exp = rules.expand(states)
        if len(exp.arrive_src):
            a_src = batch[exp.arrive_src]
            avx, avy = exp.arrive_state.vx, exp.arrive_state.vy
            a_len = store.dist[a_src] + np.sqrt((avx * avx + avy * avy).astype(np.float64))
            acc = _acc_index(avx - states.vx[exp.arrive_src], avy - states.vy[exp.arrive_src])
            arrivals.append((a_src, acc, a_len))
            best_arrival = min(best_arrival, float(a_len.min()))
        if len(exp.src):
            src = batch[exp.src]
            svx, svy = exp.succ.vx, exp.succ.vy
            cand = store.dist[src] + np.sqrt((svx * svx + svy * svy).astype(np.float64))
            uniq, first, inverse = np.unique(codec.encode(exp.succ), return_index=True,
                                             return_inverse=True)
            dst = store.ids(uniq, exp.succ.take(first))[inverse]
            edges.append((src, dst, _acc_index(svx - states.vx[exp.src],
                                               svy - states.vy[exp.src])))
            live = ~store.settled[dst]
            _relax(store, src[live], dst[live], cand[live], exact, length_of, exact_dist, ex)
            open_ids = np.union1d(open_ids, dst[live])
        if progress:
            progress(rounds, settled_total)

    if not arrivals:
        return YellowResult(selection, False, None, (), (), (), None, None, exact,
                            settled_total, time.perf_counter() - t0)
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
                        length_f, exact, settled_total, time.perf_counter() - t0)


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
    exactly (ties keep the current predecessor: distances are equal).
    """
    if not len(dst):
        return
    n = store.n
    best = np.full(n, np.inf)
    np.minimum.at(best, dst, cand)
    targets = np.unique(dst)
    cur = store.dist[targets]
    new = best[targets]
    if not exact:
        better = new < cur
        _set_pred(store, src, dst, cand, targets[better], new[better])
        return
    lo = np.minimum(cur, new)
    margin = 2 * float_error(lo + 1.0)
    lim = np.full(n, -np.inf)
    lim[targets] = lo + margin
    near = cand <= lim[dst]
    n_near = np.bincount(dst[near], minlength=n)[targets] + (cur <= lo + margin)
    easy = (n_near == 1) & (new < cur)
    _set_pred(store, src, dst, cand, targets[easy], new[easy])
    for t in targets[easy].tolist():
        memo.pop(t, None)
    hard = np.zeros(n, dtype=bool)
    hard[targets[n_near > 1]] = True
    for r in np.nonzero(near & hard[dst])[0].tolist():
        t, s = int(dst[r]), int(src[r])
        value = exact_dist(s) + length_of(*store.velocity(t))
        if not np.isfinite(store.dist[t]) or value < exact_dist(t):
            memo[t] = value
            store.dist[t] = cand[r]
            store.pred[t] = s


def _set_pred(store: _Store, src: np.ndarray, dst: np.ndarray, cand: np.ndarray,
              targets: np.ndarray, values: np.ndarray) -> None:
    """For each target, take the first edge (in edge order) whose candidate equals its value."""
    if not len(targets):
        return
    val = np.full(store.n, np.nan)
    val[targets] = values
    rows = np.nonzero(cand == val[dst])[0]
    _, first = np.unique(dst[rows], return_index=True)
    rows = rows[first]
    store.dist[dst[rows]] = cand[rows]
    store.pred[dst[rows]] = src[rows]


def _select(store: _Store, start: int, edges: list[np.ndarray], arrivals: list[np.ndarray],
            exact: bool, length_of: Callable[[int, int], L],
            exact_dist: Callable[[int], L]) -> tuple[tuple[int, int], ...]:
    """The tie-broken best trajectory: min length, then fewer moves, then lexicographic.

    Keeps the tight edges (d(u) + |e| = d(v), exactly or within 1e-6) between
    settled states, takes n(v) = the fewest moves over tight paths, keeps the
    edges with n(v) = n(u) + 1, marks the states that still reach a best
    arrival along them, and walks greedily from the start taking the smallest
    acceleration index that stays on a best trajectory.
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
        values: dict[int, L] = {}
        for r in np.nonzero(a_len <= amin + 2 * float_error(amin + 1.0))[0].tolist():
            s = int(a_src[r])
            ax, ay = ACCELERATIONS[int(a_acc[r])]
            svx, svy = store.velocity(s)
            values[r] = exact_dist(s) + length_of(svx + ax, svy + ay)
        best = min(values.values(), key=_Key)
        best_arr = np.array(sorted(r for r, v in values.items() if v == best), dtype=np.int64)
        # Exactly tight edges are among the float-near ones; only those leading to a best
        # arrival matter, so the exact check is limited to them.
        maybe = gap <= 2 * float_error(dist[e_dst] + 1.0)
        reach = np.zeros(n, dtype=bool)
        reach[a_src[best_arr]] = True
        m_src, m_dst = e_src[maybe], e_dst[maybe]
        while True:
            before = int(reach.sum())
            reach[m_src[reach[m_dst]]] = True
            if int(reach.sum()) == before:
                break
        tight = np.zeros(len(e_src), dtype=bool)
        for r in np.nonzero(maybe & reach[e_dst])[0].tolist():
            tight[r] = (exact_dist(int(e_src[r])) + length_of(int(vx[r]), int(vy[r]))
                        == exact_dist(int(e_dst[r])))
    else:
        tight = gap <= EDITOR_TOLERANCE
        best_arr = np.nonzero(a_len <= amin + EDITOR_TOLERANCE)[0]
    t_src, t_dst, t_acc = e_src[tight], e_dst[tight], e_acc[tight]
    unreached = np.iinfo(np.int64).max // 4
    moves = np.full(n, unreached, dtype=np.int64)
    moves[start] = 0
    while True:  # Bellman-Ford on the tight DAG: at most (moves of the longest path) rounds
        before = moves.copy()
        np.minimum.at(moves, t_dst, moves[t_src] + 1)
        if np.array_equal(before, moves):
            break
    arr_moves = moves[a_src[best_arr]] + 1
    m_best = int(arr_moves.min())
    best_arr = best_arr[arr_moves == m_best]
    keep = moves[t_dst] == moves[t_src] + 1
    t_src, t_dst, t_acc = t_src[keep], t_dst[keep], t_acc[keep]
    good = np.zeros(n, dtype=bool)
    good[a_src[best_arr]] = True
    while True:
        before = good.copy()
        good[t_src[good[t_dst]]] = True
        if np.array_equal(before, good):
            break
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
