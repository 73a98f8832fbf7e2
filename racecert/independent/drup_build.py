"""The compiled clause database of `racecert.independent.drup` (numba): `build_db` lays a
parsed formula and proof out as `racecert.independent.drup_kernel` describes (literal codes,
clause headers, watch-list regions) and matches each deletion to the live clause it
deletes. Part of the independent side; shares no code with the oracle's kernels."""

from __future__ import annotations

import numpy as np
from numba import njit

from racecert.independent.drup_kernel import NONE


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
