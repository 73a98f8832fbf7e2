"""The passes of the compiled DRUP checker (numba): `run_pass`, the one entry point that
Python calls (`racecert.independent.drup`) to load the formula and run the forward and
backward passes over the database of `racecert.independent.drup_build`, with the
propagation and RUP checks of `racecert.independent.drup_kernel`. It returns a status,
never an array (see `drup_kernel`'s module docstring: Ctrl-C between calls)."""

from __future__ import annotations

from numba import njit

from racecert.independent.drup_kernel import (
    CHECKED,
    CONFLICT,
    CONFLICT_AT,
    DONE,
    FORMULA_CONFLICT,
    FORMULA_OK,
    FORWARD,
    IGNORED,
    INTERNAL,
    LOAD_FORMULA,
    NONE,
    NOT_RUP,
    OVERFLOW,
    PAUSED,
    TL,
    WORK,
    S,
    _analyze,
    _attach,
    _detach,
    _implied,
    _propagate,
    _rup,
    _settle,
    _truncate,
)


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
