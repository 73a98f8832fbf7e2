"""The compiled search behind yellow (`racecert.oracle.dijkstra`): one search over dense
state ids, numba.

One kernel, `search`, runs both of yellow's searches on per-state arrays owned by the
caller (`racecert.oracle.yellow_search.Search`):

- ``BOUND`` (the bounding search of `yellow_bound.upper_bound`): a binary heap on
  d + weight · estimate (`estimate_one`), ties by fewer moves plus `moves_left`; floats
  only.
- ``EXACT`` / ``EDITOR`` (yellow itself): Dijkstra on the float distance d with a bucket
  queue. Every move is at least 1 long and float addition is monotone, so a move from a
  state of bucket k (d in [k, k + 1)) lands in a later bucket, and the states of one
  bucket are settled in any order. Exactly, floats are off by at most the certified
  error e (`float_error_one`, far below 1/2): a move u -> v that is exactly no longer
  than v's best has d(u) <= d(v) - 1 + 2e. So each bucket is split (`sub_bucket`): its
  late part, the last `late_margin` >= 2e of it, is settled after the rest; then such a
  u lies in an earlier bucket, or in the early part of v's, and is settled before v.
  ``EXACT`` keeps each state's exact length as a `RadicalForms`-style pair (integer part,
  interned irrational id: `intern`, `plus_root`) and orders two candidates by floats
  only where they are further apart than the error bound; closer ones are settled by the
  pair (same irrational id: the integer parts) or, for different ids, by an exact
  comparison answered by the caller. Exact ties go to fewer moves. A move's exact form is
  built only where the move may be taken (to a new state, or one whose distance floats
  cannot show to be smaller): most moves are not, and each form costs a transition-table
  lookup.

Every mode drops the successors that provably cannot arrive (`racecert.oracle.yellow_prune`:
`doomed_one`, too fast to stay on the grid before they could arrive; `walled_one`, every
move blocked by the row or column beside them); no arriving trajectory passes them. The
estimates the searches prune and order by are there too.

The kernel never calls Python. What it cannot do alone it asks for and returns: the
square-free decomposition of a move's n = vx² + vy² (`NEED`, rows of `req` with kind 0:
the caller hands it in through `sqf_in`), an exact comparison (kind 1: the caller
appends the answer to `answers`), room in the arrays (`GROW`). A state's
expansion is first computed without side effects and applied only once nothing is
missing, so the caller simply calls again. It also returns after `slice_limit` settled
states (`SLICE`), so that Ctrl-C, time limits (handlers run between calls, never in
compiled code) and progress reports keep working, and as soon as the states stored
exceed `max_states` (`OVER`).

Counters live in `cnt` (indices `C_*`) so that the search resumes where it returned.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from racecert.model.expand_kernel import expand_moves
from racecert.model.jit import NO_REFCOUNT
from racecert.oracle.yellow_prune import (  # noqa: F401 (re-exported for the callers)
    F_AXIS,
    F_HI2,
    F_K,
    F_K2,
    F_LO2,
    F_SIGN,
    bound_one,
    cell_steps,
    doomed_one,
    estimate_one,
    gap2_many,
    gap2_one,
    moves_left_many,
    moves_left_one,
    overrun_moves,
    walled_one,
)
from racecert.oracle.yellow_tables import (  # noqa: F401 (the counters, for the caller)
    C_ANS,
    C_ARR,
    C_BMOVES,
    C_BNEED,
    C_BSRC,
    C_CUR,
    C_EDGES,
    C_HCAP,
    C_HEAP,
    C_LONG,
    C_MAXLEN,
    C_N,
    C_PARTS,
    C_POOL,
    C_REQ,
    C_SETTLED,
    C_SQFIN,
    C_TRANS,
    C_WIN,
    head_slot,
    intern,
    plus_root,
    sqf_find,
    state_put,
    state_put_at,
    state_walk,
    take_in,
    trans_find,
    trans_put,
)

EXACT, EDITOR, BOUND = 0, 1, 2
DONE, SLICE, NEED, GROW, OVER = 0, 1, 2, 3, 4
EDITOR_TOLERANCE = 1e-6
_U = 2.0**-53


@njit(cache=True, nogil=True, inline="always")
def float_error_one(x):
    """`dijkstra.float_error` for one float (the same expression)."""
    return 8.0 * _U * (x + 3.0) * x


@njit(cache=True, nogil=True, inline="always")
def _less(hp, hq, hi, a, b):
    return hp[a] < hp[b] or (hp[a] == hp[b] and (hq[a] < hq[b] or (
        hq[a] == hq[b] and hi[a] < hi[b])))


@njit(cache=True, nogil=True, inline="always")
def _swap(hp, hq, hi, a, b):
    """Exchange heap entries a and b."""
    hp[a], hp[b] = hp[b], hp[a]
    hq[a], hq[b] = hq[b], hq[a]
    hi[a], hi[b] = hi[b], hi[a]


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _push(hp, hq, hi, n, p, q, i):
    """Push (p, q, i) on the binary min-heap of n entries (the caller adds 1 to n)."""
    hp[n], hq[n], hi[n] = p, q, i
    j = n
    while j > 0:
        parent = (j - 1) >> 1
        if not _less(hp, hq, hi, j, parent):
            break
        _swap(hp, hq, hi, j, parent)
        j = parent


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def _pop(hp, hq, hi, n):
    """Remove the top of the heap of n entries (the caller subtracts 1 from n)."""
    n -= 1
    hp[0], hq[0], hi[0] = hp[n], hq[n], hi[n]
    j = 0
    while True:
        a = 2 * j + 1
        if a >= n:
            break
        if a + 1 < n and _less(hp, hq, hi, a + 1, a):
            a += 1
        if not _less(hp, hq, hi, a, j):
            break
        _swap(hp, hq, hi, j, a)
        j = a


@njit(cache=True, nogil=True, inline="always")
def late_margin(k):
    """Width of the late part of bucket k (module docstring: the bucket queue)."""
    return 4.0 * float_error_one(k + 2.0)


@njit(cache=True, nogil=True)
def sub_bucket(d):
    """The bucket of distance d: 2k for d in [k, k + 1 - late_margin(k)), 2k + 1 (late)
    for the rest of [k, k + 1)."""
    k = np.int64(np.floor(d))
    return 2 * k + (1 if d >= k + 1.0 - late_margin(k) else 0)


@njit(cache=True, nogil=True, inline="always")
def _key(w, h, x, y, vx, vy, layer, prog, phase):
    """The state key (the mixed radix of `StateCodec` with the phase kept)."""
    return (_key_rest(w, h, vx, vy, layer, prog, phase) * h + y) * w + x


@njit(cache=True, nogil=True, inline="always")
def _key_rest(w, h, vx, vy, layer, prog, phase):
    """The key's digits above its cell: `_key` is rest·w·h + y·w + x."""
    key = np.int64(prog) + 2 * np.int64(phase)
    return ((key * 2 + layer) * (2 * h - 1) + (vy + h - 1)) * (2 * w - 1) + (vx + w - 1)


