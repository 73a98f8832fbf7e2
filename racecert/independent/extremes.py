"""Green and blue, independently: the extreme Euclidean lengths over an optimal layered DAG.

Over a `LayeredDag` (every optimal trajectory is a path from layer 0 through
one arriving move) a forward dynamic programme keeps, per state, the exact
minimum (green) or maximum (blue) length of a path from the start, the exact
number of paths achieving it (a Python int) and one representative path.

Exactness without per-state Python arithmetic: a layer's lengths are the rows
of an integer matrix over square roots (`radical_forms`). Candidates into a
state are the rows of its sources plus one move. They are filtered by floats
with rigorous error bounds (a candidate is kept only while its interval can
still reach the extreme); when several are kept, equal rows are exact ties
(identical source rows plus the same move term), and the rare kept rows that
differ are ordered exactly by the float filter on their difference or, where
it cannot separate them, by sympy (`sign_of_difference`).

Representative (docs/report.md): among tied trajectories, the
lexicographically smallest sequence of accelerations, each ranked (ay + 1) * 3
+ (ax + 1) (ay first, then ax, each -1, 0, 1). Prefixes of an extreme path
are extreme, so a per-layer rank of the chosen prefixes orders candidates by
(rank of the source, acceleration rank).

The DP imports nothing from the oracle or the analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from racecert.independent.dag import LayeredDag
from racecert.independent.race_rules import RANKED_ACCELS
from racecert.independent.radical_forms import (
    RadicalLength,
    Radicands,
    SignStats,
    sign_of_difference,
)
from racecert.independent.unique import distinct_sorted

UNIT_ROUNDOFF = 2.0**-53
ACCELERATION_OF_RANK = RANKED_ACCELS


@dataclass(frozen=True)
class ExtremeTrajectory:
    """The extreme length, its exact number of optimal trajectories and a representative."""

    length: RadicalLength
    ties: int
    positions: tuple[tuple[int, int], ...]
    accelerations: tuple[tuple[int, int], ...]

    @property
    def moves(self) -> int:
        return len(self.accelerations)


@dataclass(frozen=True)
class ExtremeLengths:
    """Green (shortest) and blue (longest) optimal trajectories, with how they were decided."""

    green: ExtremeTrajectory
    blue: ExtremeTrajectory
    states: int
    moves_examined: int
    decided_by_float: int
    decided_by_sympy: int


def acceleration_rank(ax: np.ndarray, ay: np.ndarray) -> np.ndarray:
    """(ay + 1) * 3 + (ax + 1); ValueError if a component is outside -1..1."""
    if len(ax) and (np.abs(ax).max() > 1 or np.abs(ay).max() > 1):
        raise ValueError("a DAG move changes the velocity by more than 1 per axis")
    return (ay.astype(np.int64) + 1) * 3 + (ax.astype(np.int64) + 1)


def _group_min(key: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
    out = np.full(n, np.inf)
    np.minimum.at(out, group, key)
    return out


def rows_equal(rows: np.ndarray, a: np.ndarray, b: np.ndarray, chunk: int = 1 << 16
               ) -> np.ndarray:
    """Per pair i: whether rows[a[i]] and rows[b[i]] are identical (exact integer comparison).

    Only the columns that vary within `rows` are compared, in chunks of pairs to
    bound the temporary memory.
    """
    if rows.shape[0] == 0 or len(a) == 0:
        return np.ones(len(a), dtype=bool)
    active = np.nonzero(rows.min(axis=0) != rows.max(axis=0))[0]
    if not len(active):
        return np.ones(len(a), dtype=bool)
    sub = rows[:, active]
    out = np.empty(len(a), dtype=bool)
    for lo in range(0, len(a), chunk):
        hi = lo + chunk
        out[lo:hi] = (sub[a[lo:hi]] == sub[b[lo:hi]]).all(axis=1)
    return out


@dataclass
class _Layer:
    """The DP state of one layer: exact rows, float filter data, counts, ranks, choices."""

    rows: np.ndarray
    value: np.ndarray
    error: np.ndarray
    count: np.ndarray
    rank: np.ndarray
    pred: np.ndarray
    acc: np.ndarray

    def release(self) -> None:
        """Keep only what the representative's backtracking needs (pred, acc)."""
        empty = np.zeros(0)
        self.rows = np.zeros((0, 0), dtype=self.rows.dtype)
        self.value = self.error = self.rank = empty
        self.count = np.zeros(0, dtype=object)


