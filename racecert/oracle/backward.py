"""The BFS's backward pass: which states of a layer can move into given states of the next.

A move to (q, v', phase f) starts at p = q - v' with velocity u = v' - a, for some
acceleration a of the profile, any layer and progress bit, and phase f - 1, f or f + 1
within 0..K (the `RuleProfile` contract). In a `StateCodec` key those fields are the
*block* (velocity, layer, progress, phase) and the *cell* (y * w + x). So for the states
to reach that share a block, each acceleration and each choice of the high digits gives
one candidate block, and the candidates' cells are the targets' cells shifted by the
constant -(v'y * w + v'x): in key order too. The compiled kernel therefore finds the
candidate block's range in the layer's sorted keys once (two binary searches), and then
walks it with the candidates in order (a galloping search from the last position), so
no candidate key is stored or sorted and the layer is read in order.

The result is a superset of the true sources (any layer, progress, phase, acceleration);
the caller expands them with the rules and keeps only the real moves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from racecert.model.states import StateCodec

DST_CHUNK = 1 << 16  # target states per kernel call (Ctrl-C and the budget run between)


@njit(cache=True, nogil=True, inline="always")
def _lower_bound(a, lo, hi, x):
    """The first index in [lo, hi) of the sorted `a` with a[i] >= x (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, inline="always")
def _gallop(a, lo, hi, x):
    """`_lower_bound` for an x at or after a[lo]'s place: doubling steps from lo, then a
    binary search in the last step (cheap when x lies close to lo)."""
    step = 1
    while lo + step < hi and a[lo + step] < x:
        lo += step
        step <<= 1
    return _lower_bound(a, lo, min(lo + step + 1, hi), x)


@njit(cache=True, nogil=True)
def _mark_sources(layer, dst, w, h, acc_x, acc_y, k, keep_phase, mark):
    """mark[i] = True for every key layer[i] that is a candidate source of a key of `dst`.

    `layer` and `dst` are sorted keys. A target whose high digit (layer + 2 progress
    + 4 phase) has phase f may come from any layer and progress and, where the key keeps
    the phase, a phase within one of f in 0..k.
    """
    cells = w * h
    rvx, rvy = 2 * w - 1, 2 * h - 1
    per_digit = rvx * rvy
    n_layer = len(layer)
    i = 0
    while i < len(dst):
        block = dst[i] // cells
        j = i + 1
        end = (block + 1) * cells
        while j < len(dst) and dst[j] < end:
            j += 1
        g0 = g1 = 0  # the sources' phases (0 only where the key has none)
        if keep_phase:
            f = block // per_digit // 4
            g0, g1 = max(f - 1, 0), min(f + 1, k)
        vxd = block % rvx - (w - 1)
        vyd = (block // rvx) % rvy - (h - 1)
        for a in range(len(acc_x)):
            ux, uy = vxd - acc_x[a], vyd - acc_y[a]
            if abs(ux) > w - 1 or abs(uy) > h - 1:
                continue
            low = (uy + h - 1) * rvx + (ux + w - 1)
            for dd in range(4 * g0, 4 * g1 + 4):  # layer + 2 progress + 4 phase
                b0 = (dd * per_digit + low) * cells
                lo = _lower_bound(layer, 0, n_layer, b0)
                hi = _lower_bound(layer, lo, n_layer, b0 + cells)
                pos = lo
                for m in range(i, j):
                    if pos >= hi:
                        break
                    cell = dst[m] - block * cells
                    px = cell % w - vxd
                    py = cell // w - vyd
                    if px < 0 or px >= w or py < 0 or py >= h:
                        continue
                    key = b0 + py * w + px
                    pos = _gallop(layer, pos, hi, key)
                    if pos < hi and layer[pos] == key:
                        mark[pos] = True
        i = j


def candidate_sources(layer: np.ndarray, dst: np.ndarray, codec: StateCodec, k: int,
                      accelerations: tuple[tuple[int, int], ...]) -> np.ndarray:
    """The sorted indices into `layer` (sorted keys) of the candidate sources of the
    sorted keys `dst` (a superset of the true sources: see the module's docstring), for
    phases 0..k."""
    mark = np.zeros(len(layer), dtype=np.bool_)
    acc = np.array(accelerations, dtype=np.int64).reshape(-1, 2)
    acc_x, acc_y = np.ascontiguousarray(acc[:, 0]), np.ascontiguousarray(acc[:, 1])
    for lo in range(0, len(dst), DST_CHUNK):
        _mark_sources(layer, dst[lo: lo + DST_CHUNK], codec.width, codec.height, acc_x,
                      acc_y, k, codec.keep_phase, mark)
    return np.flatnonzero(mark)
