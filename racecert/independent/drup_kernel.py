"""The compiled database and unit propagation behind `racecert.independent.drup` (numba).

Written for the independent side from the checker's own rules (drup's module docstring)
and sharing no code with the oracle's kernels. `build_db` turns the parsed formula and
proof into one clause database; the rest is the checker proper, a step-for-step
transcription of drup's former pure-Python checker, so that every figure of a
`DrupResult` (which lemmas are checked, which clauses are marked, which deletions are
ignored) is what that checker gave:

- **literals** are codes ``2 v + (l < 0)`` (so ``code ^ 1`` is the negation), in one
  int32 array; clause ``cid`` is ``lits[cst[cid]:cst[cid + 1]]``, its order mutated in
  place (the two watched literals of a clause of three or more at positions 0 and 1,
  the literal a clause implies at position 0 or 1). ``val[code]`` is 1/-1/0 (true,
  false, unassigned), ``reason[v]`` the clause that implied variable ``v`` (-1 for a
  RUP assumption), ``trail`` the true literals in assignment order, ``seen`` the
  conflict analysis' marks, ``marked`` the clauses the refutation uses.
- **watch lists**, one per (family, literal): family 0 holds unmarked clauses, family
  1 (only with core-first) marked ones; clauses of three or more literals sit in the
  lists of their two watched literals (``list = family * NL + code``), binary clauses
  in implication lists of (other literal, clause id) pairs (``list = BBASE + family *
  NL + code``). Every list is a region of one growable int32 ``pool``: ``lst`` (start),
  ``lln`` (length), ``lcp`` (capacity); a full list moves to the pool's end with twice
  the room (the pool itself doubles when needed), and the regions left behind are
  reclaimed by `_compact` between proof steps once they outweigh the live ones.
  Appending, removing (first occurrence, the rest shifted down) and the propagation's
  in-place filtering keep each list in the order Python lists had.
- **scalars** live in the int64 array ``sc`` (indices below); functions that may grow
  the pool return it.

The step loops (`forward`, `backward`) stop at a step boundary when a work budget
(watch and implication entries visited) is spent or a progress step is reached, and
return to Python, which reports progress and sees a Ctrl-C between calls. Python calls
two entry points, `build_db` and `run_pass` (the passes behind one dispatcher: each entry
point's machine code is loaded from numba's cache separately, some 20 ms each). Plain
integer loops, cached machine code (`cache=True`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE = -(1 << 62)
"""A proof step that is skipped (an ignored deletion)."""

# indices into the scalar array `sc`
TL, QC, QN, DIRTY, NU, PTOP, PWASTE, WORK, CF, NL, BBASE, S, CHECKED, IGNORED, \
    CONFLICT_AT, TOP_BEFORE = range(16)
NSC = 16

# what `forward` and `backward` return
PAUSED, CONFLICT, NOT_RUP, DONE, INTERNAL = range(5)

# the passes of `run_pass`
LOAD_FORMULA, FORWARD, BACKWARD = range(3)


# --------------------------------------------------------------------------- database


@njit(cache=True, nogil=True)
def _mix(code):
    """splitmix64's finaliser of a literal code (summed: an order-free clause hash)."""
    z = np.uint64(code) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def build_db(flits, fstart, plits, pstart, pdel, nvars):
    """The clause database of a formula and a proof (literals as int64 DIMACS integers,
    clause ``i`` at ``[start[i], start[i + 1])``; ``pdel[s]`` 1 for a deletion).

    Duplicate literals are dropped (first occurrences kept, in order). Formula clauses
    get ids ``0..nf-1``, added lemmas the next ids in proof order. A deletion of a clause
    of two or more literals removes the most recently added live clause with the same
    literal set (a hash table of literal sets, each holding a stack of clause ids);
    deletions of units, of the empty clause and of nothing live are ignored.

    Returns ``(lits, cst, steps, ignored, nunits)``: ``steps[s]`` is the clause id an
    addition adds, ``~cid`` for the clause a deletion deletes, `NONE` when ignored.
    """
    nf = len(fstart) - 1
    ns = len(pstart) - 1
    nadd = nf
    for s in range(ns):
        if pdel[s] == 0:
            nadd += 1
    lits = np.empty(len(flits) + len(plits), np.int32)
    cst = np.zeros(nadd + 1, np.int64)
    steps = np.empty(ns, np.int64)
    stamp = np.zeros(2 * (nvars + 1), np.int32)
    cap = 16
    while cap < 2 * nadd:
        cap *= 2
    mask = cap - 1
    slots = np.full(cap, -1, np.int32)
    ghash = np.empty(max(nadd, 1), np.uint64)
    grep = np.empty(max(nadd, 1), np.int32)
    gtop = np.empty(max(nadd, 1), np.int32)
    below = np.empty(max(nadd, 1), np.int32)  # the next clause down a group's stack
    ngroups = 0
    top = 0
    ncl = 0
    ignored = 0
    nunits = 0
    tick = 0
    for i in range(nf + ns):
        s = i - nf
        if i < nf:
            src = flits
            a = fstart[i]
            b = fstart[i + 1]
            is_del = False
        else:
            src = plits
            a = pstart[s]
            b = pstart[s + 1]
            is_del = pdel[s] != 0
        if tick > 2_000_000_000:
            stamp[:] = 0
            tick = 0
        tick += 1
        k = 0
        h = np.uint64(0)
        for j in range(a, b):
            x = src[j]
            code = 2 * x if x > 0 else 1 - 2 * x
            if stamp[code] != tick:
                stamp[code] = tick
                lits[top + k] = code
                k += 1
                h += _mix(code)
        if is_del and k <= 1:  # drat-trim: unit deletions are ignored
            steps[s] = NONE
            ignored += 1
            continue
        # the group of this literal set (the literals are stamped with `tick`)
        g = -1
        p = np.int64(h & np.uint64(mask))
        while slots[p] >= 0:
            q = slots[p]
            if ghash[q] == h:
                r = grep[q]
                if cst[r + 1] - cst[r] == k:
                    same = True
                    for j in range(cst[r], cst[r + 1]):
                        if stamp[lits[j]] != tick:
                            same = False
                            break
                    if same:
                        g = q
                        break
            p = (p + 1) & mask
        if is_del:
            if g < 0 or gtop[g] < 0:  # deletes nothing live: ignored
                steps[s] = NONE
                ignored += 1
                continue
            cid = gtop[g]
            gtop[g] = below[cid]
            steps[s] = ~np.int64(cid)
            continue
        cid = ncl
        ncl += 1
        top += k
        cst[ncl] = top
        if k == 1:
            nunits += 1
        if g < 0:
            g = ngroups
            ngroups += 1
            ghash[g] = h
            grep[g] = cid
            gtop[g] = -1
            slots[p] = g
        below[cid] = gtop[g]
        gtop[g] = cid
        if i >= nf:
            steps[s] = cid
    return lits[:top].copy(), cst, steps, ignored, nunits


