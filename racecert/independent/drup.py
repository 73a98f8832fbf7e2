"""A self-contained DRUP proof checker, plus DIMACS and proof-producing solver helpers.

Why this module exists: racecert certifies that a track cannot be finished in ``m* - 1``
moves by showing that a CNF encoding is unsatisfiable. A SAT solver's "UNSAT" is only a
claim; the certificate is the clausal proof the solver emits (DRUP: a sequence of added
lemmas and deleted clauses, ending with the empty clause), and the project must be able to
check that proof with code it ships. No external checker (drat-trim) is available, so this
module implements one: parsing (numpy) and the verdict here, the clause database and the
checking passes compiled with numba in `racecert.independent.drup_build`, `drup_kernel` and
`drup_passes` (written for this side, sharing no code with the oracle's kernels): all
clauses in one int32 array of literal codes with offsets, watch and binary-implication lists
as fixed regions of one array (one per clause kind and literal, sized by its occurrences:
nothing is reallocated), literal-indexed value and mark arrays, a single trail. The passes
run in calls of bounded work and return to Python between them, so progress is reported and
a Ctrl-C stops a check within a fraction of a second.

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

Performance (CPython 3.11, numba 0.68, one core of a busy shared 2-core VM, CPU seconds of
the check alone, backward mode, Glucose4 proofs; the pure-Python checker this replaced, on
the same files and machine, in brackets): espiral's one-hot refutation at T = 57 (12,793
variables, 67,216 clauses), 17.8 MB proof: 0.6-0.8 s (11.5-13.4 s); PHP(9,8), 4.7 MB:
1.5 s (38 s); PHP(10,9), 35.5 MB: 19-38 s depending on the machine's load (343-489 s),
440 MB peak for the whole process (510 MB). Every figure of the result is the pure-Python
checker's on these proofs. Forward mode takes about twice as long on the PHP proofs (1.5
times on espiral's), backward mode without core-first two to three times (as long on
espiral's). Parsing costs 12-22 ms per MB of text. The first check in a process with an
empty numba cache compiles the kernel (about 12 CPU s); later processes load it from the
cache (0.02 s where numba is already loaded, as in ``racecert certify``; 0.17 s where the
check is the process's first compiled code).

Proof formats: text DRUP/DRAT (``"1 -2 0"``, ``"d 1 -2 0"``, comment lines ``c ...``), as a
list of lines (what :func:`prove_unsat` and python-sat's ``get_proof()`` return) or as one
string; binary DRAT (``bytes``: ``a``/``d`` byte, then variable-length encoded literals); or
a sequence of clauses (sequences of ints, additions only; ``("d", clause)`` for a deletion).
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from racecert.independent import drup_build, drup_passes
from racecert.independent import drup_kernel as _k

ProgressFn = Callable[[str, int, int], None]
"""Progress callback: ``progress(phase, done, total)``, ``phase`` in parse/forward/backward."""

_PROGRESS_EVERY = 20_000
_WORK_PER_CALL = 1 << 21  # watch entries visited per kernel call (Ctrl-C is seen between)
_MAX_VARS = 10_000_000  # literal-indexed arrays: guards against absurd literals in a proof
_DEL_MARK = 1 << 40  # stands in for "d" while the text proof is parsed by numpy
_TEXT_CHARS = str.maketrans("", "", "0123456789-d \t\r\n\f\v")
_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


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


@dataclass(frozen=True)
class _Flat:
    """A parsed proof as flat arrays (internal): clause ``i`` is
    ``lits[start[i]:start[i + 1]]`` (int64 DIMACS literals), ``dels[i]`` 1 if it is
    deleted."""

    lits: np.ndarray
    start: np.ndarray
    dels: np.ndarray
    big: int = 0  # the largest variable, where one does not fit in int64 (else 0)

    def __len__(self) -> int:
        return len(self.dels)

    def steps(self) -> ProofSteps:
        flat = self.lits.tolist()
        bounds = self.start.tolist()
        return ProofSteps(bytearray(self.dels.tobytes()),
                          [flat[a:b] for a, b in itertools.pairwise(bounds)])


def _flat(lits: np.ndarray, lengths: np.ndarray, dels: np.ndarray) -> _Flat:
    start = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=start[1:])
    return _Flat(np.ascontiguousarray(lits, dtype=np.int64), start,
                 np.ascontiguousarray(dels, dtype=np.uint8))


_EMPTY = _Flat(np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.uint8))


def _parse_text(text: str) -> _Flat:
    """Parse a whole text DRUP/DRAT proof with numpy (much faster than per-token Python)."""
    if "c" in text:
        text = re.sub(r"(?m)^[ \t]*c.*$", "", text)
    bad = text.translate(_TEXT_CHARS)
    if bad:
        raise ValueError(f"unexpected characters in text proof: {sorted(set(bad))[:10]!r}")
    # a "-" not followed by a digit, or following one (two searches: one regular expression
    # starting with a digit class tries every digit, 30x slower)
    if "-" in text and (re.search(r"-(?![0-9])", text)
                        or "0-" in text.translate(_DIGITS_TO_ZERO)):
        raise ValueError("malformed literal in text proof")
    n_del = text.count("d")
    if n_del:
        text = text.replace("d", f" {_DEL_MARK} ")
    try:
        arr = np.fromstring(text, dtype=np.int64, sep=" ")  # type: ignore[call-overload]
    except ValueError as exc:  # pragma: no cover - guarded by the checks above
        raise ValueError(f"unparsable text proof: {exc}") from exc
    if np.count_nonzero(arr == _DEL_MARK) != n_del:
        # a literal of the mark's own value: far past the checker's variable limit, so the
        # proof is refused for that (no step of it is read as a deletion)
        return replace(_EMPTY, big=_DEL_MARK)
    return _flat_from_array(arr)


def _flat_from_array(arr: np.ndarray) -> _Flat:
    """Cut a flat int64 array of 0-terminated clauses (with deletion marks) into steps."""
    if arr.size == 0:
        return _EMPTY
    if arr[-1] != 0:
        raise ValueError("proof does not end with a 0-terminated clause")
    zeros = np.flatnonzero(arr == 0)
    starts = np.concatenate(([0], zeros[:-1] + 1))
    is_mark = arr == _DEL_MARK
    dels = (starts < zeros) & is_mark[np.minimum(starts, arr.size - 1)]
    if np.count_nonzero(is_mark) != np.count_nonzero(dels):
        raise ValueError("deletion marker 'd' inside a clause")
    keep = (arr != 0) & ~is_mark
    return _flat(arr[keep], zeros - starts - dels, dels)


def _parse_binary(data: bytes) -> _Flat:
    """Parse binary DRAT (``a``/``d`` then varint literals ``2*v + sign``, 0-terminated).

    Vectorised with numpy: in a valid stream a 0 byte not preceded by a continuation byte
    (>= 128) is a clause terminator, and the byte after a terminator is the next header.
    """
    a = np.frombuffer(data, dtype=np.uint8)
    n = a.size
    if n == 0:
        return _EMPTY
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
    dels = hb == 100
    if pos.size == 0:
        return _flat(np.zeros(0, np.int64), np.zeros(term.size, np.int64), dels)
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
    return _flat(lits, np.bincount(owner, minlength=term.size), dels)


def _from_clauses(clauses: Sequence[Sequence[int]], dels: Sequence[int]) -> _Flat:
    """Flat arrays of int clauses (no 0 inside) and their deletion flags."""
    lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    flags = np.frombuffer(bytes(dels), dtype=np.uint8)
    try:
        lits = np.fromiter(itertools.chain.from_iterable(clauses), dtype=np.int64,
                           count=int(lengths.sum()))
    except OverflowError:  # a literal beyond int64: the check rejects it by its size
        ints = [int(x) for x in itertools.chain.from_iterable(clauses)]
        cap = 1 << 62
        lits = np.array([max(-cap, min(cap, x)) for x in ints], dtype=np.int64)
        return replace(_flat(lits, lengths, flags), big=max(abs(x) for x in ints))
    return _flat(lits, lengths, flags)


def _parse_items(items: list) -> _Flat:
    """Parse a list of per-step items: ints sequences (additions) or ``("d", clause)``."""
    dels = bytearray(len(items))
    clauses: list[list[int]] = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            one = _parse_text(item)
            if len(one) != 1:
                raise ValueError(f"proof item {i + 1} is not exactly one clause: {item!r}")
            dels[i] = one.dels[0]
            clauses.append(one.lits.tolist())
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
    return _from_clauses(clauses, dels)


def _parse_flat(proof: ProofInput) -> _Flat:
    """Parse a proof in any accepted form into flat arrays (see :func:`parse_proof`)."""
    if isinstance(proof, ProofSteps):
        if len(proof.deletions) != len(proof.clauses):
            raise ValueError(f"ProofSteps has {len(proof.deletions)} deletion flags for "
                             f"{len(proof.clauses)} clauses")
        if any(0 in clause for clause in proof.clauses):
            raise ValueError("ProofSteps holds literal 0 inside a clause")
        return _from_clauses(proof.clauses, proof.deletions)
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


def parse_proof(proof: ProofInput) -> ProofSteps:
    """Parse a proof in any accepted form (see the module docstring) into :class:`ProofSteps`.

    A ``str`` is a whole text proof; ``bytes`` is binary DRAT if it starts with ``a`` or
    contains a NUL byte (every binary clause ends with one), else text; an iterable of
    ``str`` is a list of text lines, one clause each; an iterable of int sequences is a list
    of clauses. Raises ``ValueError`` when the proof is malformed.
    """
    if isinstance(proof, ProofSteps):
        return proof
    return _parse_flat(proof).steps()


def read_proof(path: str | os.PathLike[str]) -> ProofSteps:
    """Read a proof file, text or binary DRAT (detected as in :func:`parse_proof`)."""
    with open(path, "rb") as fh:
        data = fh.read()
    return parse_proof(data)


# --------------------------------------------------------------------------- checker


def _flatten_formula(cnf_clauses: Sequence[Sequence[int]]) -> tuple[_Flat, int]:
    """The formula as flat arrays, and its largest variable (raises ``ValueError`` for a
    literal 0 inside a clause)."""
    clauses = cnf_clauses if isinstance(cnf_clauses, list) else list(cnf_clauses)
    try:
        flat = _from_clauses(clauses, bytes(len(clauses)))
    except (TypeError, ValueError, OverflowError):  # not plain int sequences
        clauses = [[int(x) for x in c] for c in clauses]
        flat = _from_clauses(clauses, bytes(len(clauses)))
    lits = flat.lits
    if lits.size and not lits.all():
        raise ValueError("literal 0 inside a formula clause")
    return flat, max(flat.big, _max_var(lits))


def _max_var(lits: np.ndarray) -> int:
    return max(int(lits.max()), -int(lits.min())) if lits.size else 0


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
    try:
        proof = _parse_flat(proof_lines)
    except (ValueError, TypeError) as exc:
        return DrupResult(False, 0, 0, None, f"malformed proof: {exc}",
                          time.perf_counter() - t0, mode)
    if progress is not None:
        progress("parse", len(proof), len(proof))
    return _run(cnf_clauses, proof, mode, core_first, progress, t0)


class _Db:
    """The clause database and checker state of one check (internal): the arrays that
    `racecert.independent.drup_kernel` works on (its module docstring describes them)."""

    def __init__(self, formula: _Flat, proof: _Flat, nvars: int, core_first: bool) -> None:
        nl = 2 * (nvars + 1)
        n_clauses = len(formula) + len(proof) - int(np.count_nonzero(proof.dels))
        # every literal, two header ints per clause, and a deletion's header-less copy
        lits = np.empty(formula.lits.size + proof.lits.size + 2 * n_clauses + 2,
                        dtype=np.int32)
        self.cst = np.empty(n_clauses, dtype=np.int64)
        self.steps = np.empty(len(proof), dtype=np.int64)
        occ = np.zeros(2 * nl, dtype=np.int64)
        used, self.ignored, nunits = drup_build.build_db(
            formula.lits, formula.start, proof.lits, proof.start, proof.dels, nvars, lits,
            self.cst, self.steps, occ)
        self.lits = lits[:used].copy()
        del lits
        self.marked = np.zeros(n_clauses, dtype=np.uint8)
        self.val = np.zeros(nl, dtype=np.int8)
        self.reason = np.full(nvars + 1, -1, dtype=np.int32)
        self.seen = np.zeros(nl, dtype=np.uint8)
        self.trail = np.zeros(nvars + 1, dtype=np.int32)
        self.units = np.zeros(nunits + 1, dtype=np.int32)
        # a fixed region per (kind, literal): one entry per clause of that kind holding it
        self.rcap = occ.astype(np.int32)
        ints = occ
        ints[nl:] *= 2  # implication entries are (literal, clause) pairs
        self.rbeg = np.cumsum(ints) - ints
        self.pool = np.empty(max(int(ints.sum()), 1), dtype=np.int32)
        del occ, ints
        self.rlen = np.zeros(4 * nl, dtype=np.int32)
        self.sc = np.zeros(_k.NSC, dtype=np.int64)
        self.sc[_k.CF] = core_first
        self.sc[_k.NL] = nl
        self.sc[_k.IGNORED] = self.ignored

    def run(self, op: int, nf: int, backward: bool, every: int) -> int:
        """One call of the kernel's `run_pass`; its status."""
        return drup_passes.run_pass(op, self.steps, nf, backward, every, _WORK_PER_CALL,
                                    self.lits, self.cst, self.marked, self.val, self.reason,
                                    self.seen, self.trail, self.units, self.pool, self.rbeg,
                                    self.rcap, self.rlen, self.sc)

    def clause(self, cid: int) -> list[int]:
        """Clause ``cid`` as DIMACS integers, in its current literal order."""
        start = self.cst[cid]
        codes = self.lits[start:start + self.lits[start - 2]].tolist()
        return [-(c >> 1) if c & 1 else c >> 1 for c in codes]