@dataclass
class _Candidates:
    """Moves competing for the states of the next layer (or for the arrival)."""

    src: np.ndarray
    group: np.ndarray
    col: np.ndarray
    k: np.ndarray
    acc: np.ndarray
    n_groups: int
    value: np.ndarray | None = None
    error: np.ndarray | None = None


@dataclass
class _Pass:
    """One forward DP: sign +1 keeps minima (green), -1 maxima (blue)."""

    dag: LayeredDag
    sign: int
    radicands: Radicands
    dtype: type = np.int64
    stats: SignStats = field(default_factory=SignStats)
    layers: list[_Layer] = field(default_factory=list)

    def run(self, velocities: list[tuple[np.ndarray, np.ndarray]]) -> ExtremeTrajectory:
        one = np.ones(1, dtype=np.int64)
        rows = np.zeros((1, self.radicands.width), dtype=self.dtype)
        self.layers = [_Layer(rows, np.zeros(1), np.zeros(1), np.array([1], dtype=object),
                              np.zeros(1, dtype=np.int64), -one, -one)]
        dag = self.dag
        for t, (src, dst) in enumerate(dag.edges):
            dx, dy = dag.displacement(t)
            vx, vy = velocities[t]
            cand = self._candidates(src, dst, dx, dy, vx, vy, len(dag.xs[t + 1]))
            self.layers.append(self._step(cand))
            self.layers[-2].release()
        last = len(dag.xs) - 1
        dx, dy = dag.arrival_displacement()
        vx, vy = velocities[last]
        src = dag.arrive_src.astype(np.int64)
        cand = self._candidates(src, np.zeros(len(src), dtype=np.int64), dx, dy, vx, vy, 1)
        final = self._step(cand)
        return self._trajectory(final, cand)

    def _candidates(self, src: np.ndarray, group: np.ndarray, dx: np.ndarray, dy: np.ndarray,
                    vx: np.ndarray, vy: np.ndarray, n_groups: int) -> _Candidates:
        src = src.astype(np.int64)
        col, k = self.radicands.split_many(dx, dy)
        acc = acceleration_rank(dx - vx[src], dy - vy[src])
        return _Candidates(src, group.astype(np.int64), col, k, acc, n_groups)

    def _step(self, c: _Candidates) -> _Layer:
        prev = self.layers[-1]
        rows = self.radicands.widen(prev.rows)
        prev.rows = rows
        if len(c.src) == 0 or np.bincount(c.group, minlength=c.n_groups).min() == 0:
            raise ValueError("a DAG state (or the arrival) has no incoming move")
        s = self.sign
        sq = self.radicands.sqrt
        step = c.k * sq[c.col]
        value = prev.value[c.src] + step
        error = prev.error[c.src] + 3.0 * UNIT_ROUNDOFF * (step + np.abs(value))
        c.value, c.error = value, error
        key = s * value
        reach = _group_min(key + error, c.group, c.n_groups)  # the extreme is at most this
        kept = np.nonzero(key - error <= reach[c.group])[0]
        winners = self._winners(c, kept, key, rows)
        return self._next_layer(c, winners, rows, prev)

    def _winners(self, c: _Candidates, kept: np.ndarray, key: np.ndarray,
                 rows: np.ndarray) -> np.ndarray:
        """The kept candidates whose exact value is the extreme of their group."""
        g = c.group[kept]
        n_kept = np.bincount(g, minlength=c.n_groups)
        single = n_kept[g] == 1
        win = kept[single]
        multi = kept[~single]
        if not len(multi):
            return win
        # reference per group: its kept candidate of best float key
        order = np.lexsort((key[multi], c.group[multi]))
        multi = multi[order]
        gm = c.group[multi]
        first = np.r_[True, gm[1:] != gm[:-1]]
        ref = np.repeat(multi[first], np.diff(np.r_[np.nonzero(first)[0], len(multi)]))
        same = ((c.col[multi] == c.col[ref]) & (c.k[multi] == c.k[ref])
                & rows_equal(rows, c.src[multi], c.src[ref]))
        hard_groups = distinct_sorted(gm[~same])
        easy = ~np.isin(gm, hard_groups)
        win = np.concatenate((win, multi[easy]))
        for grp in hard_groups.tolist():
            members = multi[gm == grp]
            win = np.concatenate((win, self._exact_extreme(c, members, rows)))
        return np.sort(win)

    def _exact_extreme(self, c: _Candidates, members: np.ndarray, rows: np.ndarray
                       ) -> np.ndarray:
        """Members whose exact candidate row is the group's extreme (exact decisions)."""
        cand = rows[c.src[members]].astype(np.int64)
        cand[np.arange(len(members)), c.col[members]] += c.k[members]
        best = 0
        for i in range(1, len(members)):
            sgn = sign_of_difference(cand[i], cand[best], self.radicands, self.stats)
            if sgn * self.sign < 0:
                best = i
        equal = np.all(cand == cand[best], axis=1)
        return members[equal]

    def _next_layer(self, c: _Candidates, win: np.ndarray, rows: np.ndarray,
                    prev: _Layer) -> _Layer:
        n = c.n_groups
        g = c.group[win]
        order = np.argsort(g, kind="stable")
        win, g = win[order], g[order]
        starts = np.r_[0, np.nonzero(g[1:] != g[:-1])[0] + 1]
        count = np.add.reduceat(prev.count[c.src[win]], starts) if len(win) else prev.count[:0]
        counts = np.zeros(n, dtype=object)
        counts[g[starts]] = count
        # representative: smallest (rank of the source, acceleration rank) among winners
        pick = np.lexsort((c.acc[win], prev.rank[c.src[win]], g))
        chosen = win[pick][np.r_[True, g[pick][1:] != g[pick][:-1]]]
        dst = c.group[chosen]
        pred = np.empty(n, dtype=np.int64)
        acc = np.empty(n, dtype=np.int64)
        pred[dst] = c.src[chosen]
        acc[dst] = c.acc[chosen]
        new_rows = np.empty((n, rows.shape[1]), dtype=rows.dtype)
        new_rows[dst] = rows[c.src[chosen]]
        new_rows[dst, c.col[chosen]] += c.k[chosen]
        # the float value of a winner (exactly equal rows share one) and its error bound
        assert c.value is not None and c.error is not None
        value = np.empty(n)
        error = np.empty(n)
        value[dst] = c.value[chosen]
        error[dst] = c.error[chosen]
        rank = np.empty(n, dtype=np.int64)
        rank[np.lexsort((acc, prev.rank[pred]))] = np.arange(n)
        return _Layer(new_rows, value, error, counts, rank, pred, acc)

    def _trajectory(self, final: _Layer, c: _Candidates) -> ExtremeTrajectory:
        length = RadicalLength.from_row(final.rows[0], self.radicands)
        accs = [int(final.acc[0])]
        i = int(final.pred[0])
        for t in range(len(self.layers) - 1, 0, -1):
            accs.append(int(self.layers[t].acc[i]))
            i = int(self.layers[t].pred[i])
        accs.reverse()
        accelerations = tuple(ACCELERATION_OF_RANK[a] for a in accs)
        x, y = self.dag.start
        vx = vy = 0
        positions = [(x, y)]
        for ax, ay in accelerations:
            vx, vy = vx + ax, vy + ay
            x, y = x + vx, y + vy
            positions.append((x, y))
        return ExtremeTrajectory(length, int(final.count[0]), tuple(positions), accelerations)


