"""The compiled database and unit propagation behind `racecert.independent.drup` (numba).

Written for the independent side from the checker's own rules (drup's module docstring)
and sharing no code with the oracle's kernels. `build_db` turns the parsed formula and
proof into one clause database; `run_pass` runs the checker proper, a step-for-step
transcription of drup's former pure-Python checker, so that every figure of a
`DrupResult` (which lemmas are checked, which clauses are marked, which deletions are
ignored) is what that checker gave:

- **literals** are codes ``2 v + (l < 0)`` (so ``code ^ 1`` is the negation), in one
  int32 array, each clause after a header of two ints, its length and its id: clause
  ``cid`` is ``lits[a:a + lits[a - 2]]`` with ``a = cst[cid]`` (and ``lits[a - 1] ==
  cid``), its order mutated in place (the two watched literals of a clause of three or
  more at positions 0 and 1, the literal a clause implies at position 0 or 1).
  ``val[code]`` is 1/-1/0 (true, false, unassigned), ``reason[v]`` the clause that
  implied variable ``v`` (-1 for a RUP assumption), ``trail`` the true literals in
  assignment order, ``seen`` the conflict analysis' marks, ``marked`` the clauses the
  refutation uses.
- **watch lists**, visited when their literal becomes false: clauses of three or more
  literals sit in the lists of their two watched literals (kind 0), binary clauses in
  implication lists of (other literal, clause id) pairs (kind 1); a long clause's entry
  is where its literals start (the propagation reads the clause without looking up its
  start, the header giving its id and length); each in family 0
  (unmarked clauses) or, with core-first, family 1 (marked ones). A clause is in at most
  one list of a literal at a time, so the lists of literal ``l`` of one kind never hold
  more entries than there are clauses of that kind containing ``l``: each (kind, ``l``)
  owns a fixed region of the int32 ``pool`` of that many entries (``rbeg`` its start,
  ``rcap`` its entries; region ``kind * NL + l``), family 1 growing up from its start and
  family 0 down from its end (entry ``j`` of a list is at ``rbeg + w j``, resp.
  ``rbeg + w (rcap - 1 - j)``, ``w`` = 1 or 2 ints), ``rlen[(2 kind + family) NL + l]``
  entries each. Nothing is ever reallocated. Appending, removing (the first occurrence,
  later entries shifted down) and the propagation's in-place filtering keep each list in
  the order the Python lists had.
- **scalars** live in the int64 array ``sc`` (indices below).

No function that Python calls returns an array: numba converts a returned array through
Python code (an unpickling of its type), the first Python code run after the call, where
a pending Ctrl-C would then be raised (and be taken for one inside numba). The step loops
stop at a step boundary when a work budget (watch and implication entries visited) is
spent or a progress step is reached and return a status, so Python reports progress and
sees a Ctrl-C between calls. Python calls two entry points, `build_db` and `run_pass` (the
passes behind one dispatcher: each entry point's machine code is loaded from numba's
cache separately, some 20 ms each). Plain integer loops, cached machine code
(`cache=True`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE = -(1 << 62)
"""A proof step that is skipped (an ignored deletion)."""

# indices into the scalar array `sc`
TL, QC, QN, DIRTY, NU, WORK, CF, NL, S, CHECKED, IGNORED, CONFLICT_AT, OVERFLOW = range(13)
NSC = 13

# what `run_pass` returns
PAUSED, CONFLICT, NOT_RUP, DONE, INTERNAL, FORMULA_OK, FORMULA_CONFLICT = range(7)

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
def build_db(flits, fstart, plits, pstart, pdel, nvars, lits, cst, steps, occ):
    """Fill the clause database of a formula and a proof (literals as int64 DIMACS
    integers, clause ``i`` at ``[start[i], start[i + 1])``; ``pdel[s]`` 1 for a deletion).

    Duplicate literals are dropped (first occurrences kept, in order). Formula clauses
    get ids ``0..nf-1``, added lemmas the next ids in proof order: ``lits`` (room for
    every literal and two more per clause, the header) and ``cst`` (a start per clause)
    are filled. A deletion of a
    clause of two or more literals removes the most recently added live clause with the
    same literal set (a hash table of literal sets, each holding a stack of clause ids);
    deletions of units, of the empty clause and of nothing live are ignored. ``steps[s]``
    becomes the clause id an addition adds, ``~cid`` for the clause a deletion deletes,
    `NONE` when ignored. ``occ[kind * NL + code]`` counts the clauses of three or more
    literals (kind 0) and of two (kind 1) that contain ``code``.

    Returns ``(literals used, deletions ignored, unit clauses)``.
    """
    nf = len(fstart) - 1
    ns = len(pstart) - 1
    nadd = len(cst)
    nl = 2 * (nvars + 1)
    stamp = np.zeros(nl, np.int32)
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
                lits[top + 2 + k] = code
                k += 1
                h += _mix(code)
        if is_del and k <= 1:  # drat-trim: unit deletions are ignored
            steps[s] = NONE
            ignored += 1
            continue
        # the group of this literal set (its literals are stamped with `tick`)
        g = -1
        p = np.int64(h & np.uint64(mask))
        while slots[p] >= 0:
            q = slots[p]
            if ghash[q] == h:
                r = cst[grep[q]]
                if lits[r - 2] == k:
                    same = True
                    for j in range(r, r + k):
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
        lits[top] = k
        lits[top + 1] = cid
        top += 2
        cst[cid] = top
        if k == 1:
            nunits += 1
        elif k >= 2:
            base = nl if k == 2 else 0
            for j in range(top, top + k):
                occ[base + lits[j]] += 1
        top += k
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
    return top, ignored, nunits


# --------------------------------------------------------------------------- watch lists


@njit(cache=True, nogil=True)
def _push(pool, rbeg, rcap, rlen, sc, kind, fam, code, x, y):
    """Append ``x`` (kind 0) or the pair ``(x, y)`` (kind 1) to list (kind, fam, code)."""
    nl = sc[NL]
    r = kind * nl + code
    k = (2 * kind + fam) * nl + code
    n = rlen[k]
    cap = rcap[r]
    if n + rlen[(2 * kind + 1 - fam) * nl + code] >= cap:  # cannot happen (see module)
        sc[OVERFLOW] = 1
        return
    j = n if fam else cap - 1 - n
    if kind == 0:
        pool[rbeg[r] + j] = x
    else:
        p = rbeg[r] + 2 * j
        pool[p] = x
        pool[p + 1] = y
    rlen[k] = n + 1


@njit(cache=True, nogil=True)
def _remove(pool, rbeg, rcap, rlen, sc, kind, fam, code, key):
    """Remove the first entry of list (kind, fam, code) whose clause is ``key`` (its id
    for kind 1, where its literals start for kind 0), shifting the later entries down."""
    nl = sc[NL]
    r = kind * nl + code
    k = (2 * kind + fam) * nl + code
    n = rlen[k]
    w = kind + 1
    if fam:
        base = rbeg[r]
        step = w
    else:
        base = rbeg[r] + w * (rcap[r] - 1)
        step = -w
    j = 0
    while j < n and pool[base + step * j + kind] != key:
        j += 1
    if j == n:  # not listed: cannot happen
        sc[OVERFLOW] = 1
        return
    for q in range(j, n - 1):
        dst = base + step * q
        pool[dst] = pool[dst + step]
        if kind:
            pool[dst + 1] = pool[dst + step + 1]
    rlen[k] = n - 1


@njit(cache=True, nogil=True)
def _watch(cid, lits, cst, marked, pool, rbeg, rcap, rlen, sc):
    """Enter a clause of two or more literals into the watch structures."""
    a0 = cst[cid]
    a = lits[a0]
    b = lits[a0 + 1]
    fam = 1 if (sc[CF] and marked[cid]) else 0
    if lits[a0 - 2] == 2:
        _push(pool, rbeg, rcap, rlen, sc, 1, fam, a, b, cid)
        _push(pool, rbeg, rcap, rlen, sc, 1, fam, b, a, cid)
    else:
        _push(pool, rbeg, rcap, rlen, sc, 0, fam, a, a0, 0)
        _push(pool, rbeg, rcap, rlen, sc, 0, fam, b, a0, 0)


@njit(cache=True, nogil=True)
def _unwatch(cid, core, lits, cst, pool, rbeg, rcap, rlen, sc):
    """Remove a clause of two or more literals from the watch structures."""
    a0 = cst[cid]
    fam = 1 if (sc[CF] and core) else 0
    if lits[a0 - 2] == 2:
        _remove(pool, rbeg, rcap, rlen, sc, 1, fam, lits[a0], cid)
        _remove(pool, rbeg, rcap, rlen, sc, 1, fam, lits[a0 + 1], cid)
    else:
        _remove(pool, rbeg, rcap, rlen, sc, 0, fam, lits[a0], a0)
        _remove(pool, rbeg, rcap, rlen, sc, 0, fam, lits[a0 + 1], a0)


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
def _attach(cid, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap, rlen, sc):
    """Add clause ``cid`` at the current top-level assignment: non-false literals moved
    to the front and watched, the implied literal assigned if the clause is unit. Returns
    ``cid`` if the clause is falsified, else -1; the caller propagates."""
    a0 = cst[cid]
    n = lits[a0 - 2]
    if n == 0:
        return cid
    if n == 1:
        units[sc[NU]] = cid
        sc[NU] += 1
        code = lits[a0]
        v = val[code]
        if v < 0:
            return cid
        if v == 0:
            _assign(code, cid, val, reason, trail, sc)
        return -1
    found = 0
    for k in range(a0, a0 + n):
        code = lits[k]
        if val[code] >= 0:
            lits[k] = lits[a0 + found]
            lits[a0 + found] = code
            found += 1
            if found == 2:
                break
    _watch(cid, lits, cst, marked, pool, rbeg, rcap, rlen, sc)
    if found == 0:
        return cid
    if found == 1 and val[lits[a0]] == 0:
        _assign(lits[a0], cid, val, reason, trail, sc)
    return -1


@njit(cache=True, nogil=True)
def _implied(cid, lits, cst, val, reason):
    """The top-level literal (code) that clause ``cid`` is the reason of, or 0."""
    a0 = cst[cid]
    for k in range(a0, a0 + min(2, lits[a0 - 2])):
        code = lits[k]
        if val[code] > 0 and reason[code >> 1] == cid:
            return code
    return 0


@njit(cache=True, nogil=True)
def _detach(cid, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap, rlen, sc):
    """Remove clause ``cid``; if it is the reason of a top-level literal, retract it."""
    a0 = cst[cid]
    n = lits[a0 - 2]
    if n == 0:
        return
    if n == 1:
        nu = sc[NU]
        if units[nu - 1] != cid:
            j = 0
            while j < nu and units[j] != cid:
                j += 1
            if j == nu:  # a broken invariant: never a walk past the array
                sc[OVERFLOW] = 1
                return
            for q in range(j, nu - 1):
                units[q] = units[q + 1]
        sc[NU] = nu - 1
    else:
        _unwatch(cid, marked[cid], lits, cst, pool, rbeg, rcap, rlen, sc)
    code = _implied(cid, lits, cst, val, reason)
    if code:
        j = sc[TL] - 1
        while j >= 0 and trail[j] != code:
            j -= 1
        if j < 0:  # a broken invariant: never a walk past the array
            sc[OVERFLOW] = 1
            return
        _truncate(j, val, trail, sc)
        sc[DIRTY] = 1


@njit(cache=True, nogil=True)
def _mark(cid, lits, cst, marked, pool, rbeg, rcap, rlen, sc):
    """Mark a clause as used by the refutation (moving it to the core watch lists)."""
    if marked[cid]:
        return
    if sc[CF] and lits[cst[cid] - 2] >= 2:
        _unwatch(cid, 0, lits, cst, pool, rbeg, rcap, rlen, sc)
        marked[cid] = 1
        _watch(cid, lits, cst, marked, pool, rbeg, rcap, rlen, sc)
    else:
        marked[cid] = 1


@njit(cache=True, nogil=True)
def _propagate(lits, cst, val, reason, trail, pool, rbeg, rcap, rlen, sc):
    """Unit propagation from the unprocessed part of the trail (the hot loop).

    Binary clauses from implication lists, longer ones with two watched literals; with
    core-first, every pending literal is propagated over marked clauses before a single
    one is propagated over unmarked clauses. Returns the conflicting clause or -1.
    """
    cf = sc[CF]
    nl = sc[NL]
    tl = sc[TL]
    qc = sc[QC]
    qn = sc[QN]
    work = 0
    confl = -1
    while True:
        if cf and qc < tl:
            fl = trail[qc] ^ 1
            qc += 1
            fam = 1
        elif qn < tl:
            fl = trail[qn] ^ 1
            qn += 1
            fam = 0
        else:
            break
        # binary clauses: (other literal, clause) pairs
        r = nl + fl
        bn = rlen[(2 + fam) * nl + fl]
        if bn:
            work += bn
            if fam:
                base = rbeg[r]
                step = 2
            else:
                base = rbeg[r] + 2 * (rcap[r] - 1)
                step = -2
            for j in range(bn):
                p = base + step * j
                other = pool[p]
                v = val[other]
                if v > 0:
                    continue
                if v < 0:
                    confl = pool[p + 1]
                    break
                val[other] = 1
                val[other ^ 1] = -1
                reason[other >> 1] = pool[p + 1]
                trail[tl] = other
                tl += 1
            if confl >= 0:
                break
        # longer clauses, watched by `fl`
        k = fam * nl + fl
        n = rlen[k]
        if n == 0:
            continue
        work += n
        if fam:
            base = rbeg[fl]
            step = 1
        else:
            base = rbeg[fl] + rcap[fl] - 1
            step = -1
        i = 0
        kept = 0
        while i < n:
            a0 = pool[base + step * i]  # where the clause's literals start
            i += 1
            other = lits[a0]
            if other == fl:
                other = lits[a0 + 1]
                lits[a0] = other
                lits[a0 + 1] = fl
            v = val[other]
            if v > 0:
                pool[base + step * kept] = a0
                kept += 1
                continue
            moved = False
            for q in range(a0 + 2, a0 + lits[a0 - 2]):
                code = lits[q]
                if val[code] >= 0:
                    lits[a0 + 1] = code
                    lits[q] = fl
                    # `_push(..., 0, fam, code, a0, 0)`, written out: the hot call
                    kp = fam * nl + code
                    m = rlen[kp]
                    cap = rcap[code]
                    if m + rlen[(1 - fam) * nl + code] >= cap:  # cannot happen
                        sc[OVERFLOW] = 1
                    else:
                        pool[rbeg[code] + (m if fam else cap - 1 - m)] = a0
                        rlen[kp] = m + 1
                    moved = True
                    break
            if moved:
                continue
            pool[base + step * kept] = a0
            kept += 1
            if v < 0:
                while i < n:
                    pool[base + step * kept] = pool[base + step * i]
                    kept += 1
                    i += 1
                confl = lits[a0 - 1]
                break
            val[other] = 1
            val[other ^ 1] = -1
            reason[other >> 1] = lits[a0 - 1]
            trail[tl] = other
            tl += 1
        rlen[k] = kept
        if confl >= 0:
            break
    sc[TL] = tl
    sc[QC] = qc
    sc[QN] = qn
    sc[WORK] += work
    return confl


@njit(cache=True, nogil=True)
def _settle(lits, cst, val, reason, trail, units, pool, rbeg, rcap, rlen, sc):
    """Bring the top-level trail to unit-propagation closure; a conflict or -1."""
    if sc[DIRTY]:
        sc[DIRTY] = 0
        for j in range(sc[NU]):
            u = units[j]
            code = lits[cst[u]]
            v = val[code]
            if v == 0:
                _assign(code, u, val, reason, trail, sc)
            elif v < 0:
                return np.int64(u)
        sc[QC] = 0
        sc[QN] = 0
    return _propagate(lits, cst, val, reason, trail, pool, rbeg, rcap, rlen, sc)


@njit(cache=True, nogil=True)
def _analyze(confl, true_code, lits, cst, marked, reason, seen, trail, pool, rbeg, rcap,
             rlen, sc):
    """Mark every clause the conflict ``confl`` depends on (walking the trail back); with
    ``confl == -1``, the reasons of the true literal ``true_code`` instead."""
    count = 0
    if confl >= 0:
        _mark(confl, lits, cst, marked, pool, rbeg, rcap, rlen, sc)
        a0 = cst[confl]
        for k in range(a0, a0 + lits[a0 - 2]):
            t = lits[k] ^ 1
            if not seen[t]:
                seen[t] = 1
                count += 1
    else:
        seen[true_code] = 1
        count = 1
    i = sc[TL] - 1
    while count:
        if i < 0:  # a broken invariant: never a walk past the array
            sc[OVERFLOW] = 1
            return
        t = trail[i]
        i -= 1
        if seen[t]:
            seen[t] = 0
            count -= 1
            r = reason[t >> 1]
            if r >= 0:
                _mark(r, lits, cst, marked, pool, rbeg, rcap, rlen, sc)
                a0 = cst[r]
                for k in range(a0, a0 + lits[a0 - 2]):
                    code = lits[k]
                    if code != t:
                        u = code ^ 1
                        if not seen[u]:
                            seen[u] = 1
                            count += 1


@njit(cache=True, nogil=True)
def _rup(cid, analyze, lits, cst, marked, val, reason, seen, trail, pool, rbeg, rcap, rlen,
         sc):
    """Is clause ``cid`` a RUP consequence of the (settled) database? Marks what the
    check used if ``analyze``."""
    top = sc[TL]
    a0 = cst[cid]
    for k in range(a0, a0 + lits[a0 - 2]):
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
                    _analyze(-1, code, lits, cst, marked, reason, seen, trail, pool, rbeg,
                             rcap, rlen, sc)
            _truncate(top, val, trail, sc)
            return True
        if v == 0:
            _assign(code ^ 1, -1, val, reason, trail, sc)
    confl = _propagate(lits, cst, val, reason, trail, pool, rbeg, rcap, rlen, sc)
    if confl < 0:
        _truncate(top, val, trail, sc)
        return False
    if analyze:
        _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, rbeg, rcap, rlen,
                 sc)
    _truncate(top, val, trail, sc)
    return True


# --------------------------------------------------------------------------- passes


@njit(cache=True, nogil=True)
def _load_formula(nf, backward, lits, cst, marked, val, reason, seen, trail, units, pool,
                  rbeg, rcap, rlen, sc):
    """Attach the formula's clauses ``0..nf-1`` and propagate: `FORMULA_CONFLICT` (the
    conflict analysed, in backward mode) or `FORMULA_OK`."""
    for cid in range(nf):
        confl = _attach(cid, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap,
                        rlen, sc)
        if confl >= 0:
            if backward:
                _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, rbeg, rcap,
                         rlen, sc)
            return FORMULA_CONFLICT
    confl = _propagate(lits, cst, val, reason, trail, pool, rbeg, rcap, rlen, sc)
    if confl >= 0:
        if backward:
            _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, rbeg, rcap,
                     rlen, sc)
        return FORMULA_CONFLICT
    return FORMULA_OK


@njit(cache=True, nogil=True)
def _pause(s, start, every, budget, sc):
    """Whether a pass should return to Python before step ``s`` (at once after an
    overflow)."""
    if sc[OVERFLOW]:
        return True
    if s == start:
        return False
    return (every > 0 and s % every == 0) or sc[WORK] >= budget


@njit(cache=True, nogil=True)
def _forward(steps, backward, every, budget, lits, cst, marked, val, reason, seen, trail,
             units, pool, rbeg, rcap, rlen, sc):
    """The forward pass from step ``sc[S]``: deletions applied (pseudo-unit ones turned
    into `NONE` and counted), lemmas added (and RUP-checked first unless ``backward``),
    until the database is conflicting. `PAUSED` (go on from ``sc[S]``), `CONFLICT` (at
    step ``sc[CONFLICT_AT]``; in backward mode analysed and the trail cut back to before
    that step's lemma), `NOT_RUP` (the lemma at ``sc[S]``), or `DONE` (no conflict)."""
    total = len(steps)
    s = sc[S]
    start = s
    sc[WORK] = 0
    while s < total:
        if _pause(s, start, every, budget, sc):
            sc[S] = s
            return PAUSED
        code = steps[s]
        if code == NONE:
            s += 1
            continue
        if code < 0:
            cid = ~code
            if lits[cst[cid] - 2] <= 1 or _implied(cid, lits, cst, val, reason):
                steps[s] = NONE  # drat-trim: (pseudo) unit deletions are ignored
                sc[IGNORED] += 1
            else:
                _detach(cid, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap,
                        rlen, sc)
            s += 1
            continue
        if not backward:
            sc[CHECKED] += 1
            if not _rup(code, False, lits, cst, marked, val, reason, seen, trail, pool,
                        rbeg, rcap, rlen, sc):
                sc[S] = s
                return NOT_RUP
        top_before = sc[TL]
        confl = _attach(code, lits, cst, marked, val, reason, trail, units, pool, rbeg,
                        rcap, rlen, sc)
        if confl < 0:
            confl = _propagate(lits, cst, val, reason, trail, pool, rbeg, rcap, rlen, sc)
        if confl >= 0:
            sc[S] = s
            sc[CONFLICT_AT] = s
            if backward:
                _analyze(confl, 0, lits, cst, marked, reason, seen, trail, pool, rbeg, rcap,
                         rlen, sc)
                _truncate(top_before, val, trail, sc)
            return CONFLICT
        s += 1
    sc[S] = s
    return DONE


@njit(cache=True, nogil=True)
def _backward(steps, every, budget, lits, cst, marked, val, reason, seen, trail, units,
              pool, rbeg, rcap, rlen, sc):
    """The backward pass from step ``sc[S]`` down to 0: deletions undone, lemmas removed,
    and each marked lemma RUP-checked (marking what its check uses). `PAUSED` (go on from
    ``sc[S]``), `NOT_RUP` (the lemma at ``sc[S]``), `INTERNAL` (an unexpected conflict
    before the check at ``sc[S]``) or `DONE`."""
    s = sc[S]
    start = s
    sc[WORK] = 0
    while s >= 0:
        if _pause(s, start, every, budget, sc):
            sc[S] = s
            return PAUSED
        code = steps[s]
        if code == NONE:
            s -= 1
            continue
        if code < 0:  # cannot be falsified: the database was conflict-free here
            _attach(~code, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap,
                    rlen, sc)
            s -= 1
            continue
        _detach(code, lits, cst, marked, val, reason, trail, units, pool, rbeg, rcap, rlen,
                sc)
        if not marked[code]:
            s -= 1
            continue
        if _settle(lits, cst, val, reason, trail, units, pool, rbeg, rcap, rlen, sc) >= 0:
            sc[S] = s
            return INTERNAL
        sc[CHECKED] += 1
        if not _rup(code, True, lits, cst, marked, val, reason, seen, trail, pool, rbeg,
                    rcap, rlen, sc):
            sc[S] = s
            return NOT_RUP
        s -= 1
    sc[S] = s
    return DONE


@njit(cache=True, nogil=True)
def run_pass(op, steps, nf, backward, every, budget, lits, cst, marked, val, reason, seen,
             trail, units, pool, rbeg, rcap, rlen, sc):
    """One pass, or one call's share of it: `LOAD_FORMULA` (attach the formula's ``nf``
    clauses), `FORWARD` or `BACKWARD` (from step ``sc[S]``, returning to Python after
    ``budget`` units of work or at a step that is a multiple of ``every`` > 0). Returns
    the pass' status; `INTERNAL` wherever a watch list overflowed its region or missed a
    clause (neither can happen: see the module)."""
    if op == LOAD_FORMULA:
        status = _load_formula(nf, backward, lits, cst, marked, val, reason, seen, trail,
                               units, pool, rbeg, rcap, rlen, sc)
    elif op == FORWARD:
        status = _forward(steps, backward, every, budget, lits, cst, marked, val, reason,
                          seen, trail, units, pool, rbeg, rcap, rlen, sc)
    else:
        status = _backward(steps, every, budget, lits, cst, marked, val, reason, seen,
                           trail, units, pool, rbeg, rcap, rlen, sc)
    return INTERNAL if sc[OVERFLOW] else status