# --------------------------------------------------------------------------- watch lists


@njit(cache=True, nogil=True)
def _relocate(pool, lst, lln, lcp, sc, k, need):
    """Move list ``k`` to the pool's end with room for at least ``need`` ints."""
    cap = max(4, 2 * np.int64(lcp[k]))
    while cap < need:
        cap *= 2
    top = sc[PTOP]
    if top + cap > len(pool):
        grown = np.empty(max(2 * len(pool), top + cap), np.int32)
        grown[:top] = pool[:top]
        pool = grown
    st = lst[k]
    for j in range(lln[k]):
        pool[top + j] = pool[st + j]
    sc[PWASTE] += lcp[k]
    lst[k] = top
    lcp[k] = cap
    sc[PTOP] = top + cap
    return pool


@njit(cache=True, nogil=True)
def _push(pool, lst, lln, lcp, sc, k, x):
    """Append ``x`` to list ``k``."""
    n = lln[k]
    if n == lcp[k]:
        pool = _relocate(pool, lst, lln, lcp, sc, k, n + 1)
    pool[lst[k] + n] = x
    lln[k] = n + 1
    return pool


@njit(cache=True, nogil=True)
def _push2(pool, lst, lln, lcp, sc, k, x, y):
    """Append the pair ``(x, y)`` to (implication) list ``k``."""
    n = lln[k]
    if n + 2 > lcp[k]:
        pool = _relocate(pool, lst, lln, lcp, sc, k, n + 2)
    st = lst[k] + n
    pool[st] = x
    pool[st + 1] = y
    lln[k] = n + 2
    return pool


