"""A self-contained DRUP proof checker, plus DIMACS and proof-producing solver helpers.

Why this module exists: racecert certifies that a track cannot be finished in ``m* - 1``
moves by showing that a CNF encoding is unsatisfiable. A SAT solver's "UNSAT" is only a
claim; the certificate is the clausal proof the solver emits (DRUP: a sequence of added
lemmas and deleted clauses, ending with the empty clause), and the project must be able to
check that proof with code it ships. No external checker (drat-trim) is available, so this
module implements one in pure Python, written for speed: flat lists of ints, literal-indexed
arrays and watch lists (a literal ``l`` indexes ``array[l]`` directly; Python's negative
indexing maps ``-v`` to the upper half of a ``2 * nvars + 1`` list), a single trail, and no
per-literal objects.

What is checked (RUP only, no RAT): every added lemma ``C`` must be a *reverse unit
propagation* consequence of the current clause database (the formula, plus earlier lemmas,
minus deleted clauses): assigning every literal of ``C`` false and unit-propagating must
reach a conflict. The proof is accepted only if, in addition, the database becomes
conflicting under unit propagation (normally by adding the empty clause ``0``).

Two checking modes:

* ``"backward"`` (default, drat-trim's approach): a forward pass only adds and deletes
  clauses and propagates top-level units until the database becomes conflicting; conflict
  analysis then marks the clauses that the conflict depends on, and a backward pass undoes
  the proof step by step, RUP-checking only *marked* lemmas and marking the clauses each
  check uses. Lemmas that the refutation never uses are never checked. With ``core_first``
  (default) propagation visits marked clauses before unmarked ones, which keeps the marked
  core small (drat-trim's "core-first" heuristic).
* ``"forward"``: every lemma is checked in proof order, as it is added. About twice as slow
  on solver proofs (unused lemmas are checked too, without core-first propagation) but
  reports the *first* bad lemma.

Deletions: deletions are honoured (they keep the database small, which is what makes
checking fast), with drat-trim's default convention for UNSAT checking: a deletion of a
*unit* clause, or of a clause that is currently the reason of a top-level assigned literal
(a "pseudo unit"), is ignored, so top-level units are never retracted. Deletions that match
no live clause are ignored as well. Ignoring a deletion can never make the checker accept a
wrong proof: with RUP-only checking, a larger database only ever derives facts that follow
from the formula, so soundness does not depend on deletions at all.

Performance (CPython 3.11, one core of a busy shared VM, CPU seconds, backward mode,
Glucose4 proofs): random 3-SAT with 200 variables, 1.9 MB proof: 2 s; PHP(9,8), 4.7 MB:
16 s; random 3-SAT with 250 variables, 16.9 MB: 38 s; PHP(10,9), 35.5 MB: 343 s (540 MB of
memory). Forward mode and backward mode without core-first take about twice as long.
Parsing costs about 40 ms per MB of text; nearly all the time is unit propagation.

Proof formats: text DRUP/DRAT (``"1 -2 0"``, ``"d 1 -2 0"``, comment lines ``c ...``), as a
list of lines (what :func:`prove_unsat` and python-sat's ``get_proof()`` return) or as one
string; binary DRAT (``bytes``: ``a``/``d`` byte, then variable-length encoded literals); or
a sequence of clauses (sequences of ints, additions only; ``("d", clause)`` for a deletion).
"""

from __future__ import annotations

import gc
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

ProgressFn = Callable[[str, int, int], None]
"""Progress callback: ``progress(phase, done, total)``, ``phase`` in parse/forward/backward."""

_PROGRESS_EVERY = 20_000
_MAX_VARS = 10_000_000  # literal-indexed arrays: guards against absurd literals in a proof
_DEL_MARK = 1 << 40  # stands in for "d" while the text proof is parsed by numpy
_TEXT_CHARS = str.maketrans("", "", "0123456789-d \t\r\n\f\v")


