"""Envelope pruning by axis decomposition (docs/envelopes.md).

Along one axis a car is a 1-D point: velocity v, position p, and each move adds
a ∈ {-1, 0, 1} to v, then v to p. After n moves with accelerations a_1..a_n,

    v_n = v_0 + Δ,  p_n = p_0 + n·v_0 + Σ_j (n - j + 1)·a_j,  Δ = Σ_j a_j.

**Interval claim.** For fixed n and Δ the weighted sums Σ (n - j + 1)·a_j fill
the whole integer interval [lo(n, Δ), hi(n, Δ)] (`axis_interval`); the tests
verify it exhaustively. So the set of 1-D states reachable in exactly n moves
is a union over Δ of "one velocity × one interval of positions".

A move that arrives crosses the finish line F at its last move n. Per axis this
is an interval condition on p_n given v_n (the axis across F: the segment goes
from the entry side to the exit side; the axis along F: the segment's extent
meets F's span). Combining both per-axis conditions gives, per state, the set of
n at which a crossing of F is *kinematically* possible ignoring walls, layers,
S, occupancy and the opening rule (a relaxation); its first element is a lower
bound on the moves still needed. Only negatives prune: a state whose first
possible n exceeds the moves left cannot arrive in time.

The per-axis sets are precomputed as bit masks over n (bit n set: possible at
move n) indexed by (v_0, p_0), up to a horizon of 256 moves. Domain: horizon
256, axis-aligned ("orthogonal") finish lines, positions on the grid, velocity
components with |v|(|v|+1)/2 <= extent - 1 (any state reached from rest on the
grid obeys this); outside it nothing is pruned and the bound is 1.

>>> axis_interval(3, 1)  # 3 moves, net acceleration +1: p_3 - p_0 - 3·v_0 ∈ [0, 4]
(0, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit

from racecert.model.budget import StateBudget, check
from racecert.model.rules import RuleProfile, StateArrays
from racecert.model.track import Line, Track
from racecert.oracle.bfs import BfsResult, Mode, ProgressFn, layered_bfs

HORIZON = 256


# -- the 1-D kinematics --------------------------------------------------------------


def braking_distance(u: int) -> int:
    """Cells covered when braking from speed u >= 0 by one unit per move to 0.

    The velocities after each move are u-1, u-2, ..., 0, so the position
    advances by u(u-1)/2 (not Vawter's v²/4: other rules).

    >>> [braking_distance(u) for u in range(5)]
    [0, 0, 1, 3, 6]
    """
    if u < 0:
        raise ValueError(f"speed must be >= 0, got {u}")
    return u * (u - 1) // 2


@cache
def interval_tables(horizon: int = HORIZON) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) of shape (horizon + 1, 2·horizon + 1): lo[n, Δ + horizon] = lo(n, Δ).

    hi(n, Δ) is the largest Σ_j (n - j + 1)·a_j with Σ a_j = Δ: the +1s take the
    P largest weights n, n-1, ..., the -1s the M = P - Δ smallest 1, 2, ...,
    maximised over P; lo(n, Δ) = -hi(n, -Δ). Entries with |Δ| > n are unused
    (lo = 1 > hi = 0 there, an empty interval).
    """
    if horizon < 0:
        raise ValueError("horizon must be >= 0")
    lo = np.ones((horizon + 1, 2 * horizon + 1), dtype=np.int64)
    hi = np.zeros((horizon + 1, 2 * horizon + 1), dtype=np.int64)
    for n in range(horizon + 1):
        d = np.arange(-n, n + 1, dtype=np.int64)[:, None]
        p = np.arange(0, n + 1, dtype=np.int64)[None, :]
        m = p - d
        ok = (m >= 0) & (p + m <= n)
        val = p * n - p * (p - 1) // 2 - m * (m + 1) // 2
        best = np.where(ok, val, np.iinfo(np.int64).min).max(axis=1)
        hi[n, horizon - n: horizon + n + 1] = best
        lo[n, horizon - n: horizon + n + 1] = -best[::-1]
    lo.setflags(write=False)
    hi.setflags(write=False)
    return lo, hi


def axis_interval(n: int, delta: int, horizon: int = HORIZON) -> tuple[int, int]:
    """The interval [lo, hi] of Σ_j (n - j + 1)·a_j over a ∈ {-1,0,1}^n with Σ a = delta.

    >>> axis_interval(2, 0)  # (1, -1) gives 1, (-1, 1) gives -1, (0, 0) gives 0
    (-1, 1)
    """
    if not (0 <= n <= horizon) or abs(delta) > n:
        raise ValueError(f"need 0 <= n <= {horizon} and |delta| <= n, got n={n}, delta={delta}")
    lo, hi = interval_tables(horizon)
    return int(lo[n, delta + horizon]), int(hi[n, delta + horizon])


def max_speed(extent: int) -> int:
    """Largest speed u reachable from rest on an axis of `extent` cells: u(u+1)/2 <= extent-1.

    Reaching speed u > 0 takes, after the last non-positive velocity, moves of
    velocities 1, 2, ..., u at least, which advance u(u+1)/2 cells inside the grid.

    >>> max_speed(10)
    3
    """
    u = (math.isqrt(8 * max(extent - 1, 0) + 1) - 1) // 2
    return u


# -- per-axis masks ------------------------------------------------------------------


@dataclass(frozen=True)
class AxisMask:
    """Bit masks over n for one axis: bit n of words[:, v0 + vmax, p0] set when the
    axis condition can hold at move n from (p0, v0)."""

    words: np.ndarray  # uint64, shape (n_words, 2·vmax + 1, extent)
    vmax: int
    extent: int


def _event_bounds(kind: str, line: Line, vn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[A, B] of p_n for which the axis condition holds at the last move, given v_n.

    - "cross": the axis across the line; the move goes from the entry side to the
      exit side in the line's direction (sign +: p_{n-1} <= k < p_n, v_n >= 1).
    - "span": the axis along the line; the segment's extent [min, max] of
      (p_{n-1}, p_n) meets the span [lo, hi] (the crossing point lies there).
    """
    big = np.int64(1) << 40
    if kind == "cross":
        k = line.k
        if line.sign > 0:
            a = np.full_like(vn, k + 1)
            b = np.where(vn >= 1, k + vn, -big)
        else:
            a = np.where(vn <= -1, k + 1 + vn, big)
            b = np.full_like(vn, k)
        return a, b
    return line.lo + np.minimum(vn, 0), line.hi + np.maximum(vn, 0)


def axis_mask(kind: str, line: Line, extent: int, horizon: int = HORIZON) -> AxisMask:
    """The per-axis mask table for the finish line `line` (see `_event_bounds`).

    For each n, v0 and v_n = v0 + Δ the condition p_n ∈ [A, B] (intersected with
    the grid, and p_{n-1} = p_n - v_n on the grid too) becomes, by the interval
    claim, p0 ∈ [A - n·v0 - hi(n, Δ), B - n·v0 - lo(n, Δ)]: one interval of p0
    per (v0, Δ), marked with a difference array per (n, v0) by `_mark_intervals`.
    """
    lo_t, hi_t = interval_tables(horizon)
    vmax = max_speed(extent)
    nv = 2 * vmax + 1
    n_words = horizon // 64 + 1
    words = np.zeros((n_words, nv, extent), dtype=np.uint64)
    v0 = np.arange(-vmax, vmax + 1, dtype=np.int64)[:, None]
    vn = np.arange(-vmax, vmax + 1, dtype=np.int64)[None, :]
    a, b = _event_bounds(kind, line, np.broadcast_to(vn, (nv, nv)).copy())
    # p_n on the grid and p_{n-1} = p_n - v_n on the grid
    a = np.maximum(np.maximum(a, 0), vn)
    b = np.minimum(np.minimum(b, extent - 1), extent - 1 + vn)
    _mark_intervals(a, b, vn[0] - v0, v0[:, 0], lo_t, hi_t, horizon, extent, words)
    words.setflags(write=False)
    return AxisMask(words, vmax, extent)


@njit(cache=True, nogil=True)
def _mark_intervals(a, b, delta, v0, lo_t, hi_t, horizon, extent, words):
    """Set bit n of words[n // 64, i, p0] for every p0 of every interval
    [a[i, j] - n·v0[i] - hi(n, Δ), b[i, j] - n·v0[i] - lo(n, Δ)] (Δ = delta[i, j],
    |Δ| <= n, clipped to the grid), n = 1..horizon: the union over j of one row's
    intervals by a difference array, so the cost is one pass over the row per n."""
    nv = a.shape[0]
    diff = np.zeros(extent + 1, dtype=np.int32)
    for n in range(1, horizon + 1):
        word = n // 64
        bit = np.uint64(1) << np.uint64(n % 64)
        for i in range(nv):
            marked = False
            for j in range(nv):
                d = delta[i, j]
                if abs(d) > n or a[i, j] > b[i, j]:
                    continue
                left = max(a[i, j] - n * v0[i] - hi_t[n, d + horizon], 0)
                right = min(b[i, j] - n * v0[i] - lo_t[n, d + horizon], extent - 1)
                if left <= right:
                    diff[left] += 1
                    diff[right + 1] -= 1
                    marked = True
            if not marked:
                continue
            run = 0
            for p in range(extent):
                run += diff[p]
                diff[p] = 0
                if run > 0:
                    words[word, i, p] |= bit
            diff[extent] = 0


@njit(cache=True, nogil=True)
def _lower_bounds(cw, sw, cvmax, svmax, pc, vc, ps, vs, horizon, out):
    """Per state i, the lowest n set in both axes' masks (cw[:, vc + cvmax, pc] &
    sw[:, vs + svmax, ps], the words of bits over n): the first move at which a crossing
    of F is possible; horizon + 1 if none is set; 1 (no bound) outside the tables'
    domain (a velocity beyond them, a position off the grid)."""
    n_words, cext, sext = cw.shape[0], cw.shape[2], sw.shape[2]
    for i in range(len(pc)):
        c, v, p, u = np.int64(pc[i]), np.int64(vc[i]), np.int64(ps[i]), np.int64(vs[i])
        if abs(v) > cvmax or abs(u) > svmax or not (0 <= c < cext and 0 <= p < sext):
            out[i] = 1
            continue
        first = horizon + 1
        for w in range(n_words):
            x = cw[w, v + cvmax, c] & sw[w, u + svmax, p]
            if x != 0:
                bit = 0
                while (x >> np.uint64(bit)) & np.uint64(1) == 0:
                    bit += 1
                first = 64 * w + bit
                break
        out[i] = min(first, horizon + 1)


# -- the pruner ----------------------------------------------------------------------


class EnvelopePruner:
    """Envelope bound and pruner for `track`'s finish line.

    Call it as `layered_bfs(..., max_depth=bound, prune=EnvelopePruner(track))`:
    it keeps a state of depth d iff its lower bound is <= max_depth - d (always
    keeps everything when max_depth - d exceeds the horizon: outside the domain).
    `remaining_lower_bound(states)` is that lower bound (>= 1), an admissible and
    consistent A* heuristic. The bound ignores `progress`: a state that has not
    crossed S yet still needs S before F, which can only make it larger, so
    ignoring it keeps the relaxation (docs/envelopes.md).
    """

    def __init__(self, track: Track, horizon: int = HORIZON,
                 budget: StateBudget | None = None) -> None:
        if not 1 <= horizon <= HORIZON:
            raise ValueError(f"horizon must be in 1..{HORIZON}, got {horizon}")
        self.track = track
        self.horizon = horizon
        f = track.finish
        extents = _extents(track)
        # the tables cost time and memory by their size, whatever the states: on a
        # 100000 x 3 corridor 2 x 895 x 100000 one-axis states, 3.6 GB and a minute
        # before the first layer; the state budget bounds them as it bounds a search
        check(budget, table_states(track), "envelope tables",
              "of one axis (a speed and a position each) before the bounded BFS")
        self.cross = axis_mask("cross", f, extents[0], horizon)
        self.span = axis_mask("span", f, extents[1], horizon)

    def remaining_lower_bound(self, states: StateArrays) -> np.ndarray:
        """Per state, a lower bound (>= 1) on the moves still needed to arrive.

        horizon + 1 means "not within the horizon"; states outside the domain
        (velocity beyond the table, off the grid) get 1.
        """
        f = self.track.finish
        if f.axis == "x":
            pc, vc, ps, vs = states.x, states.vx, states.y, states.vy
        else:
            pc, vc, ps, vs = states.y, states.vy, states.x, states.vx
        out = np.empty(len(states), dtype=np.int64)
        c, s = self.cross, self.span
        _lower_bounds(c.words, s.words, c.vmax, s.vmax, pc, vc, ps, vs, self.horizon, out)
        return out

    def __call__(self, states: StateArrays, depth: int, max_depth: int) -> np.ndarray:
        """Keep-mask for states first reached at `depth` under a bound of `max_depth` moves."""
        left = max_depth - depth
        if left > self.horizon or len(states) == 0:
            return np.ones(len(states), dtype=bool)
        return self.remaining_lower_bound(states) <= left


def _extents(track: Track) -> tuple[int, int]:
    """The extents of the axis across the finish line and of the axis along it."""
    return ((track.width, track.height) if track.finish.axis == "x"
            else (track.height, track.width))


def table_states(track: Track) -> int:
    """The one-axis states (speed, position) the two tables of `EnvelopePruner` hold:
    (2·max_speed + 1) · extent per axis (each with a mask of bits over n)."""
    return sum((2 * max_speed(e) + 1) * e for e in _extents(track))


class BoundedRun(NamedTuple):
    """What `bounded_bfs` did: the final `result`, whether the protection rerun was
    needed, and the `bounded` search itself (the same object as `result` when it
    sufficed). A named tuple: `result, protected, bounded = bounded_bfs(...)`."""

    result: BfsResult
    protection_rerun: bool
    bounded: BfsResult


def bounded_bfs(track: Track, mode: Mode, bound: int,
                progress: ProgressFn | None = None,
                rules: RuleProfile | None = None,
                budget: StateBudget | None = None) -> BoundedRun:
    """The pipeline's steps 3-4: BFS bounded by `bound` moves with envelope pruning,
    and protection: if the bounded search finds no arrival, rerun unbounded.

    With a correct bound (e.g. yellow's move count) protection never triggers; a
    bound below m* is caught by it. `budget` bounds each of the two searches and the
    pruner's tables (`table_states`).
    """
    if bound < 1:
        raise ValueError(f"bound must be >= 1 move, got {bound}")
    pruner = EnvelopePruner(track, horizon=min(HORIZON, bound), budget=budget)
    r = layered_bfs(track, mode, max_depth=bound, prune=pruner, progress=progress, rules=rules,
                    budget=budget)
    if r.reachable:
        return BoundedRun(r, False, r)
    return BoundedRun(layered_bfs(track, mode, progress=progress, rules=rules, budget=budget),
                      True, r)