def _coefficient_type(dag: LayeredDag) -> type:
    """The narrowest integer type that holds every coefficient of every path length.

    A coefficient is a sum of multipliers k <= sqrt(dx² + dy²) <= |dx| + |dy|
    over at most m* moves.
    """
    top = 0
    for t in range(len(dag.edges)):
        dx, dy = dag.displacement(t)
        if len(dx):
            top = max(top, int((np.abs(dx) + np.abs(dy)).max()))
    dx, dy = dag.arrival_displacement()
    if len(dx):
        top = max(top, int((np.abs(dx) + np.abs(dy)).max()))
    bound = dag.moves * top
    if bound < 2**15:
        return np.int16
    return np.int32 if bound < 2**31 else np.int64


def extreme_lengths(dag: LayeredDag) -> ExtremeLengths:
    """Green and blue over `dag`: exact extreme lengths, exact tie counts, representatives.

    >>> # extreme_lengths(dag).green.ties
    """
    if len(dag.xs[0]) != 1:
        raise ValueError("layer 0 of the DAG must hold exactly the initial state")
    if len(dag.arrive_src) == 0:
        raise ValueError("the DAG has no arriving move")
    velocities = dag.velocities()
    radicands = Radicands()
    dtype = _coefficient_type(dag)
    green_pass = _Pass(dag, +1, radicands, dtype)
    green = green_pass.run(velocities)
    blue_pass = _Pass(dag, -1, radicands, dtype)
    blue = blue_pass.run(velocities)
    moves = sum(len(e[0]) for e in dag.edges) + len(dag.arrive_src)
    return ExtremeLengths(green, blue, dag.size, 2 * moves,
                          green_pass.stats.by_float + blue_pass.stats.by_float,
                          green_pass.stats.by_sympy + blue_pass.stats.by_sympy)
