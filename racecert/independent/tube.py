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
trajectories). Pure Python over the table's rows; no speed bound is assumed.

>>> rows = [(0, 0, 1, 0, 0, 0, 0, 0, 0), (1, 0, 3, 0, 0, 0, 0, 1, 0)]
>>> [len(r) for r in step_rows(rows, (0, 0, 0, 0, 0), 2)]
[1, 1]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

Row = tuple[int, ...]
KState = tuple[int, int, int, int, int]  # (x, y, vx, vy, layer)

_X, _Y, _X2, _Y2, _L, _L2, _FINISH = 0, 1, 2, 3, 4, 5, 7
_NEVER = 1 << 60  # no finish crossing reachable


def _after(r: Row) -> KState:
    return (r[_X2], r[_Y2], r[_X2] - r[_X], r[_Y2] - r[_Y], r[_L2])


class _Graph:
    """The table as a graph over states, built once per table: per state its rows, each
    with the moves still needed after it to cross the finish (0 for a crossing row), and
    the states its rows lead to."""

    def __init__(self, rows: Sequence[Row]) -> None:
        self.by_move: dict[tuple[int, int, int, int, int], list[Row]] = {}
        for r in rows:
            key = (r[_X], r[_Y], r[_L], r[_X2] - r[_X], r[_Y2] - r[_Y])
            self.by_move.setdefault(key, []).append(r)
        self.out: dict[KState, list[Row]] = {}  # the rows usable from each explored state
        self.after: dict[KState, frozenset[KState]] = {}  # the states they lead to
        self.rows: dict[KState, list[tuple[int, Row]]] = {}  # (moves still needed, row)

    def usable(self, s: KState) -> list[Row]:
        x, y, vx, vy, lay = s
        out: list[Row] = []
        for ax in (-1, 0, 1):
            for ay in (-1, 0, 1):
                out.extend(self.by_move.get((x, y, lay, vx + ax, vy + ay), ()))
        return out

    def reach(self, source: KState) -> None:
        """Explore every state reachable from `source` (once) and the goal distances."""
        if source in self.after:
            return
        stack = [source]
        self.after[source] = frozenset()
        while stack:
            s = stack.pop()
            self.out[s] = self.usable(s)
            nxt = frozenset(_after(r) for r in self.out[s])
            self.after[s] = nxt
            for n in nxt:
                if n not in self.after:
                    self.after[n] = frozenset()
                    stack.append(n)
        goal = _goal_distance(self.out)
        self.rows = {s: sorted((0 if r[_FINISH] else goal.get(_after(r), _NEVER) + 1, r)
                               for r in out) for s, out in self.out.items()}


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
    from `source` can use at step t on its way to a finish crossing (see the module)."""
    g = _graph(rows)
    g.reach(source)
    layer: set[KState] = {source}
    out = []
    for t in range(horizon):
        left = horizon - 1 - t  # moves from this one on that may still reach a crossing
        keep = []
        for s in layer:
            for need, r in g.rows[s]:
                if need > left:
                    break
                keep.append(r)
        out.append(tuple(sorted(keep)))
        if t + 1 < horizon:
            nxt: set[KState] = set()
            for s in layer:
                nxt |= g.after[s]
            layer = nxt
    return tuple(out)


def _goal_distance(succ: dict[KState, list[Row]]) -> dict[KState, int]:
    """Per state of `succ`: the fewest moves before a finish-crossing row (0 when it has
    one), over the moves among the states of `succ`."""
    back: dict[KState, list[KState]] = {}
    dist: dict[KState, int] = {}
    for s, out in succ.items():
        for r in out:
            back.setdefault(_after(r), []).append(s)
            if r[_FINISH]:
                dist[s] = 0
    queue = deque(dist)
    while queue:
        s = queue.popleft()
        for p in back.get(s, ()):
            if p not in dist:
                dist[p] = dist[s] + 1
                queue.append(p)
    return dist
