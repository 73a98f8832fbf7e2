"""The compiled walk behind `racecert.independent.fastgeom.FastGeometry.classify` (numba).

Written for the independent side from fastgeom's own rules (its module docstring) and
sharing no code with the oracle's kernels: one scalar pass per candidate move that is
still valid after the cheap vectorised tests (zero velocity, the opening rule, the
grid), over the move's touched cells as `fastgeom.footprint` lists them (corner signs,
integer entry order), looked up in a table of footprints per displacement:

1. the touched cells drivable, with the ramp rule on two-layer tracks (stay in the
   layer where the next cell is drivable in it, else switch when leaving a ramp into a
   cell drivable in the other layer; the walk goes on to the last cell, as the layer
   the move ends in is reported for every walked candidate). On one layer a move whose
   bounding box holds no undrivable cell (a summed-area table of them, `blocked`)
   needs no walk: every touched cell lies in that box;
2. the end cell endable (asphalt or ramp) in the final layer;
3. each line: the fixed coordinate straddles k + 1/2 (t = num / den with
   den = 2|v_fixed|, 0 < num < den), the other coordinate at t within the closed span
   (doubled, cross-multiplied), and the layer of the first touched cell beyond the line
   equal to the line's layer; a crossing against the line's direction makes the move
   invalid; start and finish ordered by cross-multiplying their times, the finish first
   at equal times; arrival and the next progress as fastgeom's rules state them.

`valid_moves` fuses the cheap tests with the walk for the searches (only the valid
moves come back). Plain integer loops over numpy arrays, cached machine code
(`cache=True`); the caller passes chunks, so Ctrl-C is seen between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# reason codes: the same numbers as fastgeom's (fastgeom imports them from here)
OK, ZERO, OPENING, OFF_GRID, OFF_TRACK, NOT_ENDABLE, WRONG_WAY = range(7)

# one int64 row per line: axis (0: x = k + 1/2, 1: y = k + 1/2), k, lo, hi, direction
# sign, layer
AXIS, K, LO, HI, SIGN, LAYER = range(6)


@njit(cache=True, nogil=True)
def walk_moves(live, px, py, vx, vy, layer, progress,  # the candidates (aligned, int64)
               slot, span, fp_start, fp_len, fp_dx, fp_dy,  # the footprint table
               width, plane, two_layers, drive, end, ramp, blocked, lines, scratch,
               code, arrives):
    """Judge the candidates `live` in place: `code`, `layer` (the layer the walk ends
    in), `progress` (the next progress) and `arrives` of each (see the module).

    `slot[(vx + span) * (2 span + 1) + vy + span]` indexes the displacement's footprint:
    cells `fp_dx/fp_dy[fp_start[s]: fp_start[s] + fp_len[s]]` in entry order. `scratch`
    holds at least the longest footprint's length (the layer in each touched cell).
    `blocked[(y) * (width + 1) + x]` counts the undrivable cells of layer 0 left of x and
    above y (one layer only; unused on two).
    """
    side = 2 * span + 1
    for i in live:
        x0, y0, dvx, dvy = px[i], py[i], vx[i], vy[i]
        s = slot[(dvx + span) * side + dvy + span]
        start, n = fp_start[s], fp_len[s]
        base = y0 * width + x0
        cur = layer[i]
        ok = True
        if two_layers:
            prev_ramp = False
            for j in range(n):
                cell = base + fp_dy[start + j] * width + fp_dx[start + j]
                here = drive[cur * plane + cell]
                switch = (not here) and prev_ramp and drive[(1 - cur) * plane + cell]
                if not (here or switch):
                    ok = False
                if switch:
                    cur = 1 - cur
                scratch[j] = cur
                prev_ramp = ramp[cell]
        elif _box_blocked(blocked, width + 1, x0, y0, x0 + dvx, y0 + dvy):
            for j in range(n):
                if not drive[base + fp_dy[start + j] * width + fp_dx[start + j]]:
                    ok = False
                    break
        bad = OK if ok else OFF_TRACK
        if bad == OK and not end[cur * plane + base + dvy * width + dvx]:
            bad = NOT_ENDABLE
        # each line: the span test, then the layer entered at the crossing (on one
        # layer, the only one; on two, that of the first touched cell beyond the line)
        s_hit, s_num, s_den = _crossing(lines[0], x0, y0, dvx, dvy)
        f_hit, f_num, f_den = _crossing(lines[1], x0, y0, dvx, dvy)
        if two_layers:
            s_hit = s_hit and _layer_beyond(lines[0], x0, y0, dvx, dvy, fp_dx, fp_dy,
                                            start, n, scratch) == lines[0][LAYER]
            f_hit = f_hit and _layer_beyond(lines[1], x0, y0, dvx, dvy, fp_dx, fp_dy,
                                            start, n, scratch) == lines[1][LAYER]
        else:
            s_hit = s_hit and cur == lines[0][LAYER]
            f_hit = f_hit and cur == lines[1][LAYER]
        if bad == OK and ((s_hit and not _legal(lines[0], dvx, dvy))
                          or (f_hit and not _legal(lines[1], dvx, dvy))):
            bad = WRONG_WAY
        start_first = s_hit and f_hit and s_num * f_den < f_num * s_den
        prog = progress[i]
        arrive = f_hit and (prog == 1 or start_first)
        if f_hit:
            new_prog = 1 if (s_hit and not start_first) else 0
        else:
            new_prog = 1 if (s_hit or prog == 1) else 0
        code[i] = bad
        layer[i] = cur
        progress[i] = new_prog
        arrives[i] = arrive and bad == OK


@njit(cache=True, nogil=True)
def valid_moves(x, y, vx, vy, layer, progress, phase,  # the states (aligned, int64)
                k, max_speed, straight, perp_is_y, height,  # the opening rule, the grid
                slot, span, fp_start, fp_len, fp_dx, fp_dy,  # the footprint table
                width, plane, two_layers, drive, end, ramp, blocked, lines, scratch,
                out_src, out_accel, out_x, out_y, out_vx, out_vy, out_layer, out_prog,
                out_arrives):
    """Write the valid moves of the states, in (state, acceleration) order, to the `out_*`
    arrays (room for 9 per state); return how many there are.

    fastgeom's cheap tests and `walk_moves` in one compiled call (no nine-fold numpy
    passes): acceleration a is (a // 3 - 1, a % 3 - 1); a zero velocity is invalid; while
    `phase < k` the opening rule bounds |v'| by `max_speed` (none when negative) and, if
    `straight`, keeps the perpendicular component (vy when `perp_is_y`, else vx) zero; the
    end must lie on the grid; the candidates left are walked in the `out_*` arrays, then
    the valid ones moved to the front. The footprint table must hold every displacement
    that passes the cheap tests.
    """
    m = 0
    for i in range(len(x)):  # the cheap tests, in fastgeom's order
        for a in range(9):
            nvx = vx[i] + a // 3 - 1
            nvy = vy[i] + a % 3 - 1
            if nvx == 0 and nvy == 0:
                continue
            if phase[i] < k:
                if max_speed >= 0 and (abs(nvx) > max_speed or abs(nvy) > max_speed):
                    continue
                if straight and (nvy if perp_is_y else nvx) != 0:
                    continue
            qx, qy = x[i] + nvx, y[i] + nvy
            if qx < 0 or qx >= width or qy < 0 or qy >= height:
                continue
            out_src[m], out_accel[m], out_x[m], out_y[m] = i, a, x[i], y[i]
            out_vx[m], out_vy[m] = nvx, nvy
            out_layer[m], out_prog[m] = layer[i], progress[i]
            m += 1
    code = np.empty(m, dtype=np.int8)
    walk_moves(np.arange(m), out_x, out_y, out_vx, out_vy, out_layer, out_prog, slot, span,
               fp_start, fp_len, fp_dx, fp_dy, width, plane, two_layers, drive, end, ramp,
               blocked, lines, scratch, code, out_arrives)
    n_out = 0
    for j in range(m):  # keep the valid ones, in place (n_out <= j)
        if code[j] != OK:
            continue
        out_src[n_out], out_accel[n_out] = out_src[j], out_accel[j]
        out_x[n_out], out_y[n_out] = out_x[j] + out_vx[j], out_y[j] + out_vy[j]
        out_vx[n_out], out_vy[n_out] = out_vx[j], out_vy[j]
        out_layer[n_out], out_prog[n_out] = out_layer[j], out_prog[j]
        out_arrives[n_out] = out_arrives[j]
        n_out += 1
    return n_out


@njit(cache=True, nogil=True, inline="always")
def _box_blocked(blocked, stride, xa, ya, xb, yb):
    """Whether the box of cells between (xa, ya) and (xb, yb) holds an undrivable cell."""
    x0, x1 = min(xa, xb), max(xa, xb) + 1
    y0, y1 = min(ya, yb), max(ya, yb) + 1
    return (blocked[y1 * stride + x1] - blocked[y0 * stride + x1]
            - blocked[y1 * stride + x0] + blocked[y0 * stride + x0]) > 0


@njit(cache=True, nogil=True, inline="always")
def _legal(line, vx, vy):
    """Whether a move crossing `line` goes in its direction."""
    return (vx if line[AXIS] == 0 else vy) * line[SIGN] > 0


@njit(cache=True, nogil=True, inline="always")
def _crossing(line, px, py, vx, vy):
    """(meets, t numerator, t denominator) of one move and one line: whether the move
    crosses k + 1/2 inside the line's closed span (fastgeom's rule; the layer test is
    the caller's)."""
    if line[AXIS] == 0:
        fixed, other, vf, vs = px, py, vx, vy
    else:
        fixed, other, vf, vs = py, px, vy, vx
    if vf == 0:
        return False, 0, 1
    sign = 1 if vf > 0 else -1
    den = 2 * abs(vf)
    num = (2 * line[K] + 1 - 2 * fixed) * sign
    if num <= 0 or num >= den:
        return False, num, den
    doubled = 2 * other * den + 2 * vs * num
    if doubled < (2 * line[LO] - 1) * den or doubled > (2 * line[HI] + 1) * den:
        return False, num, den
    return True, num, den


@njit(cache=True, nogil=True, inline="always")
def _layer_beyond(line, px, py, vx, vy, fp_dx, fp_dy, start, n, scratch):
    """The layer of the first touched cell beyond the line, as the walk left it in
    `scratch` (the offsets are monotone along the line's axis)."""
    fixed = px if line[AXIS] == 0 else py
    sign = 1 if (vx if line[AXIS] == 0 else vy) > 0 else -1
    j = 0
    while j < n:
        a = fp_dx[start + j] if line[AXIS] == 0 else fp_dy[start + j]
        if (sign > 0 and a >= line[K] + 1 - fixed) or (sign < 0 and a <= line[K] - fixed):
            break
        j += 1
    j = min(j, n - 1)
    return scratch[j]
