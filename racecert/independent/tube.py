"""Per-step move tables: the rows a trajectory from one state can use at each time step.

A time-indexed model over T moves may give every step the whole move table, but
most rows cannot be used at most steps: at step t the car is somewhere it can
reach in exactly t moves, and from there it must still be able to cross the
finish by move T. `step_rows` keeps, per step t, only the rows of a table

- whose start state (x, y, vx, vy, layer) is reachable from the source in exactly
  t moves over the table (a forward pass, |a|inf <= 1 per move), and
- that cross the finish themselves, or lead to a state from which a finish-
  crossing row is reachable within the moves left before T (a backward pass).

Both passes ignore the opening rule, the progress and the arrival (a crossing of
the finish counts as a goal whether or not it would arrive), so each step's rows
are a superset of what any solution of the model can use: the model's solutions
are unchanged, only its size shrinks (the "tube" around the source's real
trajectories). No speed bound is assumed. The table is turned once into arrays (states
as packed int64 keys, the rows each state may use, the moves each row still needs), so
each step is a few vectorised passes: llanura's 161,353 rows over 69 steps cost about a
second instead of half a minute of Python loops.

>>> rows = [(0, 0, 1, 0, 0, 0, 0, 0, 0), (1, 0, 3, 0, 0, 0, 0, 1, 0)]
>>> [len(r) for r in step_rows(rows, (0, 0, 0, 0, 0), 2)]
[1, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from racecert.independent.race_rules import ACCELS

Row = tuple[int, ...]
KState = tuple[int, int, int, int, int]  # (x, y, vx, vy, layer)

_X, _Y, _X2, _Y2, _L, _L2, _FINISH = 0, 1, 2, 3, 4, 5, 7
_NEVER = 1 << 60  # no finish crossing reachable


class _Graph:
    """The table as arrays, built once per table.

    States (x, y, vx, vy, layer) are packed into one int64 (`_key`); the *universe* is
    every state a row leads to. `edge_state`/`edge_row`: each (state, row) pair such that
    the row is usable from the state (its new velocity within 1 of the state's, same cell
    and layer); `after[r]`: the universe index of the state row r leads to; `need[r]`: the
    moves still needed after row r to cross the finish (0 for a crossing row, `_NEVER`
    where none can); `rank[r]`: row r's place in sorted order."""

    def __init__(self, rows: Sequence[Row]) -> None:
        arr = np.asarray(rows, dtype=np.int64).reshape(len(rows), -1)
        n = len(rows)
        self.rank = np.empty(n, dtype=np.int64)
        order = sorted(range(n), key=rows.__getitem__)
        self.rank[order] = np.arange(n)
        self.by_rank = np.asarray(order, dtype=np.int64)
        x, y, x2, y2, lay, lay2 = (arr[:, i] for i in (_X, _Y, _X2, _Y2, _L, _L2))
        vx, vy = x2 - x, y2 - y
        self.w = int(arr[:, [_X, _X2]].max(initial=0)) + 1
        self.h = int(arr[:, [_Y, _Y2]].max(initial=0)) + 1
        self.span = int(np.abs(np.concatenate([vx, vy])).max(initial=0)) + 2
        # a row is usable from state (x, y, v, layer) when its move key (x, y, layer, v')
        # has |v' - v| <= 1: rows sorted by that key, looked up for the 9 accelerations
        move_key = self._key(x, y, vx, vy, lay)
        self.row_order = np.argsort(move_key, kind="stable")
        self.move_keys = move_key[self.row_order]
        after_key = self._key(x2, y2, vx, vy, lay2)
        self.universe, self.after = np.unique(after_key, return_inverse=True)
        self.edge_state, self.edge_row = self._usable(*self._unkey(self.universe))
        self.need = self._need(arr[:, _FINISH] != 0)

    def _key(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
             lay: np.ndarray) -> np.ndarray:
        s, side = self.span, 2 * self.span + 1
        return ((((lay * self.h + y) * self.w + x) * side + vx + s) * side + vy + s)

    def _unkey(self, k: np.ndarray) -> tuple[np.ndarray, ...]:
        side = 2 * self.span + 1
        rest, vy = np.divmod(k, side)
        rest, vx = np.divmod(rest, side)
        rest, x = np.divmod(rest, self.w)
        lay, y = np.divmod(rest, self.h)
        return x, y, vx - self.span, vy - self.span, lay

    def _usable(self, x: np.ndarray, y: np.ndarray, vx: np.ndarray, vy: np.ndarray,
                lay: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(state index, row index) of every row usable from the given states, state by
        state in input order, rows in table order within a state."""
        states, found = [], []
        for ax, ay in ACCELS:
            k = self._key(x, y, vx + ax, vy + ay, lay)
            lo = np.searchsorted(self.move_keys, k, side="left")
            hi = np.searchsorted(self.move_keys, k, side="right")
            count = hi - lo
            idx = np.repeat(np.arange(len(k)), count)
            offs = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
            states.append(idx)
            found.append(self.row_order[np.repeat(lo, count) + offs])
        s, r = np.concatenate(states), np.concatenate(found)
        order = np.lexsort((r, s))
        return s[order], r[order]

    def _need(self, finish: np.ndarray) -> np.ndarray:
        """Per row: 0 if it crosses the finish, else 1 + the fewest moves from the state it
        leads to before a finish-crossing row, over the table (`_NEVER` if none)."""
        n_states = len(self.universe)
        dist = np.full(n_states, _NEVER, dtype=np.int64)
        has_finish = np.zeros(n_states, dtype=bool)
        has_finish[self.edge_state[finish[self.edge_row]]] = True
        dist[has_finish] = 0
        frontier = has_finish
        level = 0
        to = self.after[self.edge_row]
        while frontier.any():
            level += 1
            reach = self.edge_state[frontier[to]]
            fresh = np.zeros(n_states, dtype=bool)
            fresh[reach] = True
            fresh &= dist == _NEVER
            dist[fresh] = level
            frontier = fresh
        d = dist[self.after]
        return np.where(finish, 0, np.where(d == _NEVER, _NEVER, d + 1))

    def source_rows(self, source: KState) -> np.ndarray:
        """The rows usable from `source` (which need not be in the universe; off the
        table's grid or faster than its moves, none)."""
        sx, sy, svx, svy, _ = source
        if not (0 <= sx < self.w and 0 <= sy < self.h
                and max(abs(svx), abs(svy)) <= self.span - 2):
            return np.zeros(0, dtype=np.int64)
        x, y, vx, vy, lay = (np.array([v], dtype=np.int64) for v in source)
        return self._usable(x, y, vx, vy, lay)[1]


_GRAPHS: dict[int, tuple[Sequence[Row], _Graph]] = {}


def _graph(rows: Sequence[Row]) -> _Graph:
    """The graph of `rows`, kept for the last few tables (the checks of a run share them)."""
    hit = _GRAPHS.get(id(rows))
    if hit is not None and hit[0] is rows:
        return hit[1]
    if len(_GRAPHS) >= 4:
        _GRAPHS.pop(next(iter(_GRAPHS)))
    g = _Graph(rows)
    _GRAPHS[id(rows)] = (rows, g)
    return g


def step_rows(rows: Sequence[Row], source: KState, horizon: int
              ) -> tuple[tuple[Row, ...], ...]:
    """Per step t < `horizon`, the rows of `rows` a trajectory of at most `horizon` moves
    from `source` can use at step t on its way to a finish crossing (see the module): one
    entry per (state of the step, usable row) pair, sorted."""
    if not len(rows):
        return tuple(() for _ in range(horizon))
    g = _graph(rows)
    out = []
    layer_rows = g.source_rows(source)  # step 0: the source's rows, one state
    for t in range(horizon):
        left = horizon - 1 - t  # moves from this one on that may still reach a crossing
        kept = layer_rows[g.need[layer_rows] <= left]
        ranks = np.sort(g.rank[kept])
        out.append(tuple(rows[i] for i in g.by_rank[ranks].tolist()))
        if t + 1 < horizon:
            nxt = np.zeros(len(g.universe), dtype=bool)
            nxt[g.after[layer_rows]] = True
            layer_rows = g.edge_row[nxt[g.edge_state]]
    return tuple(out)
