"""The yellow kernel's tables (`racecert.oracle.yellow_kernel`), compiled with numba.

Tables filled and read by the kernel, grown (rehashed) by the caller
(`yellow_search.Search`); all but the state index are open-addressing hash tables with
linear probing over power-of-two arrays:

- the state index, state key -> dense id: chains of ids per cell (`state_find`,
  `state_put`, `state_reindex`);
- the exact forms: an irrational part sum k·sqrt(d) (d > 1 square-free, sorted by d,
  every k positive: `RadicalForms`'s canonical form) is interned as an id (`intern`:
  terms in a pool, a hash of them to the ids); (id, n) -> the id of id + sqrt(n)
  (`trans_find`, `trans_put`, `plus_root`), n -> (k, d) with n = k²·d (`sqf_find`,
  `sqf_put`; the caller decomposes, `radicals.squarefree_decomposition`, and hands the
  rows in: `take_in`), and exact lengths extended by one move (`extend_many`).

The counters the kernel and these functions share live in one int64 array (`C_*`).
The functions the kernel calls allocate nothing and are compiled without numba's reference
counting (`racecert.model.jit.NO_REFCOUNT`, as the kernel): counting the references of
their array arguments cost atomic updates on every call, several per successor.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from racecert.model.jit import NO_REFCOUNT

# cnt indices: states stored, queue entries, states settled, edges, arrivals, requests,
# answers, best arrival's moves (bound), best arrival's source (bound), windows; interned
# irrational parts, their pool's size, the longest part, transitions; the bucket being
# settled, the bucket index that needs room; decompositions handed in (`sqf_in`); a chain
# of the state index longer than `CHAIN` was walked, the largest head array allowed
(C_N, C_HEAP, C_SETTLED, C_EDGES, C_ARR, C_REQ, C_ANS, C_BMOVES, C_BSRC, C_WIN, C_PARTS, C_POOL,
 C_MAXLEN, C_TRANS, C_CUR, C_BNEED, C_SQFIN, C_LONG, C_HCAP) = range(19)
N_COUNTERS = C_HCAP + 1
"""The length of the counters array `cnt` the kernel and `Search` share."""
_EMPTY = -1


@njit(cache=True, nogil=True, inline="always")
def _mix(a, b):
    """A hash of two int64 (splitmix64-style finaliser)."""
    z = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(b)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


CHAIN = 8
"""A state index chain walked longer than this asks for more heads (`state_find`)."""


@njit(cache=True, nogil=True, inline="always")
def _head_of(key, wh, bmask):
    """The head slot of a state key whose lowest mixed-radix digit is its cell y·w + x
    (< `wh`): each cell owns bmask + 1 consecutive heads, the rest of the key hashed
    among them (`head_slot`)."""
    return head_slot(key % wh, key // wh, bmask)


@njit(cache=True, nogil=True, inline="always")
def head_slot(cell, rest, bmask):
    """`_head_of` of the key rest·wh + cell, from its parts (no division)."""
    return cell * (bmask + 1) + np.int64(_mix(rest, 0) & np.uint64(bmask))


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def state_find(head, nxt, skey, key, wh, cnt):
    """The id of the state with `key`, -1 if none: the state index is one chain of ids per
    head (`_head_of`), linked by `nxt`, each id's key in `skey`.

    Why chains per cell and not one hash over the whole table: the successors of a state
    lie in a few neighbouring cells, and the states settled one after another lie near one
    another on the track and were stored at about the same time, so the heads and the
    chain entries read are the ones just read (a hash over millions of slots missed the
    cache on almost every probe, most of the search's time on a long serpentine). A walk
    longer than `CHAIN` sets `cnt[C_LONG]` (the caller doubles the heads per cell)."""
    return state_walk(head, nxt, skey, key, state_first(head, key, wh), cnt)


@njit(cache=True, nogil=True, inline="always")
def state_first(head, key, wh):
    """The first id of the chain `key` is in (-1: empty): `state_find` is `state_walk`
    from it."""
    return np.int64(head[_head_of(key, wh, len(head) // wh - 1)])


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def state_walk(head, nxt, skey, key, i, cnt):
    """`state_find` from the chain's first id i (`state_first`)."""
    walked = 0
    while i >= 0:
        if skey[i] == key:
            return np.int64(i)
        i = nxt[i]
        walked += 1
    if walked > CHAIN and 2 * len(head) <= cnt[C_HCAP]:
        cnt[C_LONG] = 1
    return np.int64(-1)


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def state_put(head, nxt, skey, key, i, wh):
    """Add state id i with `key` (not yet in the index) to the front of its chain."""
    state_put_at(head, nxt, skey, key, i, _head_of(key, wh, len(head) // wh - 1))


@njit(cache=True, nogil=True, inline="always")
def state_put_at(head, nxt, skey, key, i, slot):
    """`state_put` into the chain of head `slot` (`_head_of` of `key`)."""
    skey[i] = key
    nxt[i] = head[slot]
    head[slot] = i


@njit(cache=True, nogil=True)
def state_reindex(head, nxt, skey, n, wh):
    """Chain the ids 0..n-1 (keys in `skey`) into the empty heads `head` (new per-cell
    head count)."""
    for i in range(n):
        state_put(head, nxt, skey, skey[i], i, wh)


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def trans_find(t1, t2, tv, irr, n):
    """The irrational id of part `irr` plus sqrt(n), -1 when not yet interned."""
    mask = np.uint64(len(t1) - 1)
    slot = _mix(irr, n) & mask
    while True:
        if t1[slot] == _EMPTY:
            return np.int64(-1)
        if t1[slot] == irr and t2[slot] == n:
            return tv[slot]
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def trans_put(t1, t2, tv, irr, n, value):
    """Record irrational part `irr` plus sqrt(n) = id `value`."""
    mask = np.uint64(len(t1) - 1)
    slot = _mix(irr, n) & mask
    while t1[slot] != _EMPTY and not (t1[slot] == irr and t2[slot] == n):
        slot = (slot + np.uint64(1)) & mask
    t1[slot] = irr
    t2[slot] = n
    tv[slot] = value


@njit(cache=True, nogil=True)
def trans_rehash(t1, t2, tv, n1, n2, nv):
    """Move every transition into the empty, larger table (n1, n2, nv)."""
    for i in range(len(t1)):
        if t1[i] != _EMPTY:
            trans_put(n1, n2, nv, t1[i], t2[i], tv[i])


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def sqf_find(sk, sv, n):
    """The slot of `n` in the square-free table (keys `sk`), -1 if absent; `sv[slot]` is
    (k, d) with n = k²·d, d square-free (filled by the caller from
    `radicals.squarefree_decomposition`)."""
    mask = np.uint64(len(sk) - 1)
    slot = _mix(n, 7) & mask
    while True:
        if sk[slot] == n:
            return np.int64(slot)
        if sk[slot] == _EMPTY:
            return np.int64(-1)
        slot = (slot + np.uint64(1)) & mask


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def sqf_put(sk, sv, n, k, d):
    """Record n = k²·d."""
    mask = np.uint64(len(sk) - 1)
    slot = _mix(n, 7) & mask
    while sk[slot] != _EMPTY and sk[slot] != n:
        slot = (slot + np.uint64(1)) & mask
    sk[slot] = n
    sv[slot, 0] = k
    sv[slot, 1] = d


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def take_in(sqf_in, cnt, sk, sv):
    """Record the square-free decompositions the caller handed in (rows n, k, d)."""
    for r in range(cnt[C_SQFIN]):
        sqf_put(sk, sv, sqf_in[r, 0], sqf_in[r, 1], sqf_in[r, 2])
    cnt[C_SQFIN] = 0


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def intern(bd, bk, m, p_off, p_len, pd, pk, itk, itv, cnt):
    """The id of the irrational part with terms (bd[:m], bk[:m]) (sorted by d, every
    coefficient positive: `RadicalForms`'s canonical form), a new one if unknown.
    The caller keeps room for one more part and m more pool entries."""
    h = _hash_terms(bd, bk, m)
    mask = np.uint64(len(itv) - 1)
    slot = h & mask
    while itv[slot] != _EMPTY:
        j = itv[slot]
        if itk[slot] == h and p_len[j] == m:
            same = True
            off = p_off[j]
            for t in range(m):
                if pd[off + t] != bd[t] or pk[off + t] != bk[t]:
                    same = False
                    break
            if same:
                return j
        slot = (slot + np.uint64(1)) & mask
    j = cnt[C_PARTS]
    off = cnt[C_POOL]
    _place(bd, bk, m, j, off, p_off, p_len, pd, pk, cnt)
    itk[slot], itv[slot] = h, j
    return j


@njit(cache=True, nogil=True, inline="always")
def _hash_terms(bd, bk, m):
    h = np.uint64(m)
    for t in range(m):
        h = _mix(np.int64(h ^ np.uint64(bd[t])), bk[t])
    return h


@njit(cache=True, nogil=True)
def rehash_parts(p_off, p_len, pd, pk, parts, itk, itv):
    """Insert every interned part into the empty, larger hash table (itk, itv)."""
    mask = np.uint64(len(itv) - 1)
    for j in range(parts):
        off, m = p_off[j], p_len[j]
        h = _hash_terms(pd[off: off + m], pk[off: off + m], m)
        slot = h & mask
        while itv[slot] != _EMPTY:
            slot = (slot + np.uint64(1)) & mask
        itk[slot], itv[slot] = h, j


@njit(cache=True, nogil=True, inline="always")
def _place(bd, bk, m, j, off, p_off, p_len, pd, pk, cnt):
    p_off[j], p_len[j] = off, m
    for t in range(m):
        pd[off + t], pk[off + t] = bd[t], bk[t]
    cnt[C_PARTS] = j + 1
    cnt[C_POOL] = off + m
    if m > cnt[C_MAXLEN]:
        cnt[C_MAXLEN] = m


@njit(cache=True, nogil=True, **NO_REFCOUNT)
def plus_root(i, k, d, bd, bk, p_off, p_len, pd, pk, itk, itv, cnt):
    """The id of irrational part i plus k·sqrt(d) (d > 1 square-free), interned."""
    off, ln = p_off[i], p_len[i]
    m = 0
    placed = False
    for t in range(ln):
        dd, kk = pd[off + t], pk[off + t]
        if not placed and d < dd:
            bd[m], bk[m] = d, k
            m += 1
            placed = True
        if dd == d:
            kk += k
            placed = True
        bd[m], bk[m] = dd, kk
        m += 1
    if not placed:
        bd[m], bk[m] = d, k
        m += 1
    return intern(bd, bk, m, p_off, p_len, pd, pk, itk, itv, cnt)


@njit(cache=True, nogil=True)
def extend_many(ip, ir, vx, vy, out_ip, out_ir, t1, t2, t3, sk, sv, sqf_in, p_off, p_len, pd,
                pk, itk, itv, cnt):
    """Exact lengths (integer part, irrational id) of (ip, ir) plus one move (vx, vy) each,
    into (out_ip, out_ir); -1 when done, else an n = vx² + vy² whose square-free
    decomposition the caller must add first (then call again). The caller keeps room for
    len(ip) new parts."""
    take_in(sqf_in, cnt, sk, sv)
    if cnt[C_PARTS] == 0:  # part 0: no irrational part
        intern(pd, pk, np.int64(0), p_off, p_len, pd, pk, itk, itv, cnt)
    bd = np.empty(cnt[C_MAXLEN] + 1, dtype=np.int64)
    bk = np.empty(cnt[C_MAXLEN] + 1, dtype=np.int64)
    for r in range(len(ip)):
        n2 = np.int64(vx[r]) * vx[r] + np.int64(vy[r]) * vy[r]
        root = np.int64(np.rint(np.sqrt(np.float64(n2))))
        if root * root == n2:
            out_ip[r], out_ir[r] = ip[r] + root, ir[r]
            continue
        j = trans_find(t1, t2, t3, ir[r], n2)
        if j < 0:
            slot = sqf_find(sk, sv, n2)
            if slot < 0:
                return n2
            if len(bd) < cnt[C_MAXLEN] + 1:
                bd = np.empty(cnt[C_MAXLEN] + 1, dtype=np.int64)
                bk = np.empty(cnt[C_MAXLEN] + 1, dtype=np.int64)
            j = plus_root(ir[r], sv[slot, 0], sv[slot, 1], bd, bk, p_off, p_len, pd, pk,
                          itk, itv, cnt)
            if 2 * (cnt[C_TRANS] + 1) <= len(t1):  # else not cached, recomputed next time
                trans_put(t1, t2, t3, ir[r], n2, j)
                cnt[C_TRANS] += 1
        out_ip[r], out_ir[r] = ip[r], j
    return np.int64(-1)

