"""Green and blue: the shortest and longest optimal trajectories, exactly (docs/report.md).

A dynamic programme over the optimal DAG (`OptimalDag`) keeps, per DAG state,
the minimum (or maximum) Euclidean length of a path from the initial state,
the exact number of paths achieving it (a Python int) and one representative.

Exactness: float lengths are sums along one path, so their error is bounded
by `float_error`; two candidates further apart than twice that are ordered by
the floats, nearer ones are compared exactly. All moves into one DAG state have
the same velocity, hence the same length, so candidates into a state are
compared by their sources' exact values. An exact value is kept as a
`RadicalForms` pair (integer part, id of the interned irrational part), built
along the representative path one move at a time: a move of integer length
adds to the integer part and any other looks up one interned sum, so equal
values are equal pairs and values with the same irrational part are ordered by
their integer parts; only values whose irrational parts differ and that floats
cannot order go to the certified `compare` (on a corridor almost every move and
tie is of integer length).

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

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from racecert.analysis.trajectory import Trajectory
from racecert.model.radicals import RadicalForms, RadicalSum
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


Form = tuple[int, int]
"""An exact length as `RadicalForms` keeps it: (integer part, irrational part id)."""

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


def _norm(vx: np.ndarray, vy: np.ndarray) -> np.ndarray:
    return np.sqrt((vx.astype(np.int64) ** 2 + vy.astype(np.int64) ** 2).astype(np.float64))


class _Pass:
    """One forward DP (sign +1: minimum, -1: maximum) over the DAG layers."""

    def __init__(self, dag: OptimalDag, sign: int) -> None:
        self.dag = dag
        self.sign = sign
        layers = dag.layers
        self.f = [np.zeros(1)]
        self.count = [np.array([1], dtype=object)]
        self.rank = [np.zeros(1, dtype=np.int64)]
        self.pred: list[np.ndarray] = [np.full(1, -1, dtype=np.int64)]
        self.acc: list[np.ndarray] = [np.full(1, -1, dtype=np.int64)]
        self.forms = RadicalForms()
        self.memo: list[dict[int, Form]] = [{0: (0, 0)}]
        for t, (src, dst) in enumerate(dag.edges):
            n = len(layers[t + 1])
            a, b = layers[t], layers[t + 1]
            acc = _acc_index(b.vx[dst] - a.vx[src], b.vy[dst] - a.vy[src])
            cand = self.f[t][src] + _norm(b.vx, b.vy)[dst]
            winners, best = self._winners(t, src, dst, cand, n)
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
            self.f.append(best)
            self.count.append(count)
            self.rank.append(rank)
            self.pred.append(pred)
            self.acc.append(pacc)
            self.memo.append({})

    def exact(self, t: int, i: int) -> Form:
        """Exact extreme length of DAG state i of layer t, as a `RadicalForms` pair
        (memoised along representatives)."""
        chain = []
        while i not in self.memo[t]:
            chain.append((t, i))
            i = int(self.pred[t][i])
            t -= 1
        value = self.memo[t][i]
        plus = self.forms.plus_move
        for tt, j in reversed(chain):
            s = self.dag.layers[tt]
            value = plus(value[0], value[1], int(s.vx[j]), int(s.vy[j]))
            self.memo[tt][j] = value
        return value

    def _extreme(self, values: Sequence[Form]) -> Form:
        """The least (sign +1) or greatest (sign -1) of exact `values`."""
        ext = values[0]
        for v in values[1:]:
            if v != ext and self.forms.compare(v, ext) == -self.sign:
                ext = v
        return ext

    def _winners(self, t: int, src: np.ndarray, dst: np.ndarray, cand: np.ndarray, n: int
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
        hard = n_near > 1
        rows = np.nonzero(near & hard[dst])[0]
        if len(rows):
            groups: dict[int, list[int]] = {}
            for r in rows.tolist():
                groups.setdefault(int(dst[r]), []).append(r)
            for rs in groups.values():
                values = [self.exact(t, int(src[r])) for r in rs]
                ext = self._extreme(values)
                for r, v in zip(rs, values, strict=True):
                    winners[r] = v == ext
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
        plus = self.forms.plus_move
        values = {int(r): plus(*self.exact(last, int(src[r])), int(dx[r]), int(dy[r]))
                  for r in near}
        ext = self._extreme(list(values.values()))
        win = [r for r, v in values.items() if v == ext]
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
        return Extreme(self.forms.value(*ext), int(ties), traj)


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
        self._min = _Pass(dag, +1)
        self._max = _Pass(dag, -1)

    def select(self, eligible: Sequence[bool] | np.ndarray | None = None
               ) -> Representatives | None:
        """Green and blue among arrivals with `eligible[i]` (aligned with dag.arrive_src)."""
        mask = None if eligible is None else np.asarray(eligible, dtype=bool)
        g = self._min.select(mask, self.start, self.velocity)
        b = self._max.select(mask, self.start, self.velocity)
        if g is None or b is None:
            return None
        return Representatives(g, b)