@njit(cache=True, nogil=True)
def _remove(pool, lst, lln, k, x, width):
    """Remove the first entry of list ``k`` whose last int is ``x`` (entries of
    ``width`` ints), shifting the rest down."""
    st = lst[k]
    n = lln[k]
    j = width - 1
    while pool[st + j] != x:
        j += width
    j -= width - 1
    for q in range(st + j, st + n - width):
        pool[q] = pool[q + width]
    lln[k] = n - width


@njit(cache=True, nogil=True)
def _compact(pool, lst, lln, lcp, sc):
    """A fresh pool holding only the lists' regions (capacities kept), in list order."""
    live = sc[PTOP] - sc[PWASTE]
    fresh = np.empty(max(live + live // 2, 1024), np.int32)
    top = 0
    for k in range(len(lst)):
        cap = lcp[k]
        if cap:
            st = lst[k]
            for j in range(lln[k]):
                fresh[top + j] = pool[st + j]
            lst[k] = top
            top += cap
    sc[PTOP] = top
    sc[PWASTE] = 0
    return fresh


@njit(cache=True, nogil=True)
def _watch(cid, lits, cst, marked, pool, lst, lln, lcp, sc):
    """Enter a clause of two or more literals into the watch structures."""
    a0 = cst[cid]
    a = lits[a0]
    b = lits[a0 + 1]
    fb = sc[NL] if (sc[CF] and marked[cid]) else 0
    if cst[cid + 1] - a0 == 2:
        base = sc[BBASE] + fb
        pool = _push2(pool, lst, lln, lcp, sc, base + a, b, cid)
        pool = _push2(pool, lst, lln, lcp, sc, base + b, a, cid)
    else:
        pool = _push(pool, lst, lln, lcp, sc, fb + a, cid)
        pool = _push(pool, lst, lln, lcp, sc, fb + b, cid)
    return pool


@njit(cache=True, nogil=True)
def _unwatch(cid, core, lits, cst, pool, lst, lln, sc):
    """Remove a clause of two or more literals from the watch structures."""
    a0 = cst[cid]
    a = lits[a0]
    b = lits[a0 + 1]
    fb = sc[NL] if (sc[CF] and core) else 0
    if cst[cid + 1] - a0 == 2:
        base = sc[BBASE] + fb
        _remove(pool, lst, lln, base + a, cid, 2)
        _remove(pool, lst, lln, base + b, cid, 2)
    else:
        _remove(pool, lst, lln, fb + a, cid, 1)
        _remove(pool, lst, lln, fb + b, cid, 1)


# --------------------------------------------------------------------------- assignment


@njit(cache=True, nogil=True)
def _assign(code, cid, val, reason, trail, sc):
    val[code] = 1
    val[code ^ 1] = -1
    reason[code >> 1] = cid
    trail[sc[TL]] = code
    sc[TL] += 1


@njit(cache=True, nogil=True)
def _truncate(top, val, trail, sc):
    """Unassign every trail literal from position ``top`` on."""
    for j in range(top, sc[TL]):
        code = trail[j]
        val[code] = 0
        val[code ^ 1] = 0
    sc[TL] = top
    if sc[QC] > top:
        sc[QC] = top
    if sc[QN] > top:
        sc[QN] = top


@njit(cache=True, nogil=True)
def _attach(cid, lits, cst, marked, val, reason, trail, units, pool, lst, lln, lcp, sc):
    """Add clause ``cid`` at the current top-level assignment: non-false literals moved
    to the front and watched, the implied literal assigned if the clause is unit. Returns
    ``(cid if the clause is falsified else -1, pool)``; the caller propagates."""
    a0 = cst[cid]
    n = cst[cid + 1] - a0
    if n == 0:
        return cid, pool
    if n == 1:
        units[sc[NU]] = cid
        sc[NU] += 1
        code = lits[a0]
        v = val[code]
        if v < 0:
            return cid, pool
        if v == 0:
            _assign(code, cid, val, reason, trail, sc)
        return -1, pool
    found = 0
    for k in range(a0, a0 + n):
        code = lits[k]
        if val[code] >= 0:
            lits[k] = lits[a0 + found]
            lits[a0 + found] = code
            found += 1
            if found == 2:
                break
    pool = _watch(cid, lits, cst, marked, pool, lst, lln, lcp, sc)
    if found == 0:
        return cid, pool
    if found == 1 and val[lits[a0]] == 0:
        _assign(lits[a0], cid, val, reason, trail, sc)
    return -1, pool


@njit(cache=True, nogil=True)
def _implied(cid, lits, cst, val, reason):
    """The top-level literal (code) that clause ``cid`` is the reason of, or 0."""
    a0 = cst[cid]
    for k in range(a0, min(a0 + 2, cst[cid + 1])):
        code = lits[k]
        if val[code] > 0 and reason[code >> 1] == cid:
            return code
    return 0


@njit(cache=True, nogil=True)
def _detach(cid, lits, cst, marked, val, reason, trail, units, pool, lst, lln, sc):
    """Remove clause ``cid``; if it is the reason of a top-level literal, retract it."""
    a0 = cst[cid]
    n = cst[cid + 1] - a0
    if n == 0:
        return
    if n == 1:
        nu = sc[NU]
        if units[nu - 1] != cid:
            j = 0
            while units[j] != cid:
                j += 1
            for q in range(j, nu - 1):
                units[q] = units[q + 1]
        sc[NU] = nu - 1
    else:
        _unwatch(cid, marked[cid], lits, cst, pool, lst, lln, sc)
    code = _implied(cid, lits, cst, val, reason)
    if code:
        j = sc[TL] - 1
        while trail[j] != code:
            j -= 1
        _truncate(j, val, trail, sc)
        sc[DIRTY] = 1


@njit(cache=True, nogil=True)
def _mark(cid, lits, cst, marked, pool, lst, lln, lcp, sc):
    """Mark a clause as used by the refutation (moving it to the core watch lists)."""
    if marked[cid]:
        return pool
    if sc[CF] and cst[cid + 1] - cst[cid] >= 2:
        _unwatch(cid, 0, lits, cst, pool, lst, lln, sc)
        marked[cid] = 1
        pool = _watch(cid, lits, cst, marked, pool, lst, lln, lcp, sc)
    else:
        marked[cid] = 1
    return pool


@njit(cache=True, nogil=True)
def _propagate(lits, cst, val, reason, trail, pool, lst, lln, lcp, sc):
    """Unit propagation from the unprocessed part of the trail (the hot loop).

    Binary clauses from implication lists, longer ones with two watched literals; with
    core-first, every pending literal is propagated over marked clauses before a single
    one is propagated over unmarked clauses. Returns ``(conflicting clause or -1, pool)``.
    """
    cf = sc[CF]
    nl = sc[NL]
    bb = sc[BBASE]
    tl = sc[TL]
    qc = sc[QC]
    qn = sc[QN]
    work = 0
    confl = -1
    while True:
        if cf and qc < tl:
            fl = trail[qc] ^ 1
            qc += 1
            fb = nl
        elif qn < tl:
            fl = trail[qn] ^ 1
            qn += 1
            fb = 0
        else:
            break
        bk = bb + fb + fl
        bn = lln[bk]
        if bn:
            bs = lst[bk]
            work += bn >> 1
            for j in range(bs, bs + bn, 2):
                other = pool[j]
                v = val[other]
                if v > 0:
                    continue
                if v < 0:
                    confl = pool[j + 1]
                    break
                val[other] = 1
                val[other ^ 1] = -1
                reason[other >> 1] = pool[j + 1]
                trail[tl] = other
                tl += 1
            if confl >= 0:
                break
        wk = fb + fl
        n = lln[wk]
        if n == 0:
            continue
        work += n
        st = lst[wk]
        i = 0
        kept = 0
        while i < n:
            cid = pool[st + i]
            i += 1
            a0 = cst[cid]
            other = lits[a0]
            if other == fl:
                other = lits[a0 + 1]
                lits[a0] = other
                lits[a0 + 1] = fl
            v = val[other]
            if v > 0:
                pool[st + kept] = cid
                kept += 1
                continue
            moved = False
            for k in range(a0 + 2, cst[cid + 1]):
                code = lits[k]
                if val[code] >= 0:
                    lits[a0 + 1] = code
                    lits[k] = fl
                    pool = _push(pool, lst, lln, lcp, sc, fb + code, cid)
                    moved = True
                    break
            if moved:
                continue
            pool[st + kept] = cid
            kept += 1
            if v < 0:
                while i < n:
                    pool[st + kept] = pool[st + i]
                    kept += 1
                    i += 1
                confl = cid
                break
            val[other] = 1
            val[other ^ 1] = -1
            reason[other >> 1] = cid
            trail[tl] = other
            tl += 1
        lln[wk] = kept
        if confl >= 0:
            break
    sc[TL] = tl
    sc[QC] = qc
    sc[QN] = qn
    sc[WORK] += work
    return confl, pool


@njit(cache=True, nogil=True)
def _settle(lits, cst, val, reason, trail, units, pool, lst, lln, lcp, sc):
    """Bring the top-level trail to unit-propagation closure; ``(conflict or -1, pool)``."""
    if sc[DIRTY]:
        sc[DIRTY] = 0
        for j in range(sc[NU]):
            u = units[j]
            code = lits[cst[u]]
            v = val[code]
            if v == 0:
                _assign(code, u, val, reason, trail, sc)
            elif v < 0:
                return np.int64(u), pool
        sc[QC] = 0
        sc[QN] = 0
    return _propagate(lits, cst, val, reason, trail, pool, lst, lln, lcp, sc)


@njit(cache=True, nogil=True)
def _analyze(confl, true_code, lits, cst, marked, reason, seen, trail, pool, lst, lln,
             lcp, sc):
    """Mark every clause the conflict ``confl`` depends on (walking the trail back); with
    ``confl == -1``, the reasons of the true literal ``true_code`` instead."""
    count = 0
    if confl >= 0:
        pool = _mark(confl, lits, cst, marked, pool, lst, lln, lcp, sc)
        for k in range(cst[confl], cst[confl + 1]):
            t = lits[k] ^ 1
            if not seen[t]:
                seen[t] = 1
                count += 1
    else:
        seen[true_code] = 1
        count = 1
    i = sc[TL] - 1
    while count:
        t = trail[i]
        i -= 1
        if seen[t]:
            seen[t] = 0
            count -= 1
            r = reason[t >> 1]
            if r >= 0:
                pool = _mark(r, lits, cst, marked, pool, lst, lln, lcp, sc)
                for k in range(cst[r], cst[r + 1]):
                    code = lits[k]
                    if code != t:
                        u = code ^ 1
                        if not seen[u]:
                            seen[u] = 1
                            count += 1
    return pool


@njit(cache=True, nogil=True)
def _rup(cid, analyze, lits, cst, marked, val, reason, seen, trail, pool, lst, lln, lcp,
         sc):
    """Is clause ``cid`` a RUP consequence of the (settled) database? Marks what the
    check used if ``analyze``. Returns ``(ok, pool)``."""
    top = sc[TL]
    for k in range(cst[cid], cst[cid + 1]):
        code = lits[k]
        v = val[code]
        if v > 0:  # satisfied at top level, or a tautology: trivially implied
            if analyze:
                assumed = False
                for j in range(top, sc[TL]):
                    if trail[j] == code:
                        assumed = True
                        break
                if not assumed:
                    pool = _analyze(-1, code, lits, cst, marked, reason, seen, trail, pool,
                                    lst, lln, lcp, sc)
            _truncate(top, val, trail, sc)
            return True, pool
        if v == 0:
            _assign(code ^ 1, -1, val, reason, trail, sc)
    confl, pool = _propagate(lits, cst, val, reason, trail, pool, lst, lln, lcp, sc)
    if confl < 0:
        _truncate(top, val, trail, sc)
        return False, pool
    if analyze:
        pool = _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, lst, lln,
                        lcp, sc)
    _truncate(top, val, trail, sc)
    return True, pool


# --------------------------------------------------------------------------- passes


@njit(cache=True, nogil=True)
def load_formula(nf, backward, lits, cst, marked, val, reason, seen, trail, units, pool,
                 lst, lln, lcp, sc):
    """Attach the formula's clauses ``0..nf-1`` and propagate. Returns ``(conflicting,
    pool)``; a conflict is analysed (marked) in backward mode."""
    for cid in range(nf):
        confl, pool = _attach(cid, lits, cst, marked, val, reason, trail, units, pool, lst,
                              lln, lcp, sc)
        if confl >= 0:
            if backward:
                pool = _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, lst,
                                lln, lcp, sc)
            return True, pool
    confl, pool = _propagate(lits, cst, val, reason, trail, pool, lst, lln, lcp, sc)
    if confl >= 0:
        if backward:
            pool = _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, lst,
                            lln, lcp, sc)
        return True, pool
    return False, pool