@njit(cache=True, nogil=True, inline="always")
def _answer(answers, n_ans, ip_a, ir_a, ip_b, ir_b):
    """1 if a < b, 0 if not, -1 if the caller has not answered yet."""
    for r in range(n_ans):
        if (answers[r, 0] == ip_a and answers[r, 1] == ir_a and answers[r, 2] == ip_b
                and answers[r, 3] == ir_b):
            return answers[r, 4]
    return -1


@njit(cache=True, nogil=True)
def near_edges(e_src, e_dst, e_acc, k, dist, settled, cols, exact):
    """Keep, of the first k kept moves, those that end at a settled state within the
    selection's tolerance of its distance: |d(u) + |v'| - d(v)| <= 2·float_error(d(v) + 1)
    (exact; every exactly tight move is among them) or <= 1e-6 (editor), as
    `dijkstra._select` computes it. They are moved, in order, to the front of the arrays;
    returns how many."""
    m = 0
    for r in range(k):
        s, t = e_src[r], e_dst[r]
        if not settled[t]:
            continue
        vx, vy = np.int64(cols[2, t]), np.int64(cols[3, t])
        gap = abs(dist[s] + np.sqrt(np.float64(vx * vx + vy * vy)) - dist[t])
        if gap <= (2 * float_error_one(dist[t] + 1.0) if exact else EDITOR_TOLERANCE):
            e_src[m], e_dst[m], e_acc[m] = s, t, e_acc[r]
            m += 1
    return m


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def search(mode, acc_x, acc_y, w, h, drivable, endable, ramp, clearance, plain_sat,
           op_moves, op_speed, op_perp, phase_limit, lines,  # the rules (expand_moves)
           fin, steps, box, rowp, colp, prune, limit, cut_on, u_ip, u_ir, u_moves,  # bounds
           settle_budget, max_states, slice_limit, stop_margin, weight,
           cols, dist, pred, moves, ipart, irr, settled, hval, lft,  # per state
           head, nxt, skey, hp, hq, hi, bhead, cnt, best,  # state index, queue, counters
           e_src, e_dst, e_acc, a_src, a_acc, a_len,  # edges and arrivals kept
           t1, t2, t3, answers, req,  # exact forms: transitions, answers, requests
           sk, sv, sqf_in, p_off, p_len, pd, pk, itk, itv,  # square-free, interned parts
           s_src, sc, a_out, work, cand, bd, bk):  # scratch (`Search.scratch`)
    """Run the search until it ends (`DONE`) or must return (module docstring).

    Compiled without numba's reference counting (`racecert.model.jit.NO_REFCOUNT`, as its
    callees that take arrays): the caller owns every array for the whole call, and
    counting the references of the arrays handed to each callee and of each view cost
    atomic updates worth a third of the search's time. So it allocates nothing; its
    scratch comes from the caller:
    `s_src` (9,) and `sc` (7, 10) int32 (successors in columns 0-8, the state expanded in
    9), `a_out` (8, 9) int32, `work` (8, 9) int64 (per successor: id, exact form's integer
    part and irrational id, key, kept, -1 / 0 / 1: decide by floats / keep / take, head
    slot, first key of its chain), `cand` (9,) float64, `bd`, `bk` (len(pd),) int64.
    """
    exact = mode == EXACT
    bnd = mode == BOUND
    ids, nip, nir, keys, ok, better = work[0], work[1], work[2], work[3], work[4], work[5]
    slots, fkey = work[6], work[7]
    v0, v1, v2, v3, v4, v5, v6 = (sc[0, 9:], sc[1, 9:], sc[2, 9:], sc[3, 9:], sc[4, 9:],
                                  sc[5, 9:], sc[6, 9:])  # expand_moves's, made once
    s0, s1, s2, s3, s4, s5, s6 = (sc[0, :9], sc[1, :9], sc[2, :9], sc[3, :9], sc[4, :9],
                                  sc[5, :9], sc[6, :9])
    o0, o1, o2, o3, o4, o5, o6, o7 = (a_out[0], a_out[1], a_out[2], a_out[3], a_out[4],
                                      a_out[5], a_out[6], a_out[7])
    key_none = np.int64(0)  # a zero typed int64, as the other callers pass it: a literal 0
    # compiles a second specialisation of the callee (expand_moves: ~3 s on a fresh install)
    done_here = 0
    wh = np.int64(w) * h
    bmask = len(head) // wh - 1  # the state index's heads per cell, less 1
    if exact:
        take_in(sqf_in, cnt, sk, sv)
        if cnt[C_PARTS] == 0:  # part 0: no irrational part
            intern(bd, bk, key_none, p_off, p_len, pd, pk, itk, itv, cnt)
    if cnt[C_N] == 0:  # open the initial state, stored in column 0 by the caller
        state_put(head, nxt, skey, _key(w, h, cols[0, 0], cols[1, 0], np.int64(cols[2, 0]),
                                        np.int64(cols[3, 0]), cols[4, 0], cols[5, 0],
                                        cols[6, 0]), key_none, wh)
        dist[0], pred[0], moves[0], settled[0] = 0.0, -1, 0, 0
        cnt[C_N] = 1
        hi[0] = 0
        if bnd:
            hval[0] = weight * estimate_one(fin, steps, w, cols[0, 0], cols[1, 0])
            lft[0] = moves_left_one(fin, cols[0, 0], cols[1, 0], cols[2, 0], cols[3, 0])
            hp[0], hq[0] = hval[0], lft[0]
        else:
            hq[0] = bhead[sub_bucket(0.0)]
            bhead[sub_bucket(0.0)] = 0
        cnt[C_HEAP] = 1
    while True:
        n = cnt[C_N]
        if (n + 9 > len(dist) or cnt[C_LONG] > 0 or cnt[C_HEAP] + 9 > len(hi)
                or cnt[C_EDGES] + 9 > len(e_src) or cnt[C_ARR] + 9 > len(a_src)):
            return GROW
        if exact and (2 * (cnt[C_TRANS] + 9) > len(t1) or cnt[C_PARTS] + 9 > len(p_off)
                      or 2 * (cnt[C_PARTS] + 9) > len(itv)
                      or cnt[C_POOL] + 9 * (cnt[C_MAXLEN] + 1) > len(pd)
                      or cnt[C_MAXLEN] + 1 > len(bd)):
            return GROW
        cur = e = 0
        if bnd:  # the heap: least estimate, then fewest moves to finish
            if cnt[C_HEAP] == 0:
                return DONE
            v = hi[0]
            if settled[v] or hp[0] != dist[v] + hval[v] or hq[0] != moves[v] + lft[v]:
                _pop(hp, hq, hi, cnt[C_HEAP])
                cnt[C_HEAP] -= 1
                continue
            if cnt[C_SETTLED] > settle_budget:
                return DONE
            if cnt[C_BSRC] >= 0 and best[0] <= hp[0] + stop_margin * (best[0] + 1.0):
                return DONE
        else:  # the buckets: lists threaded through (hi: state, hq: next entry)
            cur = cnt[C_CUR]
            while cur < len(bhead) and bhead[cur] < 0:
                cur += 1
            cnt[C_CUR] = cur
            if cur >= len(bhead):
                return DONE
            e = bhead[cur]
            v = hi[e]
            if settled[v] or sub_bucket(dist[v]) != cur:
                bhead[cur] = hq[e]
                continue
            if cnt[C_ARR] > 0:  # every open state is at least lb away
                k = cur >> 1
                lb = np.float64(k) if cur % 2 == 0 else k + 1.0 - late_margin(k)
                slack = 2 * float_error_one(best[0] + 1.0) if exact else EDITOR_TOLERANCE
                if lb + 1.0 > best[0] + slack:
                    return DONE
        dv = dist[v]
        vx0, vy0 = np.int64(cols[2, v]), np.int64(cols[3, v])
        cut = False
        if exact and cut_on and irr[v] == u_ir:
            g = gap2_one(fin, cols[0, v], cols[1, v])
            root = np.int64(np.rint(np.sqrt(np.float64(g))))
            if root * root == g and 2 * ipart[v] + root + 1 == 2 * u_ip:
                cut = moves[v] + moves_left_one(fin, cols[0, v], cols[1, v], vx0, vy0) > u_moves
        n_s = n_a = 0
        if not cut:
            # phase 1: the moves of v and what they need, without side effects
            for f in range(7):
                sc[f, 9] = cols[f, v]
            n_s, n_a = expand_moves(
                v0, v1, v2, v3, v4, v5, v6, acc_x, acc_y, w, h, drivable, endable, ramp,
                clearance, plain_sat, op_moves, op_speed, op_perp, phase_limit, lines,
                key_none, keys, s_src, s0, s1, s2, s3, s4, s5, s6, o0, o1, o2, o3, o4, o5,
                o6, o7)
            missing = False
            for j in range(n_s):
                qvx, qvy = np.int64(sc[2, j]), np.int64(sc[3, j])
                n2 = qvx * qvx + qvy * qvy
                c = dv + np.sqrt(np.float64(n2))
                cand[j] = c
                ok[j] = True
                if (doomed_one(fin, box, sc[0, j], sc[1, j], qvx, qvy)
                        or walled_one(rowp, colp, sc[0, j], sc[1, j], qvx, qvy)):
                    ok[j] = False
                    continue
                if prune and c - float_error_one(c) + estimate_one(fin, steps, w, sc[0, j],
                                                                 sc[1, j]) > limit:
                    ok[j] = False
                    continue
                if not bnd:
                    sb = sub_bucket(c)
                    if sb >= len(bhead):
                        cnt[C_BNEED] = sb
                        return GROW
                rest = _key_rest(w, h, qvx, qvy, sc[4, j], sc[5, j], sc[6, j])
                cell = np.int64(sc[1, j]) * w + sc[0, j]
                keys[j] = rest * wh + cell
                slots[j] = head_slot(cell, rest, bmask)
            # The state index (`yellow_tables.state_find`) in passes, so that the misses of
            # the successors overlap: first ids, their keys, walks where the first is not it.
            for j in range(n_s):
                if ok[j]:
                    ids[j] = head[slots[j]]
            for j in range(n_s):
                if ok[j] and ids[j] >= 0:
                    fkey[j] = skey[ids[j]]
            for j in range(n_s):
                if not ok[j]:
                    continue
                c = cand[j]
                qvx, qvy = np.int64(sc[2, j]), np.int64(sc[3, j])
                n2 = qvx * qvx + qvy * qvy
                t = ids[j]
                if t >= 0 and fkey[j] != keys[j]:
                    t = state_walk(head, nxt, skey, keys[j], t, cnt)
                ids[j] = t
                better[j] = -1
                if not exact or (t >= 0 and settled[t]):
                    continue
                # The exact form is needed only where the move may be taken: to a new
                # state, or one whose distance floats cannot show to be smaller.
                near = False
                if t >= 0:
                    dt = dist[t]
                    lo = min(c, dt)
                    thr = lo + 2 * float_error_one(lo + 1.0)
                    if c > thr:
                        continue  # floats decide: not shorter, never taken
                    near = dt <= thr
                root = np.int64(np.rint(np.sqrt(np.float64(n2))))
                if root * root == n2:
                    nip[j], nir[j] = ipart[v] + root, irr[v]
                else:
                    nip[j] = ipart[v]
                    nir[j] = trans_find(t1, t2, t3, irr[v], n2)
                    if nir[j] < 0:
                        slot = sqf_find(sk, sv, n2)
                        if slot < 0:  # the caller decomposes n2
                            missing = True
                            if cnt[C_REQ] < len(req):
                                r = cnt[C_REQ]
                                req[r, 0], req[r, 1] = 0, n2
                                cnt[C_REQ] += 1
                            continue
                        nir[j] = plus_root(irr[v], sv[slot, 0], sv[slot, 1], bd, bk, p_off,
                                           p_len, pd, pk, itk, itv, cnt)
                        trans_put(t1, t2, t3, irr[v], n2, nir[j])
                        cnt[C_TRANS] += 1
                if not near:
                    continue  # a new state, or floats decide: shorter
                if nir[j] == irr[t]:
                    better[j] = 1 if (nip[j] < ipart[t] or (
                        nip[j] == ipart[t] and moves[v] + 1 < moves[t])) else 0
                    continue
                a = _answer(answers, cnt[C_ANS], nip[j], nir[j], ipart[t], irr[t])
                if a < 0:
                    missing = True
                    if cnt[C_REQ] < len(req):
                        r = cnt[C_REQ]
                        req[r, 0], req[r, 1], req[r, 2] = 1, nip[j], nir[j]
                        req[r, 3], req[r, 4] = ipart[t], irr[t]
                        cnt[C_REQ] += 1
                else:
                    better[j] = a
            if missing:
                return NEED
        # phase 2: settle v and apply its moves
        if bnd:
            _pop(hp, hq, hi, cnt[C_HEAP])
            cnt[C_HEAP] -= 1
        else:
            bhead[cur] = hq[e]
        settled[v] = 1
        cnt[C_SETTLED] += 1
        done_here += 1
        fl = np.int64(np.floor(dv))
        if fl >= cnt[C_WIN]:
            cnt[C_WIN] = fl + 1
        for k in range(n_a):
            avx, avy = np.int64(a_out[3, k]), np.int64(a_out[4, k])
            length = dv + np.sqrt(np.float64(avx * avx + avy * avy))
            acc = (avy - vy0 + 1) * 3 + (avx - vx0 + 1)
            if bnd:
                m = moves[v] + 1
                if cnt[C_BSRC] < 0 or length < best[0] or (length == best[0]
                                                           and m < cnt[C_BMOVES]):
                    best[0] = length
                    cnt[C_BMOVES] = m
                    cnt[C_BSRC] = v
                    best[1] = acc
                continue
            r = cnt[C_ARR]
            a_src[r], a_acc[r], a_len[r] = v, acc, length
            cnt[C_ARR] += 1
            if r == 0 or length < best[0]:
                best[0] = length
        for j in range(n_s):
            if not ok[j]:
                continue
            c = cand[j]
            t = ids[j]
            qvx, qvy = np.int64(sc[2, j]), np.int64(sc[3, j])
            if t < 0:
                t = cnt[C_N]
                cnt[C_N] += 1
                state_put_at(head, nxt, skey, keys[j], t, slots[j])
                for f in range(7):
                    cols[f, t] = sc[f, j]
                dist[t] = np.inf
                pred[t] = -1
                moves[t] = 0
                settled[t] = 0
                if bnd:
                    hval[t] = weight * estimate_one(fin, steps, w, sc[0, j], sc[1, j])
                    lft[t] = moves_left_one(fin, sc[0, j], sc[1, j], qvx, qvy)
            if bnd:
                m = moves[v] + 1
                if not settled[t] and (c < dist[t] or (c == dist[t] and m < moves[t])):
                    dist[t], pred[t], moves[t] = c, v, m
                    _push(hp, hq, hi, cnt[C_HEAP], c + hval[t], m + lft[t], t)
                    cnt[C_HEAP] += 1
                continue
            if not settled[t]:
                if exact and better[j] >= 0:
                    take = better[j] == 1
                else:
                    take = c < dist[t]
                if take:
                    dist[t], pred[t], moves[t] = c, v, moves[v] + 1
                    if exact:
                        ipart[t], irr[t] = nip[j], nir[j]
                    sb = sub_bucket(c)
                    r = cnt[C_HEAP]
                    hi[r], hq[r] = t, bhead[sb]
                    bhead[sb] = r
                    cnt[C_HEAP] += 1
            if c <= dist[t] + EDITOR_TOLERANCE + 2 * float_error_one(c + 1.0):
                r = cnt[C_EDGES]
                e_src[r], e_dst[r] = v, t
                e_acc[r] = (qvy - vy0 + 1) * 3 + (qvx - vx0 + 1)
                cnt[C_EDGES] += 1
        if max_states >= 0 and cnt[C_N] > max_states:
            return OVER
        if done_here >= slice_limit:
            return SLICE
    return DONE
