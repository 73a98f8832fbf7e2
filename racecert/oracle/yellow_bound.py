"""Yellow's bounds: an arriving trajectory to bound the search, and the states it rules out.

Yellow (`racecert.oracle.dijkstra`) is the arriving trajectory of least Euclidean length,
ties broken by fewer moves, then by the accelerations. Its exact search settles states in
order of their distance d from the start, so every state with d + (a lower bound on the
length still needed) below the optimum is settled, and on a straight corridor or an open
area that is a huge set of *exact* ties: every straight, monotone trajectory that lands
just past the finish line is equally long, whatever its speeds (3.9 million states on a
5000 x 5 corridor, where the layered BFS needs 17 thousand). Two things here cut it back
to what the tie-break needs, without changing the result:

1. `upper_bound`: a best-first search on d + `finish_distance` (an A* in windows) that
   finds some arriving trajectory and returns its float length, its exact length (as a
   `RadicalForms` pair) and its number of moves. It settles each round the open states
   within `WINDOW` of the smallest estimate (of a crowded window, a plateau of ties, only
   those with the fewest moves so far plus `moves_to_cross`: length first, then moves)
   and stops once no open state's estimate is clearly below the best arrival found (or
   past its settle budget).
2. `MovesCut`: with that trajectory's exact length U and moves n, the exact search does
   not expand a settled state v whose exact estimate d(v) + h(v) equals U while its fewest
   moves from the start along shortest paths, m(v), plus a lower bound on the moves still
   needed (`moves_to_cross`) exceeds n. Sound: a trajectory through v is at least U long;
   if it is optimal, then U is the optimum, its prefix to v is a shortest path (so it has
   at least m(v) moves) and it has more than n moves, while the bounding trajectory is
   equally long with n moves: so it loses the tie-break and is never yellow. (An induction
   along an optimal trajectory shows its states are never cut, so their d and m are the
   true ones when they are settled.) Only states whose estimate provably equals U are cut:
   the estimate is compared exactly, in integers, where the irrational parts agree and the
   remaining distance is rational; anything else is expanded as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from racecert.model.budget import StateBudget, check
from racecert.model.rules import RuleProfile, StateArrays
from racecert.model.states import StateCodec
from racecert.model.track import Track

if TYPE_CHECKING:
    from racecert.oracle.dijkstra import _Store

WINDOW = 1.0
"""Width of a round of the bounding search, in estimated length: the open states whose
estimate is within it of the smallest are settled together (one vectorised expansion)."""
MOVES_SLACK = 0
"""Within a round's window, only the states whose moves so far plus `moves_to_cross` are
within this of the least are settled (a lexicographic A*: length first, then moves)."""
CROWDED = 1024
"""Windows of more states than this settle only those with the fewest moves: a wide
window is a plateau of (near) ties, as on a corridor; a narrow one is cheap anyway."""
STOP_MARGIN = 2.0**-30
"""The bounding search stops once the best arrival is within this fraction of the smallest
open estimate (estimates carry a relative error of about 2^-40: `finish_distance`)."""


@dataclass(frozen=True)
class YellowBound:
    """An arriving trajectory found by `upper_bound`: its float length (inf: none found),
    its exact length as a `RadicalForms` pair (integer part, irrational id; -1 when the
    search keeps no exact forms) and its moves (0 when none was found)."""

    value: float
    ipart: int
    irr: int
    moves: int

    @property
    def found(self) -> bool:
        return bool(np.isfinite(self.value))


NO_BOUND = YellowBound(np.inf, -1, -1, 0)


def finish_gap2(track: Track) -> Callable[[StateArrays], np.ndarray]:
    """Per state, the integer n = (2·dx)² + (2·dy)²: (√n + 1)/2 is `finish_distance`, the
    straight-line distance from the cell centre to the finish line F, plus 1/2."""
    f = track.finish
    lo2, hi2 = 2 * f.lo - 1, 2 * f.hi + 1
    k2 = 2 * f.k + 1

    def gap2(states: StateArrays) -> np.ndarray:
        c, s = (states.x, states.y) if f.axis == "x" else (states.y, states.x)
        c2 = 2 * c.astype(np.int64)
        s2 = 2 * s.astype(np.int64)
        across = np.abs(k2 - c2)
        along = np.maximum(np.maximum(lo2 - s2, s2 - hi2), 0)
        return across * across + along * along

    return gap2


def moves_to_cross(track: Track) -> Callable[[StateArrays], np.ndarray]:
    """Per state, a lower bound (>= 1) on the moves still needed to arrive.

    Only the axis across the finish line F counts (a relaxation: walls, layers, the
    other axis, S and the opening rule ignored). Across F, after n more moves the car
    is at most p + n·v + n(n+1)/2 along the crossing direction (accelerating every
    move), and arriving needs p_n past F: at least D = k + 1 - p for a line crossed
    towards +, p - k towards -. The bound is the least n >= 1 with
    n(n+1)/2 + n·v >= D (the car may be past F already, or heading away), found from
    the quadratic's larger root in floats and settled in integers.

    E.g. on tracks/tiny_straight.toml (F at x = 6.5, crossed towards +x) the car at
    rest on (1, 1) needs D = 6 cells: n(n+1)/2 >= 6 gives 3 moves, its m*.
    """
    f = track.finish

    def bound(states: StateArrays) -> np.ndarray:
        p, v = (states.x, states.vx) if f.axis == "x" else (states.y, states.vy)
        p, v = p.astype(np.int64), v.astype(np.int64)
        if f.sign > 0:
            d = f.k + 1 - p
        else:
            d, v = p - f.k, -v
        b = 2 * v + 1
        # n(n+1)/2 + n·v >= D  <=>  n² + b·n - 2D >= 0 with b = 2v + 1
        n = np.ones(len(p), dtype=np.int64)
        short = 1 + b < 2 * d
        if short.any():
            # n = 1 fails, so 1 lies between the roots and the answer is the first
            # integer from the larger root on (its discriminant is then positive)
            disc = (b * b + 8 * d).astype(np.float64)
            root = (-b + np.sqrt(np.maximum(disc, 0.0))) / 2
            n[short] = np.maximum(np.floor(root[short]).astype(np.int64) - 2, 1)
            short = n * n + b * n < 2 * d
            while short.any():  # a few steps: the float root is within 1 of the answer
                n[short] += 1
                short = n * n + b * n < 2 * d
        return n

    return bound


def upper_bound(rules: RuleProfile, codec: StateCodec, store: _Store, settle_budget: int,
                budget: StateBudget | None = None) -> YellowBound:
    """Some arriving trajectory, as short as a cheap best-first search finds (module
    docstring, item 1): the best arrival found when no open state's estimate is clearly
    below it, or when more than `settle_budget` states are settled; `NO_BOUND` when
    nothing arrives before that.

    Each round settles the open states whose estimate d + `finish_distance` is within
    `WINDOW` of the smallest; an improved distance keeps the fewer moves on float ties.
    The float length of the trajectory found is a float sum along one path (its exact
    length is at most value + float_error(value)); its exact length is kept when `store`
    keeps exact forms. `budget` bounds the states stored.
    """
    start = StateArrays.of([rules.initial_state()])
    sid = store.ids(codec.encode(start), start)
    store.dist[sid] = 0.0
    store.moves[sid] = 0
    open_ids = store.open(sid, np.zeros(0, dtype=np.int64))
    best = NO_BOUND
    settled = rounds = 0
    while len(open_ids) and settled <= settle_budget:
        f = store.dist[open_ids] + store.bound[open_ids]
        fmin = float(f.min())
        if best.found and best.value <= fmin + STOP_MARGIN * (best.value + 1.0):
            break  # no open state leads clearly below the best arrival
        pick = f <= fmin + WINDOW
        window = np.flatnonzero(pick)
        if len(store.left) and len(window) > CROWDED:  # the fewest moves to finish first
            ends = store.moves[open_ids[window]] + store.left[open_ids[window]]
            pick[window[ends > ends.min() + MOVES_SLACK]] = False
        batch = open_ids[pick]
        open_ids = open_ids[~pick]
        store.in_open[batch] = False
        store.settled[batch] = True
        settled += len(batch)
        rounds += 1
        exp = rules.expand(store.take(batch))
        if len(exp.arrive_src):
            best = _best_arrival(store, batch[exp.arrive_src], exp.arrive_state, best)
        if len(exp.src):
            open_ids = _improve(store, codec, batch[exp.src], exp.succ, open_ids)
        check(budget, store.n, "yellow bounding search", f"after {rounds} rounds")
    return best


def _best_arrival(store: _Store, src: np.ndarray, arrived: StateArrays,
                  best: YellowBound) -> YellowBound:
    """`best`, or the shortest of these arriving moves (fewer moves on float ties)."""
    vx, vy = arrived.vx, arrived.vy
    length = store.dist[src] + np.sqrt((vx * vx + vy * vy).astype(np.float64))
    moves = store.moves[src] + 1
    i = int(np.lexsort((moves, length))[0])
    value, n = float(length[i]), int(moves[i])
    if (value, n) >= (best.value, best.moves) and best.found:
        return best
    if store.forms is None:
        return YellowBound(value, -1, -1, n)
    ip, ir = store.extend(src[i: i + 1], vx[i: i + 1], vy[i: i + 1])
    return YellowBound(value, int(ip[0]), int(ir[0]), n)


def _improve(store: _Store, codec: StateCodec, src: np.ndarray, succ: StateArrays,
             open_ids: np.ndarray) -> np.ndarray:
    """Relax the moves src -> succ in floats (fewer moves on ties); the new open ids."""
    svx, svy = succ.vx, succ.vy
    cand = store.dist[src] + np.sqrt((svx * svx + svy * svy).astype(np.float64))
    uniq, first, inverse = np.unique(codec.encode(succ), return_index=True,
                                     return_inverse=True)
    uid = store.ids(uniq, succ.take(first))
    dst = uid[inverse]
    moves = store.moves[src] + 1
    order = np.lexsort((moves, cand, dst))  # per target: shortest, then fewest moves
    dst_o = dst[order]
    head = np.ones(len(order), dtype=bool)
    head[1:] = dst_o[1:] != dst_o[:-1]
    rows = order[head]
    t = dst[rows]
    better = ~store.settled[t] & ((cand[rows] < store.dist[t])
                                  | ((cand[rows] == store.dist[t])
                                     & (moves[rows] < store.moves[t])))
    rows, t = rows[better], t[better]
    store.set_pred(t, src[rows], cand[rows])
    return store.open(t, open_ids)


class MovesCut:
    """Which settled states the exact search need not expand (module docstring, item 2)."""

    def __init__(self, track: Track, bound: YellowBound) -> None:
        self.bound = bound
        self.gap2 = finish_gap2(track)
        self.moves_left = moves_to_cross(track)

    def __call__(self, store: _Store, ids: np.ndarray, states: StateArrays) -> np.ndarray:
        """Mask of `ids` (settled, with `states`) that lie on no yellow candidate."""
        u = self.bound
        cut = (store.irr[ids] == u.irr)
        if not cut.any():
            return cut
        n = self.gap2(states)
        root = np.rint(np.sqrt(n.astype(np.float64))).astype(np.int64)
        # d + (√n + 1)/2 == U exactly: same irrational part, n a square, integers equal
        cut &= (root * root == n) & (2 * store.ipart[ids] + root + 1 == 2 * u.ipart)
        if cut.any():
            cut &= store.moves[ids] + self.moves_left(states) > u.moves
        return cut