@njit(cache=True, nogil=True)
def _pause(s, start, every, budget, sc):
    """Whether a pass should return to Python before step ``s``."""
    if s == start:
        return False
    return (every > 0 and s % every == 0) or sc[WORK] >= budget


@njit(cache=True, nogil=True)
def forward(steps, backward, every, budget, lits, cst, marked, val, reason, seen, trail,
            units, pool, lst, lln, lcp, sc):
    """The forward pass from step ``sc[S]``: deletions applied (pseudo-unit ones turned
    into `NONE` and counted), lemmas added (and RUP-checked first unless ``backward``),
    until the database is conflicting. Returns ``(status, pool)``: `PAUSED` (go on from
    ``sc[S]``), `CONFLICT` (at step ``sc[CONFLICT_AT]``; in backward mode analysed and
    the trail cut back to before that step's lemma), `NOT_RUP` (the lemma at ``sc[S]``),
    or `DONE` (no conflict)."""
    total = len(steps)
    s = sc[S]
    start = s
    sc[WORK] = 0
    while s < total:
        if _pause(s, start, every, budget, sc):
            sc[S] = s
            return PAUSED, pool
        if sc[PWASTE] > (1 << 20) and 2 * sc[PWASTE] > sc[PTOP]:
            pool = _compact(pool, lst, lln, lcp, sc)
        code = steps[s]
        if code == NONE:
            s += 1
            continue
        if code < 0:
            cid = ~code
            if cst[cid + 1] - cst[cid] <= 1 or _implied(cid, lits, cst, val, reason):
                steps[s] = NONE  # drat-trim: (pseudo) unit deletions are ignored
                sc[IGNORED] += 1
            else:
                _detach(cid, lits, cst, marked, val, reason, trail, units, pool, lst, lln,
                        sc)
            s += 1
            continue
        if not backward:
            sc[CHECKED] += 1
            ok, pool = _rup(code, False, lits, cst, marked, val, reason, seen, trail, pool,
                            lst, lln, lcp, sc)
            if not ok:
                sc[S] = s
                return NOT_RUP, pool
        top_before = sc[TL]
        confl, pool = _attach(code, lits, cst, marked, val, reason, trail, units, pool,
                              lst, lln, lcp, sc)
        if confl < 0:
            confl, pool = _propagate(lits, cst, val, reason, trail, pool, lst, lln, lcp,
                                     sc)
        if confl >= 0:
            sc[S] = s
            sc[CONFLICT_AT] = s
            sc[TOP_BEFORE] = top_before
            if backward:
                pool = _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool,
                                lst, lln, lcp, sc)
                _truncate(top_before, val, trail, sc)
            return CONFLICT, pool
        s += 1
    sc[S] = s
    return DONE, pool


