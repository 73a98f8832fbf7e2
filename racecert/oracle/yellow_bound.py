"""Yellow's bounds: an arriving trajectory to bound the search, and the states it rules out.

Yellow (`racecert.oracle.dijkstra`) is the arriving trajectory of least Euclidean length,
ties broken by fewer moves, then by the accelerations. Its exact search settles states in
order of their distance d from the start, so every state with d + (a lower bound on the
length still needed) below the optimum is settled, and on a straight corridor or an open
area that is a huge set of *exact* ties: every straight, monotone trajectory that lands
just past the finish line is equally long, whatever its speeds (3.9 million states on a
5000 x 5 corridor, where the layered BFS needs 17 thousand). Two things here cut it back
to what the tie-break needs, without changing the result:

1. `upper_bound`: a best-first search on d + weight · estimate (an A*, or a weighted one
   where that finds nothing within its share of the budget: `STAGES`; compiled:
   `yellow_kernel`, mode ``BOUND``; the estimate is the larger of `finish_distance` and
   the king steps to just past F, `yellow_prune.cell_steps`) that finds some arriving
   trajectory and returns its float length, its number of moves and its velocities (the
   exact search builds its exact length from them, in its own interned forms). It takes
   the open state of least weighted estimate, of equal ones the one with the fewest moves
   so far plus `moves_to_cross` (length first, then moves: a plateau of ties, as on a
   corridor, is crossed in few moves), and stops once no open state's weighted estimate
   is clearly below the best arrival found (or past its settle budget).
2. The tie cut (`cut_of`, applied by the kernel as it settles states): with that
   trajectory's exact length U and moves n, the exact search does not expand a settled
   state v whose exact estimate d(v) + h(v) (h: `finish_distance`) equals U while its
   fewest moves from the start along shortest paths, m(v), plus a lower bound on the moves
   still needed (`moves_to_cross`) exceeds n. Sound: a trajectory through v is at least U long;
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

import numpy as np

from racecert.model.budget import StateBudget
from racecert.model.rules import ACCELERATIONS, StateArrays, VectorRaceRules
from racecert.model.track import Track
from racecert.oracle import yellow_kernel as yk
from racecert.oracle.yellow_search import Search, finish_ints

STAGES = ((1.0, 32), (1.2, 1))
"""The bounding search's tries: (weight, share), ordering states by d + weight·estimate
within settle_budget // share settled states, until one finds an arrival. Weight 1 (an
A*) finds yellow's own length where the estimate is good (an open area: 1,787 states
settled on the 200 x 200 benchmark, under a twentieth of its share), which the tie cut
needs; on a winding track or a corridor it would settle every state of the plateau of
(near) ties that a length metric has (a slow car covers a straight as shortly as a fast
one) before passing each turn, so it gets a thirty-second of the budget (an eighth cost
the 1000 x 5 corridor 6 thousand states in vain, twice its whole exact search), and then
weight 1.2 dives to an arrival: yellow's own length on the corridors (45 states settled
on 1000 x 5), 0.3 % longer on a 30-ply serpentine (46 thousand states)."""
STOP_MARGIN = 2.0**-30
"""The bounding search stops once the best arrival is within this fraction of the smallest
open estimate (estimates carry a relative error of about 2^-40: `finish_distance`)."""


@dataclass(frozen=True)
class YellowBound:
    """An arriving trajectory found by `upper_bound`: its float length (inf: none found),
    its moves (0 when none was found) and the velocity of each move (from which the exact
    search builds its exact length in its own interned forms: `cut_of`)."""

    value: float
    moves: int
    velocities: tuple[tuple[int, int], ...] = ()

    @property
    def found(self) -> bool:
        return bool(np.isfinite(self.value))


NO_BOUND = YellowBound(np.inf, 0)


def finish_gap2(track: Track) -> Callable[[StateArrays], np.ndarray]:
    """Per state, the integer n = (2·dx)² + (2·dy)²: (√n + 1)/2 is `finish_distance`, the
    straight-line distance from the cell centre to the finish line F, plus 1/2
    (`yellow_prune.gap2_one`, the one formula the compiled search uses too)."""
    fin = finish_ints(track)

    def gap2(states: StateArrays) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        yk.gap2_many(fin, states.x.astype(np.int64), states.y.astype(np.int64), out)
        return out

    return gap2


def moves_to_cross(track: Track) -> Callable[[StateArrays], np.ndarray]:
    """Per state, a lower bound (>= 1) on the moves still needed to arrive
    (`yellow_prune.moves_left_one`).

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
    fin = finish_ints(track)

    def bound(states: StateArrays) -> np.ndarray:
        out = np.empty(len(states), dtype=np.int64)
        yk.moves_left_many(fin, *(a.astype(np.int64) for a in (states.x, states.y,
                                                                 states.vx, states.vy)), out)
        return out

    return bound


def upper_bound(rules: VectorRaceRules, track: Track, settle_budget: int,
                budget: StateBudget | None = None) -> YellowBound:
    """Some arriving trajectory, as short as a cheap best-first search finds (module
    docstring, item 1): the best arrival found when no open state's estimate is clearly
    below it, or when more than `settle_budget` states are settled; `NO_BOUND` when
    nothing arrives before that.

    The float length of the trajectory found is a float sum along one path (its exact
    length is at most value + float_error(value)). `budget` bounds the states stored.
    """
    for weight, share in STAGES:
        s = Search(rules.kernel_args(), track, yk.BOUND, settle_budget=settle_budget // share,
                   weight=weight)
        s.start(rules.initial_state())
        s.run(budget, "yellow bounding search", stop_margin=STOP_MARGIN)
        src = int(s.cnt[yk.C_BSRC])
        if src >= 0:
            break
    else:
        return NO_BOUND
    ax, ay = ACCELERATIONS[int(s.best[1])]
    vel = [s.velocity(i) for i in s.path(src)[1:]]
    vx, vy = s.velocity(src)
    return YellowBound(float(s.best[0]), int(s.cnt[yk.C_BMOVES]),
                       tuple(vel) + ((vx + ax, vy + ay),))


def cut_of(bound: YellowBound, search: Search) -> tuple[int, int, int]:
    """The tie cut's parameters for the exact `search` (module docstring, item 2): the
    bound's exact length U as (integer part, irrational id) in the search's interned forms,
    and its moves. The kernel leaves a settled state v unexpanded when its exact
    d(v) + `finish_distance`(v) equals U (same irrational id, (√gap2 + 1)/2 rational,
    integers equal) and m(v) + `moves_to_cross`(v) exceeds the bound's moves."""
    ip, ir = search.length_of_moves(list(bound.velocities))
    return ip, ir, bound.moves