@dataclass(frozen=True)
class DrupResult:
    """Outcome of :func:`check_drup`.

    ``verified`` is True only if every lemma that had to be checked is RUP and the clause
    database became conflicting under unit propagation (the empty clause was derived).
    ``steps`` counts proof steps (additions and deletions; comments excluded);
    ``lemmas_checked`` counts RUP checks performed (in backward mode only lemmas the
    refutation uses are checked); ``failed_step`` is the 1-based proof step of the lemma that
    failed (None when the failure is not a specific lemma, e.g. no empty clause);
    ``reason`` is a human-readable explanation; ``seconds`` is wall time including parsing.

    Also: ``mode`` ("backward"/"forward"); ``lemmas``, the number of added clauses in the
    proof; ``conflict_step``, the 1-based step after which the database was conflicting by
    unit propagation (0: the formula itself; later steps are not examined); and
    ``deletions_ignored``, deletions that were not applied (unit, pseudo-unit or matching
    no live clause); ``core_clauses``, in backward mode the number of formula clauses the
    refutation uses (an unsatisfiable core).
    """

    verified: bool
    steps: int
    lemmas_checked: int
    failed_step: int | None
    reason: str
    seconds: float
    mode: str = "backward"
    lemmas: int = 0
    conflict_step: int | None = None
    deletions_ignored: int = 0
    core_clauses: int = 0


@dataclass(frozen=True)
class ProofSteps:
    """A parsed clausal proof: ``deletions[i]`` is 1 if step ``i`` deletes ``clauses[i]``."""

    deletions: bytearray
    clauses: list[list[int]]

    def __len__(self) -> int:
        return len(self.clauses)


ProofInput = ProofSteps | str | bytes | Iterable[str] | Iterable[Sequence[int]]
"""Everything :func:`parse_proof` and :func:`check_drup` accept as a proof."""


# --------------------------------------------------------------------------- parsing


def _split_flat(flat: list[int], zeros: list[int]) -> tuple[bytearray, list[list[int]]]:
    """Cut a flat 0-terminated literal list into clauses; a leading ``_DEL_MARK`` = deletion."""
    dels = bytearray(len(zeros))
    clauses: list[list[int]] = []
    append = clauses.append
    start = 0
    for i, z in enumerate(zeros):
        if start < z and flat[start] == _DEL_MARK:
            dels[i] = 1
            append(flat[start + 1 : z])
        else:
            append(flat[start:z])
        start = z + 1
    return dels, clauses


def _parse_text(text: str) -> ProofSteps:
    """Parse a whole text DRUP/DRAT proof with numpy (much faster than per-token Python)."""
    if "c" in text:
        text = re.sub(r"(?m)^[ \t]*c.*$", "", text)
    bad = text.translate(_TEXT_CHARS)
    if bad:
        raise ValueError(f"unexpected characters in text proof: {sorted(set(bad))[:10]!r}")
    if re.search(r"-(?!\d)|\d-", text):
        raise ValueError("malformed literal in text proof")
    if "d" in text:
        text = text.replace("d", f" {_DEL_MARK} ")
    try:
        arr = np.fromstring(text, dtype=np.int64, sep=" ")  # type: ignore[call-overload]
    except ValueError as exc:  # pragma: no cover - guarded by the checks above
        raise ValueError(f"unparsable text proof: {exc}") from exc
    return _steps_from_array(arr)


def _steps_from_array(arr: np.ndarray) -> ProofSteps:
    """Turn a flat int64 array of 0-terminated clauses (with deletion marks) into steps."""
    if arr.size == 0:
        return ProofSteps(bytearray(), [])
    if arr[-1] != 0:
        raise ValueError("proof does not end with a 0-terminated clause")
    is_zero = arr == 0
    zeros = np.flatnonzero(is_zero)
    marks = np.flatnonzero(arr == _DEL_MARK)
    if marks.size:
        starts = np.concatenate(([0], zeros[:-1] + 1))
        if not np.isin(marks, starts).all():
            raise ValueError("deletion marker 'd' inside a clause")
    return ProofSteps(*_split_flat(arr.tolist(), zeros.tolist()))


