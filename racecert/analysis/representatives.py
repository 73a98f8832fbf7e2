"""Green and blue: the shortest and longest optimal trajectories, exactly (docs/report.md).

A dynamic programme over the optimal DAG (`OptimalDag`) keeps, per DAG state,
the minimum (or maximum) Euclidean length of a path from the initial state,
the exact number of paths achieving it (a Python int) and one representative.

Exactness: float lengths are sums along one path, so their error is bounded
by `float_error`; two candidates further apart than twice that are ordered by
the floats, nearer ones are compared exactly. All moves into one DAG state have
the same velocity, hence the same length, so candidates into a state are
compared by their sources' exact values. An exact value is kept as integers
(`_Radicands`: the integer part, and the coefficient of each square-free radicand
of the DAG's move lengths), one value per state of the layer being extended, built
from the representative's at once for the whole layer (`_extend_terms`, compiled);
the irrational terms are a sparse row (radicand columns ascending, then padding),
as wide as the most radicands one trajectory uses, not as the track's moves have
(hundreds on a large open area: dense rows took about 1.6 GB of a 1000 x 1000
analysis). Equal values are equal rows; values whose irrational terms agree are
ordered by their integer parts (all the tied states of a layer at once: on a
corridor almost every move and tie is of integer length), and only values whose
irrational terms differ and that floats cannot order go to the certified
`RadicalSum` comparison. Only the layer being extended is kept, and only one of
the two passes is alive at a time.

Representative (deterministic, documented in docs/report.md): among tied
trajectories, the lexicographically smallest sequence of accelerations, each
ranked by ay, then ax, ascending (`racecert.model.rules.acceleration_set`'s
order) — the same tie-break as yellow. Prefixes of an extreme path are
extreme, and "lexicographically smallest" extends prefix by prefix, so the
choice is made per layer: the winning move of least (rank of its source's
representative, acceleration) into each state (`_choose`), and the layer's
representatives ranked by the same pair for the next.

Eligibility (the library's continuable arrivals) only filters the last,
arriving move; each `select` call runs both passes over the whole DAG again (one
after the other: only one pass's arrays are alive at a time).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from racecert.analysis.trajectory import Trajectory
from racecert.model.heap import trim_heap
from racecert.model.radicals import RadicalSum, squarefree_decomposition
from racecert.model.unique import unique_sorted
from racecert.oracle.bfs import OptimalDag
from racecert.oracle.dijkstra import float_error
from racecert.oracle.yellow_kernel import float_error_one


@dataclass(frozen=True)
class Extreme:
    """The extreme length among the selected optimal trajectories.

    `ties` is the exact number of selected optimal trajectories of exactly
    `length`; `trajectory` the representative.
    """

    length: RadicalSum
    ties: int
    trajectory: Trajectory


_REACH = 64
"""Accelerations up to this size per component are ranked (`_acc_index`)."""
_SPAN = 2 * _REACH + 1


@njit(cache=True, nogil=True, inline="always")
def _acc_rank(ax, ay):
    """The rank of acceleration (ax, ay): ay, then ax, ascending (`acceleration_set`'s
    order, for any profile's set)."""
    return (np.int64(ay) + _REACH) * _SPAN + (np.int64(ax) + _REACH)


@njit(cache=True, nogil=True)
def _acc_ranks(ax, ay, out):
    """`_acc_rank` of each acceleration (ax[i], ay[i]), into out."""
    for i in range(len(ax)):
        out[i] = _acc_rank(ax[i], ay[i])


def _acc_index(ax: np.ndarray, ay: np.ndarray) -> np.ndarray:
    """`_acc_rank` of each acceleration (ax[i], ay[i])."""
    out = np.empty(len(ax), dtype=np.int64)
    _acc_ranks(ax, ay, out)
    return out


def _acceleration(index: int) -> tuple[int, int]:
    """The acceleration of rank `index` (`_acc_index`'s inverse)."""
    return (index % _SPAN - _REACH, index // _SPAN - _REACH)


def _n2(vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    return vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2


def _norm(vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    return np.sqrt(_n2(vx, vy).astype(np.float64))


class _Radicands:
    """The square-free radicands of a DAG's move lengths as columns: column 0 counts 1,
    column c > 0 counts sqrt(d_c), so a sum of moves is a row of integer coefficients
    (kept sparse by `_extend_terms`), two sums are equal exactly when their rows are, and
    two whose radicand columns agree are ordered by column 0."""

    def __init__(self, n2: np.ndarray) -> None:
        self.n2 = unique_sorted(n2)
        cols: dict[int, int] = {1: 0}
        col, k = [], []
        for n in self.n2.tolist():
            kk, d = squarefree_decomposition(n) if n else (0, 1)
            col.append(cols.setdefault(d, len(cols)))
            k.append(kk)
        self.radicands = list(cols)  # d of each column
        self.col = np.array(col, dtype=np.int64)
        self.k = np.array(k, dtype=np.int64)

    def of(self, n2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per move (its vx² + vy², one of those given), the column and the coefficient
        its length adds."""
        i = np.searchsorted(self.n2, n2)
        return self.col[i], self.k[i]


@njit(cache=True, nogil=True)
def _extend_terms(ip, ic, ik, pred, col, k, out_ip, out_ic, out_ik, none):
    """Each state's exact length: its representative's (integer part ip[pred[j]]; the
    irrational terms in row pred[j] of ic, ik: radicand columns ascending, then `none`
    padding) plus k[j]·sqrt of column col[j] (column 0: the integer part), into out_ip,
    out_ic, out_ik (one column wider). Returns the widest row written."""
    widest = 0
    w = ic.shape[1]
    for j in range(len(pred)):
        p, c = pred[j], col[j]
        out_ip[j] = ip[p] + (k[j] if c == 0 else 0)
        placed = c == 0
        q = 0
        for e in range(w):
            cc = ic[p, e]
            if cc == none:
                break
            if not placed and c < cc:
                out_ic[j, q], out_ik[j, q] = c, k[j]
                q += 1
                placed = True
            out_ic[j, q], out_ik[j, q] = cc, ik[p, e]
            if cc == c:
                out_ik[j, q] += k[j]
                placed = True
            q += 1
        if not placed:
            out_ic[j, q], out_ik[j, q] = c, k[j]
            q += 1
        widest = max(widest, q)
        for e in range(q, out_ic.shape[1]):
            out_ic[j, e], out_ik[j, e] = none, 0
    return widest


@njit(cache=True, nogil=True)
def _near_extremes(f, norm, src, dst, d0, sign, best, near):
    """One layer's float extremes: of the candidates f[src[j]] + norm[dst[j]] into each
    target i = dst[j] - d0, best[i] the least (sign +1) or the greatest (sign -1); near[j]
    1 where candidate j is within twice the float error (`float_error`) of its target's
    and the only such one, 2 where its target has several (they are compared exactly), 0
    where it is further. Returns how many candidates are marked 2."""
    for i in range(len(best)):
        best[i] = np.inf
    for j in range(len(src)):
        v = sign * (f[src[j]] + norm[dst[j]])
        if v < best[dst[j] - d0]:
            best[dst[j] - d0] = v
    n_near = np.zeros(len(best), dtype=np.int64)
    for i in range(len(best)):
        best[i] = sign * best[i]
    for j in range(len(src)):
        b = best[dst[j] - d0]
        near[j] = sign * (f[src[j]] + norm[dst[j]] - b) <= 2 * float_error_one(abs(b) + 1.0)
        n_near[dst[j] - d0] += near[j]
    tied = 0
    for j in range(len(src)):
        if near[j] and n_near[dst[j] - d0] > 1:
            near[j] = 2
            tied += 1
    return tied


@njit(cache=True, nogil=True)
def _choose(src, dst, d0, winners, rank, avx, avy, bvx, bvy, pred, pacc):
    """The representative of each target i = dst[j] - d0 (pred[i], pacc[i]): among the
    winning moves into it (winners[j]), the one of smallest (rank of its source's
    representative, acceleration: `_acc_rank` of the move from layer a's state src[j] to
    layer b's dst[j], whose velocities are avx, avy and bvx, bvy)."""
    top = np.iinfo(np.int64).max
    best_rank = np.full(len(pred), top, dtype=np.int64)
    best_acc = np.full(len(pred), top, dtype=np.int64)
    for j in range(len(dst)):
        if not winners[j]:
            continue
        s, t = src[j], dst[j]
        i, r = t - d0, np.int64(rank[s])
        a = _acc_rank(bvx[t] - avx[s], bvy[t] - avy[s])
        if r < best_rank[i] or (r == best_rank[i] and a < best_acc[i]):
            best_rank[i], best_acc[i] = r, a
            pred[i], pacc[i] = s, a


CHUNK_EDGES = 1 << 20
"""A layer's moves are taken this many at a time (rounded to whole groups of moves into one
state), so the DP's temporaries over moves (a dozen arrays) stay bounded however wide the
layer (a large open area has tens of millions of moves into a layer)."""


def _dst_chunks(dst: np.ndarray, n: int, size: int) -> list[tuple[int, int, int, int]]:
    """Ranges e0:e1 of `dst` (the target states, among n, of a layer's moves) of about
    `size` entries that split no group of equal values, each with the first state d0 and
    the number m of states it covers: `dst` ascends (the BFS lists a layer's moves by
    target state); where it does not, one range over every state.

    >>> _dst_chunks(np.array([0, 0, 1, 1, 1, 2, 3, 3]), 4, 3)
    [(0, 2, 0, 1), (2, 5, 1, 1), (5, 8, 2, 2)]
    """
    if len(dst) <= size or bool(np.any(dst[1:] < dst[:-1])):
        return [(0, len(dst), 0, n)]
    cuts = [0]
    pos = size
    while pos < len(dst):
        c = int(np.searchsorted(dst, dst[pos], "left"))
        if c <= cuts[-1]:  # one group longer than a chunk: it ends the chunk
            c = int(np.searchsorted(dst, dst[pos], "right"))
        if c >= len(dst):
            break
        cuts.append(c)
        pos = c + size
    cuts.append(len(dst))
    return [(e0, e1, int(dst[e0]), int(dst[e1 - 1] - dst[e0]) + 1)
            for e0, e1 in zip(cuts[:-1], cuts[1:], strict=True)]


_COUNT_LIMIT = 2**62
"""Tie counts are int64 while no sum of them can reach this (`_count_type`)."""


def _count_type(count: np.ndarray, dst: np.ndarray) -> type:
    """The type for the next layer's tie counts: int64 where every sum is exact in it (the
    largest count so far times the most moves into one state stays below `_COUNT_LIMIT`),
    else Python ints (object), for good once counts have grown that large (on the
    30-ply serpentine benchmark green ties 20,752,587,082,923,245,568 trajectories).

    >>> _count_type(np.array([3, 5]), np.array([0, 0, 1]))
    <class 'numpy.int64'>
    >>> _count_type(np.array([2**61]), np.array([0, 0]))
    <class 'object'>
    """
    if count.dtype == object or not len(dst):
        return object if count.dtype == object else np.int64
    top = int(count.max())
    if top * len(dst) < _COUNT_LIMIT or top * int(np.bincount(dst).max()) < _COUNT_LIMIT:
        return np.int64
    return object


class _Pass:
    """One forward DP (sign +1: minimum, -1: maximum) over the DAG layers."""

    def __init__(self, dag: OptimalDag, sign: int, rad: _Radicands, dtype: type) -> None:
        self.dag = dag
        self.sign = sign
        self.rad, self.dtype = rad, dtype
        layers = dag.layers
        # the newest layer's float extremes, tie counts and ranks of the representatives'
        # trajectories (each layer's are dropped once the next one's are built: only the
        # last layer's are read at the end)
        self.f = np.zeros(1)
        # int64 while no sum can pass 2^62 (`_count_type`), then Python ints
        self.count = np.array([1], dtype=np.int64)
        self.rank = np.zeros(1, dtype=np.int32)
        # per layer: the representative's source (int32: a layer holds < 2^31 states) and
        # its last acceleration (`_acc_index` < 2^15)
        self.pred: list[np.ndarray] = [np.full(1, -1, dtype=np.int32)]
        self.acc: list[np.ndarray] = [np.full(1, -1, dtype=np.int16)]
        # the exact extreme lengths of the layer being extended only (the last layer gets
        # none: layer m* - 2's stay, and `select` builds the few it needs from them): the
        # integer parts, and the irrational terms as sparse rows (radicand columns
        # ascending, `none` padding; coefficients)
        self.none = len(rad.radicands)
        cdt = np.int16 if self.none < np.iinfo(np.int16).max else np.int32
        self.rows = (np.zeros(1, dtype=np.int64), np.zeros((1, 0), dtype=cdt),
                     np.zeros((1, 0), dtype=dtype))
        # the velocities of layers t and t + 1, read once per layer (a packed layer widens
        # its columns on every read)
        vel = (layers[0].vx, layers[0].vy)
        for t, (src, dst) in enumerate(dag.edges):
            n = len(layers[t + 1])
            vel = (*vel[-2:], layers[t + 1].vx, layers[t + 1].vy)
            n2 = _n2(*vel[2:])
            norm = np.sqrt(n2.astype(np.float64))
            count = np.zeros(n, dtype=_count_type(self.count, dst))
            if count.dtype != self.count.dtype:
                self.count = self.count.astype(object)
            pred = np.empty(n, dtype=np.int32)
            pacc = np.empty(n, dtype=np.int16)
            best = np.empty(n)
            for e0, e1, d0, m in _dst_chunks(dst, n, CHUNK_EDGES):
                best[d0: d0 + m] = self._moves_into(src[e0:e1], dst[e0:e1], d0, m, norm, vel,
                                                    count, pred, pacc)
            rank = np.empty(n, dtype=np.int32)
            rank[np.lexsort((pacc, self.rank[pred]))] = np.arange(n, dtype=np.int32)
            # the exact extreme lengths of layer t + 1: the representatives' (one row each),
            # but for the last layer, whose few that `select` needs it builds from layer t's
            if t + 2 < len(layers):
                self.rows = self._plus(self.rows, pred, n2)
            self.f, self.count, self.rank = best, count, rank
            self.pred.append(pred)
            self.acc.append(pacc)

    def _moves_into(self, src: np.ndarray, dst: np.ndarray, d0: int, m: int,
                    norm: np.ndarray, vel: tuple[np.ndarray, ...], count: np.ndarray,
                    pred: np.ndarray, pacc: np.ndarray) -> np.ndarray:
        """Layer t + 1's tie counts and representatives (into count, pred, pacc) for its
        states d0 ... d0 + m - 1, from every move into them: sources `src` and targets
        `dst` (a chunk of `_dst_chunks`); `norm` is each layer t + 1 state's move length,
        `vel` the velocities (vx, vy) of layer t's states, then of layer t + 1's.
        Returns those states' float extremes."""
        winners, best = self._winners(src, dst, d0, m, norm)
        w = np.flatnonzero(winners)
        np.add.at(count[d0: d0 + m], dst[w] - d0, self.count[src[w]])
        # representative: smallest (source rank, acceleration) among winners
        _choose(src, dst, d0, winners, self.rank, *vel, pred[d0: d0 + m], pacc[d0: d0 + m])
        return best

    def _plus(self, rows: tuple[np.ndarray, np.ndarray, np.ndarray], pred: np.ndarray,
              n2: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Sparse rows (ip, ic, ik): row pred[j] of `rows` plus a move of squared length
        n2[j], for each j (`_extend_terms`), no wider than they need."""
        ip0, ic0, ik0 = rows
        n, w = len(pred), ic0.shape[1] + 1
        ip = np.empty(n, dtype=np.int64)
        ic = np.empty((n, w), dtype=ic0.dtype)
        ik = np.empty((n, w), dtype=ik0.dtype)
        widest = _extend_terms(ip0, ic0, ik0, pred.astype(np.int32, copy=False), *self.rad.of(n2),
                               ip, ic, ik, self.none)
        if widest < w:  # no row needs the extra column (or fewer): as narrow as they need
            ic, ik = ic[:, :widest].copy(), ik[:, :widest].copy()
        return ip, ic, ik

    def _sparse_value(self, r: int, ip: np.ndarray, ic: np.ndarray, ik: np.ndarray
                      ) -> RadicalSum:
        """The exact length of row r of sparse rows (ip, ic, ik)."""
        terms = [(self.rad.radicands[c], k) for c, k in zip(ic[r].tolist(), ik[r].tolist(),
                                                              strict=True) if c != self.none]
        return RadicalSum.from_terms([*terms, (1, int(ip[r]))])

    def _plus_moves(self, rows: np.ndarray, n2: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The exact lengths of the last layer's states `rows`, each plus one move of
        squared length n2 (the arriving moves), as sparse rows (ip, ic, ik): built from
        the kept rows of the layer before (the last layer, the widest, never has rows of
        its own)."""
        last = len(self.dag.layers) - 1
        here = self.rows
        if last:
            b = self.dag.layers[last]
            here = self._plus(here, self.pred[last][rows], _n2(b.vx[rows], b.vy[rows]))
            rows = np.arange(len(rows))
        return self._plus(here, rows, n2)

    def _extremes(self, ip: np.ndarray, ic: np.ndarray, ik: np.ndarray, group: np.ndarray,
                  n_groups: int) -> np.ndarray:
        """Mask of the exact values (sparse rows ip, ic, ik) that are the least (sign +1) or
        greatest (sign -1) of their group's. Where a group's values share their irrational
        terms (on a corridor, nearly all), the integer parts decide, for all such groups at
        once; the others are compared exactly (`RadicalSum`)."""
        s = self.sign
        _, lead = np.unique(group, return_index=True)
        leader = np.empty(n_groups, dtype=np.int64)
        leader[group[lead]] = lead
        lead_of = leader[group]
        same = (ic == ic[lead_of]).all(axis=1) & (ik == ik[lead_of]).all(axis=1)
        uniform = np.ones(n_groups, dtype=bool)
        uniform[group[~same]] = False
        u = uniform[group]
        col0 = s * ip.astype(np.int64)
        ext = np.full(n_groups, np.iinfo(np.int64).max)
        np.minimum.at(ext, group[u], col0[u])
        win = np.zeros(len(group), dtype=bool)
        win[u] = col0[u] == ext[group[u]]
        mixed = np.nonzero(~u)[0]
        if len(mixed):
            by_group: dict[int, list[int]] = {}
            for r in mixed.tolist():
                by_group.setdefault(int(group[r]), []).append(r)
            for rs in by_group.values():
                values = [self._sparse_value(r, ip, ic, ik) for r in rs]
                e = values[0]
                for v in values[1:]:
                    if (v < e) if s > 0 else (e < v):
                        e = v
                for r, v in zip(rs, values, strict=True):
                    win[r] = v == e
        return win

    def _winners(self, src: np.ndarray, dst: np.ndarray, d0: int, n: int, norm: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Mask of the moves src -> dst achieving the exact extreme into each of the n
        targets dst - d0 (`norm`: each target's move length), and the float extremes."""
        best = np.empty(n)
        near = np.empty(len(dst), dtype=np.uint8)
        tied = _near_extremes(self.f, norm, src, dst, d0, self.sign, best, near)
        winners = near != 0
        if tied:
            rows = np.flatnonzero(near == 2)
            at = src[rows]
            ip, ic, ik = (a[at] for a in self.rows)
            winners[rows] = self._extremes(ip, ic, ik, dst[rows] - d0, n)
        return winners, best

    def select(self, eligible: np.ndarray | None, start: tuple[int, int],
               velocity: tuple[int, int] = (0, 0)) -> Extreme | None:
        """The extreme among arrivals with `eligible[i]` (all when None); None if none.

        `start` and `velocity` are the position and velocity of the DAG's initial state.
        The arrivals' float lengths are taken a chunk at a time, once (a large open area
        has millions of arriving moves); only those within the float error of the extreme
        are looked at further (`_near_least`).
        """
        dag = self.dag
        last = len(dag.layers) - 1
        n_arr = len(dag.arrive_src)
        if eligible is not None and len(eligible) != n_arr:
            raise ValueError(f"eligible has {len(eligible)} entries for {n_arr} arrivals")
        if not n_arr or (eligible is not None and not eligible.any()):
            return None

        def parts() -> Iterator[tuple[np.ndarray, np.ndarray]]:
            for lo in range(0, n_arr, CHUNK_EDGES):
                rows = np.arange(lo, min(lo + CHUNK_EDGES, n_arr))
                if eligible is not None:
                    rows = rows[eligible[lo: lo + CHUNK_EDGES]]
                if len(rows):
                    yield rows, self.sign * self._arrival_lengths(rows)

        rows = _near_least(parts())
        src = dag.arrive_src[rows]
        vx, vy = dag.arrive_state.velocities(rows)
        a = dag.layers[last]
        dx, dy = _arrival_moves(self.dag, rows)
        ip, ic, ik = self._plus_moves(src, dx ** 2 + dy ** 2)
        best = self._extremes(ip, ic, ik, np.zeros(len(rows), dtype=np.int64), 1)
        win = np.flatnonzero(best).tolist()
        ties = sum(int(self.count[int(src[r])]) for r in win)
        acc = _acc_index(vx - a.vx[src], vy - a.vy[src])
        r_best = min(win, key=lambda r: (int(self.rank[int(src[r])]), int(acc[r])))
        accs = [int(acc[r_best])]
        i = int(src[r_best])
        for t in range(last, 0, -1):
            accs.append(int(self.acc[t][i]))
            i = int(self.pred[t][i])
        accs.reverse()
        traj = Trajectory.replay(start, tuple(_acceleration(k) for k in accs), velocity)
        # the last point is where the run ended (p + v', or a cell-path goal cell), in the
        # caller's frame (a lattice track's file's): the one before it plus the displacement
        px, py = traj.positions[-2]
        traj = Trajectory((*traj.positions[:-1], (px + int(dx[r_best]), py + int(dy[r_best]))),
                          traj.accelerations)
        length = self._sparse_value(win[0], ip, ic, ik)
        return Extreme(length, int(ties), traj)

    def _arrival_lengths(self, rows: np.ndarray) -> np.ndarray:
        """The float lengths of the trajectories extreme up to arriving moves `rows`."""
        dx, dy = _arrival_moves(self.dag, rows)
        return self.f[self.dag.arrive_src[rows]] + _norm(dx, dy)


def _near_least(parts: Iterable[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The rows whose float value is within twice the float error (`float_error`) of the
    least value, in their order, from (rows, values) parts read once.

    Each part keeps its rows within twice that of the least value so far; whatever is
    within it of the final least is among them (the least so far is no less than the
    final one, and a value that near it has an error bound more than half of its), and
    the final cut is made on those.

    >>> _near_least([(np.array([0, 1]), np.array([5.0, 9.0])), (np.array([2]), np.array([5.0]))])
    array([0, 2])
    """
    least = np.inf
    kept_rows, kept = [], []
    for rows, value in parts:
        least = min(least, float(value.min()))
        close = value - least <= 4 * float_error(np.abs(value) + 1.0)
        kept_rows.append(rows[close])
        kept.append(value[close])
    tol = 2 * float_error(abs(least) + 1.0)
    return np.concatenate(kept_rows)[np.concatenate(kept) - least <= tol]


def _arrival_moves(dag: OptimalDag, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The displacement (int64) of arriving moves `rows`: from its source to where the run
    ends (p + v', or on a cell-path track the goal cell its walk reached: docs/rules.md
    section 10)."""
    src, a = dag.arrive_src[rows], dag.layers[-1]
    x, y = dag.arrive_state.positions(rows)
    return x.astype(np.int64) - a.x[src], y.astype(np.int64) - a.y[src]


@dataclass(frozen=True)
class Representatives:
    """Green (minimum length) and blue (maximum length) among the selected optimal trajectories."""

    green: Extreme
    blue: Extreme


class RepresentativeDP:
    """Forward passes over one optimal DAG; `select` picks green/blue among eligible arrivals.

    >>> # dp = RepresentativeDP(bfs.dag, track.car.position); dp.select().green.ties
    """

    def __init__(self, dag: OptimalDag, start: tuple[int, int],
                 velocity: tuple[int, int] = (0, 0)) -> None:
        self.start = start
        self.velocity = velocity  # of the initial state: (0, 0) from the grid, else a race's
        layers = dag.layers
        arrival_n2 = []  # the arrivals' moves a chunk at a time: there may be tens of millions
        for lo in range(0, len(dag.arrive_src), CHUNK_EDGES):
            rows = np.arange(lo, min(lo + CHUNK_EDGES, len(dag.arrive_src)))
            a_dx, a_dy = _arrival_moves(dag, rows)
            arrival_n2.append(unique_sorted(a_dx**2 + a_dy**2))
        n2 = unique_sorted(np.concatenate(arrival_n2
                                          + [unique_sorted(_n2(b.vx, b.vy)) for b in layers[1:]]))
        rad = _Radicands(n2)
        # every entry is at most (moves) x (the longest move): the narrowest integers that
        # hold it (the rows are copied layer by layer)
        top = (len(layers) + 1) * (math.isqrt(int(n2.max(initial=0))) + 1)
        self.dag, self.rad = dag, rad
        self.dtype = next(d for d in (np.int16, np.int32, np.int64) if top < np.iinfo(d).max)

    def select(self, eligible: Sequence[bool] | np.ndarray | None = None
               ) -> Representatives | None:
        """Green and blue among arrivals with `eligible[i]` (aligned with dag.arrive_src).

        Runs the two passes one after the other, each dropped once its extreme is chosen,
        so only one pass's per-state arrays are alive at a time (on a large open area they
        are hundreds of megabytes); every call runs them again."""
        mask = None if eligible is None else np.asarray(eligible, dtype=bool)
        g = _Pass(self.dag, +1, self.rad, self.dtype).select(mask, self.start, self.velocity)
        if g is None:
            return None
        trim_heap()  # the first pass's pages back to the system (`racecert.model.heap`)
        b = _Pass(self.dag, -1, self.rad, self.dtype).select(mask, self.start, self.velocity)
        if b is None:
            return None
        return Representatives(g, b)