@njit(cache=True, nogil=True)
def backward(steps, every, budget, lits, cst, marked, val, reason, seen, trail, units,
             pool, lst, lln, lcp, sc):
    """The backward pass from step ``sc[S]`` down to 0: deletions undone, lemmas removed,
    and each marked lemma RUP-checked (marking what its check uses). Returns ``(status,
    pool)``: `PAUSED` (go on from ``sc[S]``), `NOT_RUP` (the lemma at ``sc[S]``),
    `INTERNAL` (an unexpected conflict before the check at ``sc[S]``) or `DONE`."""
    s = sc[S]
    start = s
    sc[WORK] = 0
    while s >= 0:
        if _pause(s, start, every, budget, sc):
            sc[S] = s
            return PAUSED, pool
        if sc[PWASTE] > (1 << 20) and 2 * sc[PWASTE] > sc[PTOP]:
            pool = _compact(pool, lst, lln, lcp, sc)
        code = steps[s]
        if code == NONE:
            s -= 1
            continue
        if code < 0:  # cannot be falsified: the database was conflict-free here
            _, pool = _attach(~code, lits, cst, marked, val, reason, trail, units, pool,
                              lst, lln, lcp, sc)
            s -= 1
            continue
        _detach(code, lits, cst, marked, val, reason, trail, units, pool, lst, lln, sc)
        if not marked[code]:
            s -= 1
            continue
        confl, pool = _settle(lits, cst, val, reason, trail, units, pool, lst, lln, lcp,
                              sc)
        if confl >= 0:
            sc[S] = s
            return INTERNAL, pool
        sc[CHECKED] += 1
        ok, pool = _rup(code, True, lits, cst, marked, val, reason, seen, trail, pool, lst,
                        lln, lcp, sc)
        if not ok:
            sc[S] = s
            return NOT_RUP, pool
        s -= 1
    sc[S] = s
    return DONE, pool


@njit(cache=True, nogil=True)
def run_pass(op, steps, nf, backward_mode, every, budget, lits, cst, marked, val, reason,
             seen, trail, units, pool, lst, lln, lcp, sc):
    """`load_formula` (`LOAD_FORMULA`, its answer as status 1/0), `forward` (`FORWARD`) or
    `backward` (`BACKWARD`): one compiled entry point, so that a process loads the
    checker's machine code from numba's cache once. Returns ``(status, pool)``."""
    if op == LOAD_FORMULA:
        conflicting, pool = load_formula(nf, backward_mode, lits, cst, marked, val, reason,
                                         seen, trail, units, pool, lst, lln, lcp, sc)
        return np.int64(1 if conflicting else 0), pool
    if op == FORWARD:
        return forward(steps, backward_mode, every, budget, lits, cst, marked, val, reason,
                       seen, trail, units, pool, lst, lln, lcp, sc)
    return backward(steps, every, budget, lits, cst, marked, val, reason, seen, trail,
                    units, pool, lst, lln, lcp, sc)