def _parse_binary(data: bytes) -> ProofSteps:
    """Parse binary DRAT (``a``/``d`` then varint literals ``2*v + sign``, 0-terminated).

    Vectorised with numpy: in a valid stream a 0 byte not preceded by a continuation byte
    (>= 128) is a clause terminator, and the byte after a terminator is the next header.
    """
    a = np.frombuffer(data, dtype=np.uint8)
    n = a.size
    if n == 0:
        return ProofSteps(bytearray(), [])
    prev = np.empty(n, dtype=np.uint8)
    prev[0] = 255
    prev[1:] = a[:-1]
    term = np.flatnonzero((a == 0) & (prev < 128))
    if term.size == 0 or term[-1] != n - 1:
        raise ValueError("binary proof does not end with a terminated clause")
    heads = np.concatenate(([0], term[:-1] + 1))
    hb = a[heads]
    if not np.isin(hb, (97, 100)).all():
        raise ValueError("binary proof: clause does not start with 'a' or 'd'")
    if np.isin(heads, term).any():
        raise ValueError("binary proof: missing clause header")
    mask = np.ones(n, dtype=bool)
    mask[heads] = False
    mask[term] = False
    pos = np.flatnonzero(mask)
    dels = bytearray((hb == 100).astype(np.uint8).tobytes())
    if pos.size == 0:
        return ProofSteps(dels, [[] for _ in range(term.size)])
    lb = a[pos]
    ends = np.flatnonzero(lb < 128)
    gstart = np.concatenate(([0], ends[:-1] + 1))
    within = np.arange(lb.size) - np.repeat(gstart, ends - gstart + 1)
    if within.max() > 8:
        raise ValueError("binary proof: literal too large")
    vals = (lb & 127).astype(np.uint64) << (7 * within).astype(np.uint64)
    u = np.add.reduceat(vals, gstart).astype(np.int64)
    if (u < 2).any():
        raise ValueError("binary proof: literal 0 inside a clause")
    lits = np.where(u & 1, -(u >> 1), u >> 1)
    owner = np.searchsorted(term, pos[ends])
    counts = np.bincount(owner, minlength=term.size)
    cuts = np.cumsum(counts).tolist()
    flat = lits.tolist()
    clauses = []
    start = 0
    for c in cuts:
        clauses.append(flat[start:c])
        start = c
    return ProofSteps(dels, clauses)


