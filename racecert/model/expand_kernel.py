"""The compiled move expansion behind `VectorRaceRules.expand` (numba).

One scalar pass per candidate move, in the order the solvers rely on (state-major,
acceleration-minor, in the order of the accelerations given), with the
rules of `rules.apply_move` in integers only:

1. zero velocity and the opening rule;
2. the walk over the touched cells (the supercover of the segment, corners crossed
   diagonally, as `geometry.touched_offsets`), with the layer rules: leaving a ramp into a
   cell that is drivable only in the other layer switches layer. A move that stays within
   the cell's *clearance* (every cell within Chebyshev radius speed - 1 plain, see
   `rules._clearance`) or whose bounding box is all plain cells (a summed-area table)
   needs no walk: its touched cells all lie in that square or box;
3. the end cell asphalt in the final layer;
4. the start and finish crossings: the fixed coordinate straddles k + 1/2 and the other
   one, at t = (2k + 1 - 2p) / (2v), lies within the closed span; the layer is the one of
   the cell entered at that boundary step; a crossing against the line's direction makes
   the move invalid; events are ordered by exact t (cross-multiplied), a finish before a
   start at equal t (as the reference sorts them).

The kernel fills preallocated arrays and returns how many successors and arrivals it
wrote; `rules.VectorRaceRules.expand` wraps them as `StateArrays`. It allocates nothing
and is compiled without numba's reference counting (`model.jit.NO_REFCOUNT`): yellow's
search calls it once per state (`racecert.oracle.yellow_kernel.search`), and counting the references
of its thirty-odd array arguments on every call cost two atomic updates each.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from racecert.model.jit import NO_REFCOUNT

# line parameters, one int64 row per line: axis (0: x = k + 1/2, 1: y = k + 1/2), k, lo,
# hi, sign, layer
L_AXIS, L_K, L_LO, L_HI, L_SIGN, L_LAYER = range(6)


@njit(cache=True, nogil=True, inline="always")
def _cross(axis, k, lo_, hi_, px, py, vx, vy):
    """(0: no crossing, 1: crossing) and t = num / den (den > 0) of a move and a line
    (its `L_AXIS`, `L_K`, `L_LO` and `L_HI`, as scalars: no array view per move)."""
    if axis == 0:
        pf, vf, ps, vs = px, vx, py, vy
    else:
        pf, vf, ps, vs = py, vy, px, vx
    if vf == 0 or (pf <= k) == (pf + vf <= k):
        return 0, 0, 1
    num = 2 * k + 1 - 2 * pf
    lhs = 2 * ps * vf + vs * num  # the doubled other coordinate at t, times vf
    lo, hi = 2 * lo_ - 1, 2 * hi_ + 1
    if vf > 0:
        inside = lhs >= lo * vf and lhs <= hi * vf
    else:
        inside = lhs <= lo * vf and lhs >= hi * vf
    if not inside:
        return 0, 0, 1
    if vf < 0:
        return 1, -num, -2 * vf
    return 1, num, 2 * vf


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def expand_moves(bx, by, bvx, bvy, blayer, bprog, bphase,  # the batch
                 acc_x, acc_y,  # the accelerations (rules.ACCELERATIONS), in order
                 w, h, drivable, endable, ramp, clearance, plain_sat,  # the surfaces, flat
                 op_moves, op_speed, op_perp,  # opening: K, max speed or -1, perp axis or -1
                 phase_limit, lines,
                 key_mode, skeys,  # successors as keys: 0 no, 1 with the phase, 2 without
                 src, sx, sy, svx, svy, slayer, sprog, sphase,  # successors (out)
                 asrc, ax_, ay_, avx, avy, alayer, aprog, aphase):  # arrivals (out)
    """Expand every state of the batch; returns (successors written, arrivals written).

    With `key_mode` > 0 the successors are written only as their state keys (the mixed
    radix of `model.states.StateCodec`) to `skeys`, and the successor columns are unused.
    """
    hw = h * w
    rvx, rvy = 2 * w - 1, 2 * h - 1
    n_s = 0
    n_a = 0
    # the lines' parameters as scalars (an array view per move would cost a reference count)
    s_axis, s_k, s_lo, s_hi = lines[0, L_AXIS], lines[0, L_K], lines[0, L_LO], lines[0, L_HI]
    s_sign, s_layer = lines[0, L_SIGN], lines[0, L_LAYER]
    f_axis, f_k, f_lo, f_hi = lines[1, L_AXIS], lines[1, L_K], lines[1, L_LO], lines[1, L_HI]
    f_sign, f_layer = lines[1, L_SIGN], lines[1, L_LAYER]
    reach = 0
    for a in range(len(acc_x)):
        reach = max(reach, abs(acc_x[a]), abs(acc_y[a]))
    for i in range(len(bx)):
        px, py, lay0 = np.int64(bx[i]), np.int64(by[i]), np.int64(blayer[i])
        clear = clearance[lay0 * hw + py * w + px]
        phase = bphase[i]
        opening = op_moves > 0 and phase < op_moves
        nphase = min(phase + 1, phase_limit)
        # a move crosses a line only if the line lies within the state's speed along its
        # axis plus the largest acceleration; most states are far from both lines, and
        # skip the test
        s_near = abs(s_k - (px if s_axis == 0 else py)) <= abs(
            np.int64(bvx[i] if s_axis == 0 else bvy[i])) + reach
        f_near = abs(f_k - (px if f_axis == 0 else py)) <= abs(
            np.int64(bvx[i] if f_axis == 0 else bvy[i])) + reach
        for a in range(len(acc_x)):
            vx = np.int64(bvx[i]) + acc_x[a]
            vy = np.int64(bvy[i]) + acc_y[a]
            avx_, avy_ = abs(vx), abs(vy)
            speed = max(avx_, avy_)
            if speed == 0:
                continue
            if opening:
                if op_speed >= 0 and speed > op_speed:
                    continue
                if op_perp == 0 and vx != 0:
                    continue
                if op_perp == 1 and vy != 0:
                    continue
            qx, qy = px + vx, py + vy
            layer = lay0
            # the layer of the cell entered across each line's boundary (walked moves)
            at0 = lay0
            at1 = lay0
            if speed > clear + 1:
                if qx < 0 or qx >= w or qy < 0 or qy >= h or not (
                        endable[qy * w + qx] or endable[hw + qy * w + qx]):
                    continue  # q is no asphalt in any layer
                # the bounding box all plain in the car's layer: valid as in the clearance
                # case (the layer stays); else walk
                x0, x1 = min(px, qx), max(px, qx) + 1
                y0, y1 = min(py, qy), max(py, qy) + 1
                base = lay0 * (h + 1) * (w + 1)
                inner = (plain_sat[base + y1 * (w + 1) + x1] - plain_sat[base + y0 * (w + 1) + x1]
                         - plain_sat[base + y1 * (w + 1) + x0]
                         + plain_sat[base + y0 * (w + 1) + x0])
                boxed = inner == (x1 - x0) * (y1 - y0)
            else:
                boxed = True
            if not boxed:
                # walk the touched cells (geometry.touched_offsets), layer rules on the way
                sxn = 1 if vx > 0 else (-1 if vx < 0 else 0)
                syn = 1 if vy > 0 else (-1 if vy < 0 else 0)
                cx, cy = px, py
                nx, ny = 1, 1
                # the start cell itself is the first touched cell (no layer switch into it)
                ok = bool(drivable[lay0 * hw + py * w + px])
                prev_ramp = ramp[py * w + px]
                while ok and (cx != qx or cy != qy):
                    ox, oy = cx, cy
                    if avy_ == 0 or (avx_ != 0 and nx * avy_ < ny * avx_):
                        cx += sxn
                        nx += 2
                    elif avx_ == 0 or ny * avx_ < nx * avy_:
                        cy += syn
                        ny += 2
                    else:
                        cx += sxn
                        cy += syn
                        nx += 2
                        ny += 2
                    if cx < 0 or cx >= w or cy < 0 or cy >= h:
                        ok = False
                        break
                    cell = cy * w + cx
                    if not drivable[layer * hw + cell]:
                        if prev_ramp and drivable[(1 - layer) * hw + cell]:
                            layer = 1 - layer
                        else:
                            ok = False
                            break
                    prev_ramp = ramp[cell]
                    if s_axis == 0:
                        hit = (ox <= s_k) != (cx <= s_k)
                    else:
                        hit = (oy <= s_k) != (cy <= s_k)
                    if hit:
                        at0 = layer
                    if f_axis == 0:
                        hit = (ox <= f_k) != (cx <= f_k)
                    else:
                        hit = (oy <= f_k) != (cy <= f_k)
                    if hit:
                        at1 = layer
                if not ok:
                    continue
            elif qx < 0 or qx >= w or qy < 0 or qy >= h:
                continue
            if not endable[layer * hw + qy * w + qx]:
                continue
            s_hit, s_num, s_den = 0, 0, 1
            f_hit, f_num, f_den = 0, 0, 1
            if s_near:
                s_hit, s_num, s_den = _cross(s_axis, s_k, s_lo, s_hi, px, py, vx, vy)
            if f_near:
                f_hit, f_num, f_den = _cross(f_axis, f_k, f_lo, f_hi, px, py, vx, vy)
            if s_hit and at0 != s_layer:
                s_hit = 0  # passes over or under the start line on another layer
            if f_hit and at1 != f_layer:
                f_hit = 0
            vs = vx if s_axis == 0 else vy
            vf = vx if f_axis == 0 else vy
            if (s_hit and vs * s_sign < 0) or (f_hit and vf * f_sign < 0):
                continue  # a line crossed the wrong way
            prog = bprog[i]
            arrives = False
            if s_hit and f_hit:
                if s_num * f_den < f_num * s_den:  # start first, then finish
                    arrives = True
                    prog = 0
                else:  # finish first (or at the same t), then the next lap's start
                    arrives = prog == 1
                    prog = 1
            elif f_hit:
                if prog == 1:
                    arrives = True
                    prog = 0
            elif s_hit:
                prog = 1
            if arrives:
                asrc[n_a] = i
                ax_[n_a] = qx
                ay_[n_a] = qy
                avx[n_a] = vx
                avy[n_a] = vy
                alayer[n_a] = layer
                aprog[n_a] = prog
                aphase[n_a] = nphase
                n_a += 1
            elif key_mode:
                key = np.int64(prog)
                if key_mode == 1:
                    key += 2 * np.int64(nphase)
                key = (((key * 2 + layer) * rvy + (vy + h - 1)) * rvx + (vx + w - 1)) * h + qy
                skeys[n_s] = key * w + qx
                n_s += 1
            else:
                src[n_s] = i
                sx[n_s] = qx
                sy[n_s] = qy
                svx[n_s] = vx
                svy[n_s] = vy
                slayer[n_s] = layer
                sprog[n_s] = prog
                sphase[n_s] = nphase
                n_s += 1
    return n_s, n_a
