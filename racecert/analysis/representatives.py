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
`RadicalSum` comparison. Only the layer being extended is kept: the arrivals'
values are rebuilt along their representatives when `select` needs them.

Representative (deterministic, documented in docs/report.md): among tied
trajectories, the lexicographically smallest sequence of accelerations, each
ranked by ay, then ax, ascending (`racecert.model.rules.acceleration_set`'s
order) — the same tie-break as yellow. Prefixes of an extreme path are
extreme, and "lexicographically smallest" extends prefix by prefix, so the
choice is made per layer by sorting (rank of the source's representative,
acceleration).

Eligibility (the library's continuable arrivals) only filters the last,
arriving move, so one forward pass serves every `select` call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from racecert.analysis.trajectory import Trajectory
from racecert.model.radicals import RadicalSum, squarefree_decomposition
from racecert.oracle.bfs import OptimalDag
from racecert.oracle.dijkstra import float_error


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


def _acc_index(ax: np.ndarray, ay: np.ndarray) -> np.ndarray:
    """The rank of each acceleration: ay, then ax, ascending (`acceleration_set`'s order,
    for any profile's set)."""
    return (ay.astype(np.int64) + _REACH) * _SPAN + (ax.astype(np.int64) + _REACH)


def _acceleration(index: int) -> tuple[int, int]:
    """The acceleration of rank `index` (`_acc_index`'s inverse)."""
    return (index % _SPAN - _REACH, index // _SPAN - _REACH)


def _n2(vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    return vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2


def _norm(vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    return np.sqrt(_n2(vx, vy).astype(np.float64))


class _Radicands:
    """The exact lengths of a DAG's moves as integer rows: column 0 counts 1, column c > 0
    counts sqrt(d_c) for the square-free radicands d_c of the moves' lengths (a few dozen
    on a track), so a sum of moves is a row of integers, two sums are equal exactly when
    their rows are, and two whose radicand columns agree are ordered by column 0."""

    def __init__(self, n2: np.ndarray) -> None:
        self.n2 = np.unique(n2)
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

    def value(self, row: np.ndarray) -> RadicalSum:
        """The exact length of one row."""
        return RadicalSum.from_terms(zip(self.radicands, row.tolist(), strict=True))


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


class _Pass:
    """One forward DP (sign +1: minimum, -1: maximum) over the DAG layers."""

    def __init__(self, dag: OptimalDag, sign: int, rad: _Radicands, dtype: type) -> None:
        self.dag = dag
        self.sign = sign
        self.rad, self.dtype = rad, dtype
        layers = dag.layers
        self.f = [np.zeros(1)]
        self.count = [np.array([1], dtype=object)]
        self.rank = [np.zeros(1, dtype=np.int64)]
        self.pred: list[np.ndarray] = [np.full(1, -1, dtype=np.int64)]
        self.acc: list[np.ndarray] = [np.full(1, -1, dtype=np.int64)]
        # the exact extreme lengths of the layer being extended only (dropped after the last
        # layer: `select` rebuilds the few it needs): the integer parts, and the irrational
        # terms as sparse rows (radicand columns ascending, `none` padding; coefficients)
        self.none = len(rad.radicands)
        cdt = np.int16 if self.none < np.iinfo(np.int16).max else np.int32
        self.ip: np.ndarray | None = np.zeros(1, dtype=np.int64)
        self.ic: np.ndarray | None = np.zeros((1, 0), dtype=cdt)
        self.ik: np.ndarray | None = np.zeros((1, 0), dtype=dtype)
        for t, (src, dst) in enumerate(dag.edges):
            n = len(layers[t + 1])
            a, b = layers[t], layers[t + 1]
            acc = _acc_index(b.vx[dst] - a.vx[src], b.vy[dst] - a.vy[src])
            n2 = _n2(b.vx, b.vy)
            cand = self.f[t][src] + np.sqrt(n2.astype(np.float64))[dst]
            winners, best = self._winners(src, dst, cand, n)
            count = np.zeros(n, dtype=object)
            np.add.at(count, dst[winners], self.count[t][src[winners]])
            # representative: smallest (source rank, acceleration) among winners
            w = np.nonzero(winners)[0]
            order = np.lexsort((acc[w], self.rank[t][src[w]], dst[w]))
            w = w[order]
            first = np.unique(dst[w], return_index=True)[1]
            chosen = w[first]
            pred = np.empty(n, dtype=np.int64)
            pacc = np.empty(n, dtype=np.int64)
            pred[dst[chosen]] = src[chosen]
            pacc[dst[chosen]] = acc[chosen]
            rank = np.empty(n, dtype=np.int64)
            rank[np.lexsort((pacc, self.rank[t][pred]))] = np.arange(n)
            # the exact extreme lengths of layer t + 1: the representatives' (one row each)
            self._extend(pred, *rad.of(n2))
            self.f.append(best)
            self.count.append(count)
            self.rank.append(rank)
            self.pred.append(pred)
            self.acc.append(pacc)
        self.ip = self.ic = self.ik = None

    def _extend(self, pred: np.ndarray, col: np.ndarray, k: np.ndarray) -> None:
        """The next layer's exact lengths: each state's representative's plus its move (of
        radicand column `col`, coefficient `k`)."""
        assert self.ip is not None and self.ic is not None and self.ik is not None
        n, w = len(pred), self.ic.shape[1] + 1
        ip = np.empty(n, dtype=np.int64)
        ic = np.empty((n, w), dtype=self.ic.dtype)
        ik = np.empty((n, w), dtype=self.ik.dtype)
        widest = _extend_terms(self.ip, self.ic, self.ik, pred, col, k, ip, ic, ik, self.none)
        self.ip = ip
        if widest < w:  # no row gained a radicand: keep the width
            ic, ik = ic[:, :widest].copy(), ik[:, :widest].copy()
        self.ic, self.ik = ic, ik

    def _sparse_value(self, r: int, ip: np.ndarray, ic: np.ndarray, ik: np.ndarray
                      ) -> RadicalSum:
        """The exact length of row r of sparse rows (ip, ic, ik)."""
        terms = [(self.rad.radicands[c], k) for c, k in zip(ic[r].tolist(), ik[r].tolist(),
                                                              strict=True) if c != self.none]
        return RadicalSum.from_terms([*terms, (1, int(ip[r]))])

    def _rows_at(self, t: int, idx: np.ndarray) -> np.ndarray:
        """The rows (exact extreme lengths) of the states `idx` of layer t, rebuilt along
        their representatives (`pred`): the sum of the moves into each state on the way."""
        layers = self.dag.layers
        rows = np.zeros((len(idx), len(self.rad.radicands)), dtype=self.dtype)
        at = np.arange(len(idx))
        i = idx
        for s in range(t, 0, -1):
            col, k = self.rad.of(_n2(layers[s].vx[i], layers[s].vy[i]))
            rows[at, col] += k.astype(self.dtype)
            i = self.pred[s][i]
        return rows

    def _extremes(self, ip: np.ndarray, irrational: tuple[np.ndarray, ...],
                  value: Callable[[int], RadicalSum], group: np.ndarray, n_groups: int
                  ) -> np.ndarray:
        """Mask of the exact values that are the least (sign +1) or greatest (sign -1) of
        their group's. Row r's value has integer part ip[r] and an irrational part whose
        rows in the `irrational` arrays are equal exactly when the parts are; `value(r)` is
        the whole value. Where a group's values share their irrational part (on a corridor,
        nearly all), the integer parts decide, for all such groups at once; the others are
        compared exactly (`RadicalSum`)."""
        s = self.sign
        _, lead = np.unique(group, return_index=True)
        leader = np.empty(n_groups, dtype=np.int64)
        leader[group[lead]] = lead
        same = np.ones(len(group), dtype=bool)
        for a in irrational:
            same &= (a == a[leader[group]]).all(axis=1)
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
                values = [value(r) for r in rs]
                e = values[0]
                for v in values[1:]:
                    if (v < e) if s > 0 else (e < v):
                        e = v
                for r, v in zip(rs, values, strict=True):
                    win[r] = v == e
        return win

    def _winners(self, src: np.ndarray, dst: np.ndarray, cand: np.ndarray, n: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Mask of the edges achieving the exact extreme into each dst, and the float extremes."""
        s = self.sign
        best = np.full(n, np.inf)
        np.minimum.at(best, dst, s * cand)
        best = s * best
        margin = 2 * float_error(np.abs(best) + 1.0)
        near = s * (cand - best[dst]) <= margin[dst]
        n_near = np.bincount(dst[near], minlength=n)
        winners = near.copy()
        rows = np.nonzero(near & (n_near > 1)[dst])[0]
        if len(rows):
            assert self.ip is not None and self.ic is not None and self.ik is not None
            at = src[rows]
            ip, ic, ik = self.ip[at], self.ic[at], self.ik[at]
            winners[rows] = self._extremes(ip, (ic, ik),
                                           lambda r: self._sparse_value(r, ip, ic, ik),
                                           dst[rows], n)
        return winners, best

    def select(self, eligible: np.ndarray | None, start: tuple[int, int],
               velocity: tuple[int, int] = (0, 0)) -> Extreme | None:
        """The extreme among arrivals with `eligible[i]` (all when None); None if none.

        `start` and `velocity` are the position and velocity of the DAG's initial state.
        """
        dag = self.dag
        last = len(dag.layers) - 1
        mask = np.ones(len(dag.arrive_src), dtype=bool) if eligible is None else eligible
        idx = np.nonzero(mask)[0]
        if not len(idx):
            return None
        src = dag.arrive_src[idx]
        st = dag.arrive_state
        a = dag.layers[last]
        vx, vy = st.vx[idx], st.vy[idx]
        # the arriving move runs from its source to where the run ends: p + v', or on a
        # cell-path track the goal cell its walk reached (docs/rules.md section 10)
        ex, ey = st.x[idx].astype(np.int64), st.y[idx].astype(np.int64)
        dx, dy = ex - a.x[src], ey - a.y[src]
        cand = self.f[last][src] + _norm(dx, dy)
        s = self.sign
        ext_f = float(s * np.min(s * cand))
        near = np.nonzero(s * (cand - ext_f) <= 2 * float_error(abs(ext_f) + 1.0))[0]
        vals = self._rows_at(last, src[near])
        col, k = self.rad.of(dx[near] ** 2 + dy[near] ** 2)
        vals[np.arange(len(near)), col] += k.astype(self.dtype)
        best = self._extremes(vals[:, 0], (vals[:, 1:],), lambda r: self.rad.value(vals[r]),
                              np.zeros(len(near), dtype=np.int64), 1)
        win = near[best].tolist()
        ties = sum((self.count[last][int(src[r])] for r in win), 0)
        acc = _acc_index(vx - a.vx[src], vy - a.vy[src])
        r_best = min(win, key=lambda r: (int(self.rank[last][int(src[r])]), int(acc[r])))
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
        return Extreme(self.rad.value(vals[int(np.nonzero(best)[0][0])]), int(ties), traj)


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
        st, last = dag.arrive_state, layers[-1]
        a_dx = st.x.astype(np.int64) - last.x[dag.arrive_src]
        a_dy = st.y.astype(np.int64) - last.y[dag.arrive_src]
        n2 = np.unique(np.concatenate([np.unique(a_dx**2 + a_dy**2)]
                                      + [np.unique(_n2(b.vx, b.vy)) for b in layers[1:]]))
        rad = _Radicands(n2)
        # every entry is at most (moves) x (the longest move): the narrowest integers that
        # hold it (the rows are copied layer by layer)
        top = (len(layers) + 1) * (math.isqrt(int(n2.max(initial=0))) + 1)
        dtype = next(d for d in (np.int16, np.int32, np.int64) if top < np.iinfo(d).max)
        self._min = _Pass(dag, +1, rad, dtype)
        self._max = _Pass(dag, -1, rad, dtype)

    def select(self, eligible: Sequence[bool] | np.ndarray | None = None
               ) -> Representatives | None:
        """Green and blue among arrivals with `eligible[i]` (aligned with dag.arrive_src)."""
        mask = None if eligible is None else np.asarray(eligible, dtype=bool)
        g = self._min.select(mask, self.start, self.velocity)
        b = self._max.select(mask, self.start, self.velocity)
        if g is None or b is None:
            return None
        return Representatives(g, b)
