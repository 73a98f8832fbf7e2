"""The compiled database and unit propagation behind `racecert.independent.drup` (numba).

Written for the independent side from the checker's own rules (drup's module docstring)
and sharing no code with the oracle's kernels, in three modules: `drup_build.build_db`
turns the parsed formula and proof into one clause database; this module keeps it (watch
lists, assignment, unit propagation, conflict analysis, RUP checks);
`drup_passes.run_pass` runs the checker proper over it, a step-for-step
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
sees a Ctrl-C between calls. Python calls two entry points, `drup_build.build_db` and
`drup_passes.run_pass` (the passes behind one dispatcher: each entry point's machine
code is loaded from numba's cache separately, some 20 ms each). Plain integer loops,
cached machine code (`cache=True`).
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