def _parse_items(items: list) -> ProofSteps:
    """Parse a list of per-step items: ints sequences (additions) or ``("d", clause)``."""
    dels = bytearray(len(items))
    clauses: list[list[int]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            one = _parse_text(item)
            if len(one) != 1:
                raise ValueError(f"proof item {i + 1} is not exactly one clause: {item!r}")
            dels[i] = one.deletions[0]
            clauses.append(one.clauses[0])
            continue
        if isinstance(item, tuple) and len(item) == 2 and item[0] in ("d", "a"):
            dels[i] = item[0] == "d"
            item = item[1]
        lits = [int(x) for x in item]
        if lits and lits[-1] == 0:
            lits.pop()
        if 0 in lits:
            raise ValueError(f"proof item {i + 1} contains literal 0 inside the clause")
        clauses.append(lits)
    return ProofSteps(dels, clauses)


def parse_proof(proof: ProofInput) -> ProofSteps:
    """Parse a proof in any accepted form (see the module docstring) into :class:`ProofSteps`.

    A ``str`` is a whole text proof; ``bytes`` is binary DRAT if it starts with ``a`` or
    contains a NUL byte (every binary clause ends with one), else text; an iterable of
    ``str`` is a list of text lines, one clause each; an iterable of int sequences is a list
    of clauses. Raises ``ValueError`` when the proof is malformed.
    """
    if isinstance(proof, ProofSteps):
        return proof
    if isinstance(proof, bytes | bytearray | memoryview):
        data = bytes(proof)
        if data[:1] == b"a" or b"\x00" in data:
            return _parse_binary(data)
        return _parse_text(data.decode("ascii"))
    if isinstance(proof, str):
        return _parse_text(proof)
    items = proof if isinstance(proof, list) else list(proof)
    if items and all(isinstance(x, str) for x in items):
        steps = _parse_text("\n".join(items))
        if len(steps) != len(items) and not any(
            not x.strip() or x.lstrip().startswith("c") for x in items
        ):
            raise ValueError("text proof lines must hold exactly one clause each")
        return steps
    return _parse_items(items)


def read_proof(path: str | os.PathLike[str]) -> ProofSteps:
    """Read a proof file, text or binary DRAT (detected as in :func:`parse_proof`)."""
    with open(path, "rb") as fh:
        data = fh.read()
    return parse_proof(data)


# --------------------------------------------------------------------------- checker


class _Checker:
    """Clause database, watch lists and trail for one proof check (internal).

    Representation: ``cls[cid]`` is a clause as a Python list of ints (mutated in place: the
    two watched literals of a long clause are kept at positions 0 and 1, and a long clause
    that is the reason of an assignment has the implied literal at position 0). ``val[l]``
    is 1/-1/0 for literal ``l`` true/false/unassigned (``val[-l] == -val[l]``), ``reason[l]``
    the clause that implied the true literal ``l`` (-1 for assumptions), ``trail`` the true
    literals in assignment order.

    Watches, indexed by literal, are visited when that literal becomes false. Clauses of
    three or more literals sit in the watch lists ``wn`` of their two watched literals.
    Binary clauses ``(a, b)`` are kept as implication lists instead (``bn_lit[a]`` holds
    ``b`` and ``bn_cid[a]`` the clause id, at the same index, and symmetrically for ``b``):
    they need no watch moves and no clause access, which matters for one-hot encodings whose
    at-most-one constraints are binary. With core-first propagation marked clauses move to
    the parallel ``wc`` / ``bc_lit`` / ``bc_cid`` lists. Unit clauses are not watched; the
    live ones are listed in ``units``.

    Invariant between operations (after propagation): if a watched literal is false, the
    other watched literal of the clause is true. Removing a reason clause truncates the trail
    at the literal it implied and sets ``dirty``; ``settle`` then re-assigns the live units
    and re-propagates from the start of the trail, which restores both the invariant and the
    closure of the trail under unit propagation.
    """

    def __init__(self, cls: list[list[int]], nvars: int, core_first: bool) -> None:
        size = 2 * nvars + 1
        self.cls = cls
        self.val: list[int] = [0] * size
        self.reason: list[int] = [-1] * size
        self.seen = bytearray(size)
        self.wn: list[list[int]] = [[] for _ in range(size)]
        self.bn_lit: list[list[int]] = [[] for _ in range(size)]
        self.bn_cid: list[list[int]] = [[] for _ in range(size)]
        if core_first:
            self.wc: list[list[int]] = [[] for _ in range(size)]
            self.bc_lit: list[list[int]] = [[] for _ in range(size)]
            self.bc_cid: list[list[int]] = [[] for _ in range(size)]
        else:
            self.wc, self.bc_lit, self.bc_cid = self.wn, self.bn_lit, self.bn_cid
        self.core_first = core_first
        self.marked = bytearray(len(cls))
        self.units: list[int] = []
        self.trail: list[int] = []
        self.qc = 0
        self.qn = 0
        self.dirty = False
        self.repropagations = 0

    # -- database -----------------------------------------------------------------

    def _watch(self, cid: int, c: list[int]) -> None:
        """Enter a clause of two or more literals into the watch structures."""
        a = c[0]
        b = c[1]
        core = self.marked[cid]
        if len(c) == 2:
            blit, bcid = (self.bc_lit, self.bc_cid) if core else (self.bn_lit, self.bn_cid)
            blit[a].append(b)
            bcid[a].append(cid)
            blit[b].append(a)
            bcid[b].append(cid)
        else:
            fam = self.wc if core else self.wn
            fam[a].append(cid)
            fam[b].append(cid)

    def _unwatch(self, cid: int, c: list[int], core: int) -> None:
        """Remove a clause of two or more literals from the watch structures."""
        a = c[0]
        b = c[1]
        if len(c) == 2:
            blit, bcid = (self.bc_lit, self.bc_cid) if core else (self.bn_lit, self.bn_cid)
            for x in (a, b):
                ids = bcid[x]
                k = ids.index(cid)
                del ids[k]
                del blit[x][k]
        else:
            fam = self.wc if core else self.wn
            fam[a].remove(cid)
            fam[b].remove(cid)

    def attach(self, cid: int) -> int:
        """Add clause ``cid`` to the database at the current top-level assignment.

        Picks non-false watches; assigns the implied literal if the clause is unit. Returns
        ``cid`` if the clause is falsified (a conflict), else -1. The caller propagates.
        """
        c = self.cls[cid]
        val = self.val
        n = len(c)
        if n == 0:
            return cid
        if n == 1:
            self.units.append(cid)
            lit = c[0]
            v = val[lit]
            if v < 0:
                return cid
            if v == 0:
                self._assign(lit, cid)
            return -1
        # move up to two non-false literals to the front
        found = 0
        for k in range(n):
            lit = c[k]
            if val[lit] >= 0:
                c[k] = c[found]
                c[found] = lit
                found += 1
                if found == 2:
                    break
        self._watch(cid, c)
        if found == 0:
            return cid
        if found == 1 and val[c[0]] == 0:
            self._assign(c[0], cid)
        return -1

    def implied(self, cid: int) -> int:
        """The top-level literal that clause ``cid`` is the reason of, or 0."""
        c = self.cls[cid]
        val = self.val
        reason = self.reason
        for lit in c[:2]:
            if val[lit] > 0 and reason[lit] == cid:
                return lit
        return 0

    def detach(self, cid: int) -> None:
        """Remove clause ``cid``; if it is the reason of a top-level literal, retract it."""
        c = self.cls[cid]
        n = len(c)
        if n == 0:
            return
        if n == 1:
            units = self.units
            if units and units[-1] == cid:
                units.pop()
            else:
                units.remove(cid)
        else:
            self._unwatch(cid, c, self.marked[cid])
        lit = self.implied(cid)
        if lit:
            self.truncate(self.trail.index(lit))
            self.dirty = True

    def mark(self, cid: int) -> None:
        """Mark a clause as used by the refutation (moves it to the core watch lists)."""
        if self.marked[cid]:
            return
        c = self.cls[cid]
        if self.core_first and len(c) >= 2:
            self._unwatch(cid, c, 0)
            self.marked[cid] = 1
            self._watch(cid, c)
        else:
            self.marked[cid] = 1

    # -- assignment ----------------------------------------------------------------

    def _assign(self, lit: int, cid: int) -> None:
        self.val[lit] = 1
        self.val[-lit] = -1
        self.reason[lit] = cid
        self.trail.append(lit)

    def truncate(self, top: int) -> None:
        """Unassign every trail literal from position ``top`` on."""
        trail = self.trail
        val = self.val
        for lit in trail[top:]:
            val[lit] = 0
            val[-lit] = 0
        del trail[top:]
        if self.qc > top:
            self.qc = top
        if self.qn > top:
            self.qn = top

    def settle(self) -> int:
        """Bring the top-level trail to unit-propagation closure; return a conflict or -1."""
        if self.dirty:
            self.dirty = False
            self.repropagations += 1
            val = self.val
            cls = self.cls
            for u in self.units:
                lit = cls[u][0]
                v = val[lit]
                if v == 0:
                    self._assign(lit, u)
                elif v < 0:
                    return u
            self.qc = 0
            self.qn = 0
        return self.propagate()

    def propagate(self) -> int:
        """Unit propagation from the unprocessed part of the trail (the hot loop).

        Binary clauses are propagated from implication lists, longer clauses with two
        watched literals. With core-first, all pending literals are propagated over marked
        clauses before a single literal is propagated over unmarked clauses. Returns the
        conflicting clause id, or -1 when a fixpoint is reached.
        """
        trail = self.trail
        val = self.val
        cls = self.cls
        reason = self.reason
        push = trail.append
        core_first = self.core_first
        qc = self.qc
        qn = self.qn
        while True:
            if core_first and qc < len(trail):
                fl = -trail[qc]
                qc += 1
                fam = self.wc
                blit = self.bc_lit[fl]
                bcid = self.bc_cid[fl]
            elif qn < len(trail):
                fl = -trail[qn]
                qn += 1
                fam = self.wn
                blit = self.bn_lit[fl]
                bcid = self.bn_cid[fl]
            else:
                break
            if blit:
                for other, cid in zip(blit, bcid, strict=True):
                    v = val[other]
                    if v > 0:
                        continue
                    if v < 0:
                        self.qc = qc
                        self.qn = qn
                        return cid
                    val[other] = 1
                    val[-other] = -1
                    reason[other] = cid
                    push(other)
            ws = fam[fl]
            if not ws:
                continue
            keep: list[int] = []
            kp = keep.append
            for cid in ws:
                c = cls[cid]
                other = c[0]
                if other == fl:
                    other = c[1]
                    c[0] = other
                    c[1] = fl
                v = val[other]
                if v > 0:
                    kp(cid)
                    continue
                lit = c[2]  # watched clauses have three or more literals
                if val[lit] >= 0:
                    c[1] = lit
                    c[2] = fl
                    fam[lit].append(cid)
                    continue
                for k in range(3, len(c)):
                    lit = c[k]
                    if val[lit] >= 0:
                        c[1] = lit
                        c[k] = fl
                        fam[lit].append(cid)
                        break
                else:
                    kp(cid)
                    if v < 0:
                        keep.extend(ws[ws.index(cid) + 1 :])
                        fam[fl] = keep
                        self.qc = qc
                        self.qn = qn
                        return cid
                    val[other] = 1
                    val[-other] = -1
                    reason[other] = cid
                    push(other)
            fam[fl] = keep
        self.qc = qc
        self.qn = qn
        return -1

    def analyze(self, confl: int, true_lit: int = 0) -> None:
        """Mark every clause the conflict ``confl`` depends on (walks the trail backwards).

        With ``confl == -1``, marks the reasons of the true literal ``true_lit`` instead
        (used when a lemma is already satisfied at top level).
        """
        seen = self.seen
        trail = self.trail
        reason = self.reason
        cls = self.cls
        marked = self.marked
        mark = self.mark
        count = 0
        if confl >= 0:
            if not marked[confl]:
                mark(confl)
            for lit in cls[confl]:
                t = -lit
                if not seen[t]:
                    seen[t] = 1
                    count += 1
        else:
            seen[true_lit] = 1
            count = 1
        i = len(trail) - 1
        while count:
            t = trail[i]
            i -= 1
            if seen[t]:
                seen[t] = 0
                count -= 1
                r = reason[t]
                if r >= 0:
                    if not marked[r]:
                        mark(r)
                    for lit in cls[r]:
                        if lit != t:
                            u = -lit
                            if not seen[u]:
                                seen[u] = 1
                                count += 1

    def rup(self, cid: int, analyze: bool) -> bool:
        """Is clause ``cid`` a RUP consequence of the (settled) database? Marks if asked."""
        c = self.cls[cid]
        val = self.val
        trail = self.trail
        top = len(trail)
        for lit in c:
            v = val[lit]
            if v > 0:  # satisfied at top level, or a tautology: trivially implied
                if analyze and trail.index(lit) < top:
                    self.analyze(-1, lit)
                self.truncate(top)
                return True
            if v == 0:
                self._assign(-lit, -1)
        confl = self.propagate()
        if confl < 0:
            self.truncate(top)
            return False
        if analyze:
            self.analyze(confl)
        self.truncate(top)
        return True


def _fmt(clause: list[int]) -> str:
    """A clause in DIMACS text, shortened for messages."""
    if len(clause) > 12:
        return " ".join(map(str, clause[:12])) + f" ... ({len(clause)} literals) 0"
    return " ".join(map(str, [*clause, 0]))


def check_drup(
    cnf_clauses: Sequence[Sequence[int]],
    proof_lines: ProofInput,
    *,
    mode: Literal["backward", "forward"] = "backward",
    core_first: bool = True,
    progress: ProgressFn | None = None,
) -> DrupResult:
    """Check a DRUP refutation of ``cnf_clauses``; see the module docstring for semantics.

    ``proof_lines`` may be text lines (python-sat ``get_proof()``), one text string, binary
    DRAT ``bytes``, or clauses as int sequences. ``mode`` selects backward (default, checks
    only lemmas the refutation uses) or forward checking. Lemmas are RUP-checked only; a
    lemma that is RAT but not RUP is rejected. The input is never modified.
    """
    t0 = time.perf_counter()
    gc_enabled = gc.isenabled()
    gc.disable()  # millions of small lists: cyclic GC passes would dominate the run time
    try:
        try:
            proof = parse_proof(proof_lines)
        except (ValueError, TypeError) as exc:
            return DrupResult(False, 0, 0, None, f"malformed proof: {exc}",
                              time.perf_counter() - t0, mode)
        if progress is not None:
            progress("parse", len(proof), len(proof))
        return _run(cnf_clauses, proof, mode, core_first, progress, t0)
    finally:
        if gc_enabled:
            gc.enable()


def _run(
    cnf_clauses: Sequence[Sequence[int]],
    proof: ProofSteps,
    mode: str,
    core_first: bool,
    progress: ProgressFn | None,
    t0: float,
) -> DrupResult:
    """Build the database, then run the forward (and, in backward mode, backward) pass."""
    if mode not in ("backward", "forward"):
        raise ValueError(f"unknown mode {mode!r}")
    backward = mode == "backward"
    cls: list[list[int]] = []
    table: dict[tuple[int, ...], list[int]] = {}
    nvars = 0
    for c in cnf_clauses:
        lits = [int(x) for x in c]
        if 0 in lits:
            raise ValueError("literal 0 inside a formula clause")
        key = tuple(sorted(set(lits)))
        if len(key) != len(lits):
            lits = list(dict.fromkeys(lits))
        if lits:
            nvars = max(nvars, max(key[-1], -key[0]))
        table.setdefault(key, []).append(len(cls))
        cls.append(lits)
    n_formula = len(cls)

    # resolve deletions to clause ids; steps[i] = cid (add), ~cid (delete) or None (ignored)
    steps: list[int | None] = []
    ignored = 0
    n_lemmas = 0
    dels = proof.deletions
    for i, lits in enumerate(proof.clauses):
        if lits:
            lo = min(lits)
            hi = max(lits)
            if -lo > nvars:
                nvars = -lo
            if hi > nvars:
                nvars = hi
        key = tuple(sorted(lits))
        if len(set(key)) != len(key):  # duplicate literals would corrupt the watch lists
            lits = list(dict.fromkeys(lits))
            key = tuple(sorted(lits))
        if dels[i]:
            if len(lits) <= 1:
                steps.append(None)  # drat-trim: unit deletions are ignored
                ignored += 1
                continue
            bucket = table.get(key)
            if not bucket:
                steps.append(None)  # deletes nothing live: ignored
                ignored += 1
                continue
            cid = bucket.pop()
            if not bucket:
                del table[key]
            steps.append(~cid)
        else:
            cid = len(cls)
            cls.append(list(lits))
            steps.append(cid)
            n_lemmas += 1
            bucket = table.get(key)
            if bucket is None:
                table[key] = [cid]
            else:
                bucket.append(cid)
    del table
    if nvars > _MAX_VARS:
        return DrupResult(False, len(steps), 0, None,
                          f"variable index {nvars} exceeds the checker's limit {_MAX_VARS}",
                          time.perf_counter() - t0, mode, n_lemmas)

    ck = _Checker(cls, nvars, core_first and backward)
    total = len(steps)

    def result(ok: bool, checked: int, failed: int | None, why: str,
               conflict: int | None = None) -> DrupResult:
        core = sum(ck.marked[:n_formula]) if backward else 0
        return DrupResult(ok, total, checked, failed, why, time.perf_counter() - t0, mode,
                          n_lemmas, conflict, ignored, core)

    # formula
    for cid in range(n_formula):
        if ck.attach(cid) >= 0:
            if backward:
                ck.analyze(cid)
            return result(True, 0, None, "formula is conflicting by unit propagation", 0)
    confl = ck.propagate()
    if confl >= 0:
        if backward:
            ck.analyze(confl)
        return result(True, 0, None, "formula is conflicting by unit propagation", 0)

    # forward pass
    checked = 0
    conflict_at = -1
    top_before = 0
    for s in range(total):
        if progress is not None and s % _PROGRESS_EVERY == 0:
            progress("forward", s, total)
        code = steps[s]
        if code is None:
            continue
        if code < 0:
            cid = ~code
            if len(cls[cid]) <= 1 or ck.implied(cid):
                steps[s] = None  # drat-trim: (pseudo) unit deletions are ignored
                ignored += 1
                continue
            ck.detach(cid)
            continue
        if not backward:
            checked += 1
            if not ck.rup(code, analyze=False):
                return result(False, checked, s + 1,
                              f"lemma at step {s + 1} is not RUP: {_fmt(cls[code])}")
        top_before = len(ck.trail)
        confl = ck.attach(code)
        if confl < 0:
            confl = ck.propagate()
        if confl >= 0:
            conflict_at = s
            break
    if conflict_at < 0:
        return result(False, checked, None,
                      "no conflict: the proof never derives the empty clause")
    if not backward:
        return result(True, checked, None,
                      f"verified: conflict after step {conflict_at + 1}", conflict_at + 1)

    # backward pass
    ck.analyze(confl)
    ck.truncate(top_before)
    for s in range(conflict_at, -1, -1):
        if progress is not None and s % _PROGRESS_EVERY == 0:
            progress("backward", conflict_at - s, conflict_at + 1)
        code = steps[s]
        if code is None:
            continue
        if code < 0:
            ck.attach(~code)  # cannot be falsified: the database was conflict-free here
            continue
        ck.detach(code)
        if not ck.marked[code]:
            continue
        if ck.settle() >= 0:  # pragma: no cover - would mean an internal inconsistency
            return result(False, checked, s + 1, "internal error: unexpected conflict")
        checked += 1
        if not ck.rup(code, analyze=True):
            return result(False, checked, s + 1,
                          f"lemma at step {s + 1} is not RUP: {_fmt(cls[code])}")
    return result(True, checked, None,
                  f"verified: conflict after step {conflict_at + 1}; "
                  f"{checked} of {n_lemmas} lemmas used", conflict_at + 1)


# --------------------------------------------------------------------------- DIMACS & solver


def write_dimacs(
    path: str | os.PathLike[str], clauses: Iterable[Sequence[int]], nvars: int
) -> None:
    """Write ``clauses`` as a DIMACS CNF file (for external tools and archived certificates)."""
    body = [" ".join(map(str, c)) + " 0" for c in clauses]
    with open(path, "w", encoding="ascii") as fh:
        fh.write(f"p cnf {nvars} {len(body)}\n")
        if body:
            fh.write("\n".join(body))
            fh.write("\n")


def read_dimacs(path: str | os.PathLike[str]) -> tuple[list[list[int]], int]:
    """Read a DIMACS CNF file; returns ``(clauses, nvars)``.

    ``nvars`` is the header's variable count, raised to the largest variable used.
    Comment lines (``c``) are skipped and a ``%`` line ends the formula (SATLIB style).
    """
    nvars = 0
    declared: int | None = None
    clauses: list[list[int]] = []
    cur: list[int] = []
    with open(path, encoding="ascii") as fh:
        for line in fh:
            s = line.strip()
            if not s or s[0] == "c":
                continue
            if s[0] == "%":
                break
            if s[0] == "p":
                parts = s.split()
                if len(parts) < 4 or parts[1] != "cnf":
                    raise ValueError(f"bad DIMACS header: {s!r}")
                declared = int(parts[2])
                continue
            for tok in s.split():
                x = int(tok)
                if x == 0:
                    clauses.append(cur)
                    cur = []
                else:
                    cur.append(x)
                    if abs(x) > nvars:
                        nvars = abs(x)
    if cur:
        clauses.append(cur)
    if declared is not None:
        nvars = max(nvars, declared)
    return clauses, nvars


def prove_unsat(
    clauses: Iterable[Sequence[int]], solver_name: str = "glucose4"
) -> tuple[bool, list[str]]:
    """Run a python-sat solver with proof logging; returns ``(is_unsat, proof_lines)``.

    The proof is DRUP text lines (``"1 -2 0"``, ``"d 1 -2 0"``) to be checked by
    :func:`check_drup`; it is empty when the formula is satisfiable. Proofs of python-sat's
    Glucose3/4, CaDiCaL, Lingeling, MapleChrono and MapleCM check. Do not use "maplesat":
    with python-sat 1.9.dev24 its proof literals are off by one in magnitude (variable
    ``v`` is written as ``v + 1``), so its proofs are rejected.
    """
    from pysat.solvers import Solver

    cnf = [list(c) for c in clauses]
    with Solver(name=solver_name, bootstrap_with=cnf, with_proof=True) as solver:
        if solver.solve():
            return False, []
        proof = solver.get_proof()
    return True, list(proof or [])
