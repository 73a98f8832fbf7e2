"""Yellow's pruning predicates (`racecert.oracle.yellow_kernel`), compiled with numba: per
state, lower bounds on what it still needs to arrive, and the tests of states that cannot
arrive at all.

- `estimate_one`: a lower bound on the Euclidean length still needed, the larger of the
  straight distance to the finish line plus 1/2 (`bound_one`, from the integer
  `gap2_one`) and the king steps to just past it through drivable cells (`cell_steps`);
- `moves_left_one`: a lower bound on the moves still needed (across the finish line only);
- `doomed_one`: too fast to stay inside the endable cells' box until it could arrive;
- `walled_one`: every move blocked by the row or column it must cross next.

Each is sound for every state of the grid rules (the docstrings say why), so a search may
drop what they rule out without changing any arriving trajectory; the tests check each one
against the exact rules (`rules.apply_move`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# fin: the finish line as integers: 2k + 1, 2lo - 1, 2hi + 1, axis (0: x), k, sign
F_K2, F_LO2, F_HI2, F_AXIS, F_K, F_SIGN = range(6)


@njit(cache=True, nogil=True, inline="always")
def gap2_one(fin, x, y):
    """(2·dx)² + (2·dy)² from the cell centre (x, y) to the finish line (`finish_gap2`)."""
    if fin[F_AXIS] == 0:
        c, s = np.int64(x), np.int64(y)
    else:
        c, s = np.int64(y), np.int64(x)
    across = abs(fin[F_K2] - 2 * c)
    along = max(max(fin[F_LO2] - 2 * s, 2 * s - fin[F_HI2]), 0)
    return across * across + along * along


@njit(cache=True, nogil=True, inline="always")
def bound_one(fin, x, y):
    """`finish_distance` of one state: (√gap2 + 1)/2, scaled just below."""
    d = np.sqrt(np.float64(gap2_one(fin, x, y)))
    return (0.5 * d + 0.5) * (1.0 - 2.0**-40)


@njit(cache=True, nogil=True)
def cell_steps(passable, fin, out):
    """Per cell (y·w + x), the least number of king steps (8-neighbours) through passable
    cells to a cell just past the finish line F (the column or row beyond F, from one
    before its span to one after); -1 where none leads there.

    A lower bound on the length still needed (`estimate_one`): a move from p to q touches,
    in every column (dominant x; rows for dominant y) between them, the cell holding the
    segment at that column's centre, so its touched cells hold a king path of
    max(|dx|, |dy|) <= |v'| steps, all drivable in some layer; the arriving move's path
    reaches a cell just past F within F's span widened by one; the steps of a trajectory
    therefore number at most its length.
    """
    h, w = passable.shape
    axis, k, sign = fin[F_AXIS], fin[F_K], fin[F_SIGN]
    lo, hi = (fin[F_LO2] + 1) // 2 - 1, (fin[F_HI2] - 1) // 2 + 1
    beyond = k + 1 if sign > 0 else k
    out[:] = -1
    queue = np.empty(h * w, dtype=np.int64)
    n = 0
    for s in range(lo, hi + 1):
        x, y = (beyond, s) if axis == 0 else (s, beyond)
        if 0 <= x < w and 0 <= y < h and passable[y, x] and out[y * w + x] < 0:
            out[y * w + x] = 0
            queue[n] = y * w + x
            n += 1
    head = 0
    while head < n:
        c = queue[head]
        head += 1
        cy, cx = c // w, c % w
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                x, y = cx + dx, cy + dy
                if 0 <= x < w and 0 <= y < h and passable[y, x] and out[y * w + x] < 0:
                    out[y * w + x] = out[c] + 1
                    queue[n] = y * w + x
                    n += 1


@njit(cache=True, nogil=True, inline="always")
def estimate_one(fin, steps, w, x, y):
    """A float lower bound on the length still needed from (x, y): the larger of
    `bound_one` and the king steps to just past F (`cell_steps`; none: no bound from it),
    scaled just below."""
    st = steps[np.int64(y) * w + x]
    if st > 0 and (2 * st - 1) ** 2 >= gap2_one(fin, x, y):
        # the steps are at least (√gap2 + 1)/2 (integers: no square root); the same value
        # as the max below (√ of a perfect square is exact, and rounding is monotone)
        return st * (1.0 - 2.0**-40)
    b = bound_one(fin, x, y)
    if st > 0:
        b = max(b, st * (1.0 - 2.0**-40))
    return b


@njit(cache=True, nogil=True, inline="always")
def moves_left_one(fin, x, y, vx, vy):
    """`moves_to_cross` of one state: the least n >= 1 with n(n+1)/2 + n·v >= D."""
    if fin[F_AXIS] == 0:
        p, v = np.int64(x), np.int64(vx)
    else:
        p, v = np.int64(y), np.int64(vy)
    if fin[F_SIGN] > 0:
        d = fin[F_K] + 1 - p
    else:
        d = p - fin[F_K]
        v = -v
    b = 2 * v + 1
    if 1 + b >= 2 * d:
        return np.int64(1)
    disc = np.float64(b * b + 8 * d)
    root = (-b + np.sqrt(max(disc, 0.0))) / 2
    n = max(np.int64(np.floor(root)) - 2, np.int64(1))
    while n * n + b * n < 2 * d:
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def overrun_moves(p, v, lo, hi):
    """The least k >= 1 such that, braking as hard as it can, a car at coordinate p with
    velocity v along one axis ends its k-th move outside [lo, hi]; 0 if it can stay.

    Each move changes v by at most 1 and then adds it to p, so after k moves the car is at
    least k·v - k(k+1)/2 further along v's direction (while that still grows: k < |v|); the
    most it must still travel before it can turn is |v|(|v| - 1)/2.
    """
    if v > 0:
        room, sp = hi - p, v
    elif v < 0:
        room, sp = p - lo, -v
    else:
        return np.int64(0)
    if sp * (sp - 1) // 2 <= room:
        return np.int64(0)
    k = np.int64(1)
    went = sp - 1
    while went <= room:
        k += 1
        went += sp - k
    return k


@njit(cache=True, nogil=True, inline="always")
def doomed_one(fin, box, x, y, vx, vy):
    """Whether the state provably cannot arrive: braking as hard as it can, the car ends
    its k-th move outside `box` (`overrun_moves`, either axis), where no move may end (every
    move ends on an endable cell, the arriving one too), and it needs at least k moves to
    arrive (`moves_left_one`), so it must end a move out there before it can arrive.
    Dropping such a state changes no arriving trajectory (sound for every search mode)."""
    kx = overrun_moves(np.int64(x), np.int64(vx), box[0], box[1])
    ky = overrun_moves(np.int64(y), np.int64(vy), box[2], box[3])
    if kx == 0 and ky == 0:
        return False
    k = kx if ky == 0 else (ky if kx == 0 else min(kx, ky))
    return moves_left_one(fin, x, y, vx, vy) >= k


@njit(cache=True, nogil=True, inline="always")
def _no_cell(pre, line, lo, hi):
    """Whether line `line` of the prefix counts `pre` (one row per line, pre[l, i]: cells
    drivable in some layer before index i) has no drivable cell in [lo, hi] (out of the
    grid: none)."""
    if line < 0 or line >= pre.shape[0]:
        return True
    lo, hi = max(lo, 0), min(hi, pre.shape[1] - 2)
    return lo > hi or pre[line, hi + 1] == pre[line, lo]


@njit(cache=True, nogil=True, inline="always")
def walled_one(rowp, colp, x, y, vx, vy):
    """Whether every move of the state is invalid because of the row (or column) next to
    it: with vy <= -2 every move ends above row y, so its walk touches a cell of row y - 1
    at a column between x and its end x + vx + ax (the segment crosses y - 1/2 there; at a
    corner the walk steps diagonally into that row), and if row y - 1 has no drivable cell
    in [min(x, x + vx - 1), max(x, x + vx + 1)], none is valid, an arriving one neither;
    likewise downwards and along x (`rowp`, `colp`: prefix counts of the cells drivable in
    some layer, per row and per column)."""
    x, y, vx, vy = np.int64(x), np.int64(y), np.int64(vx), np.int64(vy)
    if vy <= -2 or vy >= 2:
        if _no_cell(rowp, y - 1 if vy < 0 else y + 1, min(x, x + vx - 1), max(x, x + vx + 1)):
            return True
    if vx <= -2 or vx >= 2:
        if _no_cell(colp, x - 1 if vx < 0 else x + 1, min(y, y + vy - 1), max(y, y + vy + 1)):
            return True
    return False


@njit(cache=True, nogil=True)
def gap2_many(fin, x, y, out):
    """`gap2_one` over arrays."""
    for i in range(len(x)):
        out[i] = gap2_one(fin, x[i], y[i])


@njit(cache=True, nogil=True)
def moves_left_many(fin, x, y, vx, vy, out):
    """`moves_left_one` over arrays."""
    for i in range(len(x)):
        out[i] = moves_left_one(fin, x[i], y[i], vx[i], vy[i])