def _run(
    cnf_clauses: Sequence[Sequence[int]],
    proof: _Flat,
    mode: str,
    core_first: bool,
    progress: ProgressFn | None,
    t0: float,
) -> DrupResult:
    """Build the database, then run the forward (and, in backward mode, backward) pass."""
    if mode not in ("backward", "forward"):
        raise ValueError(f"unknown mode {mode!r}")
    backward = mode == "backward"
    formula, nvars = _flatten_formula(cnf_clauses)
    n_formula = len(formula)
    total = len(proof)
    n_lemmas = total - int(np.count_nonzero(proof.dels))
    nvars = max(nvars, proof.big, _max_var(proof.lits))
    if nvars > _MAX_VARS:
        return DrupResult(False, total, 0, None,
                          f"variable index {nvars} exceeds the checker's limit {_MAX_VARS}",
                          time.perf_counter() - t0, mode, n_lemmas)
    if formula.lits.size + proof.lits.size + 2 * (n_formula + n_lemmas) >= 2**31:
        return DrupResult(False, total, 0, None, "proof too large for the checker "
                          "(2**31 literals)", time.perf_counter() - t0, mode, n_lemmas)
    db = _Db(formula, proof, nvars, core_first and backward)
    del formula, proof
    sc = db.sc

    def result(ok: bool, failed: int | None, why: str,
               conflict: int | None = None) -> DrupResult:
        core = int(np.count_nonzero(db.marked[:n_formula])) if backward else 0
        return DrupResult(ok, total, int(sc[_k.CHECKED]), failed, why,
                          time.perf_counter() - t0, mode, n_lemmas, conflict,
                          int(sc[_k.IGNORED]), core)

    def failure(status: int) -> DrupResult:
        s = int(sc[_k.S])
        if status == _k.NOT_RUP:
            return result(False, s + 1, f"lemma at step {s + 1} is not RUP: "
                                        f"{_fmt(db.clause(int(db.steps[s])))}")
        why = "watch lists inconsistent" if sc[_k.OVERFLOW] else "unexpected conflict"
        return result(False, s + 1, f"internal error: {why}")  # pragma: no cover

    # formula
    status = db.run(_k.LOAD_FORMULA, n_formula, backward, 0)
    if status == _k.FORMULA_CONFLICT:
        return result(True, None, "formula is conflicting by unit propagation", 0)
    if status == _k.INTERNAL:  # pragma: no cover - would mean an internal inconsistency
        return result(False, None, "internal error: watch lists inconsistent")

    # forward pass, in calls of bounded work (progress and Ctrl-C between them)
    every = _PROGRESS_EVERY if progress is not None else 0
    while True:
        s = int(sc[_k.S])
        if progress is not None and s % _PROGRESS_EVERY == 0 and s < total:
            progress("forward", s, total)
        status = db.run(_k.FORWARD, n_formula, backward, every)
        if status != _k.PAUSED:
            break
    if status == _k.DONE:
        return result(False, None, "no conflict: the proof never derives the empty clause")
    if status != _k.CONFLICT:
        return failure(status)
    conflict_at = int(sc[_k.CONFLICT_AT])
    if not backward:
        return result(True, None, f"verified: conflict after step {conflict_at + 1}",
                      conflict_at + 1)

    # backward pass (the forward pass analysed the conflict)
    while True:
        s = int(sc[_k.S])
        if progress is not None and s % _PROGRESS_EVERY == 0:
            progress("backward", conflict_at - s, conflict_at + 1)
        status = db.run(_k.BACKWARD, n_formula, backward, every)
        if status != _k.PAUSED:
            break
    if status != _k.DONE:
        return failure(status)
    checked = int(sc[_k.CHECKED])
    return result(True, None,
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
