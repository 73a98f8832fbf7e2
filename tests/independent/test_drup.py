"""Tests of the DRUP proof checker (racecert.independent.drup).

Real solver proofs must verify; corrupted, truncated and bogus proofs must be rejected
with the offending step named; tiny proofs are checked against hand-derived verdicts; and
hypothesis properties tie the checker to ground truth: real proofs of random UNSAT
formulas verify, no proof whatsoever verifies for a satisfiable formula (soundness, with
satisfiability decided by brute force, independently of any SAT solver), and on small
random formulas with random, real and corrupted proofs the checker's verdicts agree with
a brute-force replay (naive unit propagation, RUP lemma by lemma).
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from racecert.independent.drup import (
    DrupResult,
    ProofSteps,
    check_drup,
    parse_proof,
    prove_unsat,
    read_dimacs,
    read_proof,
    write_dimacs,
)

MODES = ("backward", "forward")

# The 8 clauses over 3 variables: UNSAT, but not by unit propagation alone.
ALL8 = [[a * 1, b * 2, c * 3] for a in (1, -1) for b in (1, -1) for c in (1, -1)]


def php(pigeons: int, holes: int) -> list[list[int]]:
    """Pigeonhole formula PHP(pigeons, holes): every pigeon in a hole, no hole shared."""

    def v(i: int, j: int) -> int:
        return i * holes + j + 1

    clauses = [[v(i, j) for j in range(holes)] for i in range(pigeons)]
    for j in range(holes):
        for a in range(pigeons):
            for b in range(a + 1, pigeons):
                clauses.append([-v(a, j), -v(b, j)])
    return clauses


def random_3sat(nvars: int, nclauses: int, rng: random.Random) -> list[list[int]]:
    """Random 3-SAT: each clause three distinct variables with random signs."""
    return [
        [rng.choice((-1, 1)) * x for x in rng.sample(range(1, nvars + 1), 3)]
        for _ in range(nclauses)
    ]


def brute_force_sat(clauses: list[list[int]], nvars: int) -> bool:
    """Satisfiability by enumerating all assignments (ground truth for small formulas)."""
    for bits in itertools.product((False, True), repeat=nvars):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in c) for c in clauses):
            return True
    return False


def lemma_indices(proof: list[str]) -> list[int]:
    """0-based indices of the added (non-deletion, non-empty) lemmas of a text proof."""
    return [i for i, line in enumerate(proof) if not line.startswith("d") and line != "0"]


def encode_binary(proof: list[str]) -> bytes:
    """Binary DRAT encoding of text proof lines (independent of the module's decoder)."""
    out = bytearray()
    for line in proof:
        toks = line.split()
        if toks[0] == "d":
            out.append(ord("d"))
            toks = toks[1:]
        else:
            out.append(ord("a"))
        for tok in toks:
            lit = int(tok)
            u = 2 * abs(lit) + (lit < 0) if lit else 0
            while u > 127:
                out.append(128 | (u & 127))
                u >>= 7
            out.append(u)
    return bytes(out)


@pytest.fixture(scope="module")
def php54() -> tuple[list[list[int]], list[str]]:
    cnf = php(5, 4)
    unsat, proof = prove_unsat(cnf)
    assert unsat and proof
    return cnf, proof


# ----------------------------------------------------------------- real solver proofs


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("holes", [2, 3, 4, 5, 6])
def test_pigeonhole_proof_verifies(holes: int, mode: str) -> None:
    cnf = php(holes + 1, holes)
    unsat, proof = prove_unsat(cnf, "glucose4")
    assert unsat
    res = check_drup(cnf, proof, mode=mode)
    assert isinstance(res, DrupResult)
    assert res.verified, res.reason
    assert res.failed_step is None
    assert res.steps == len(proof)
    assert 0 < res.lemmas_checked <= res.lemmas
    if mode == "forward":  # every lemma up to the conflict is checked
        assert res.lemmas_checked == sum(
            1 for line in proof[: res.conflict_step] if not line.startswith("d"))


@pytest.mark.parametrize("solver", ["glucose3", "glucose4", "cadical153", "lingeling",
                                    "maplechrono"])
def test_other_solvers_proofs_verify(solver: str) -> None:
    cnf = php(7, 6)
    unsat, proof = prove_unsat(cnf, solver)
    assert unsat
    for mode in MODES:
        res = check_drup(cnf, proof, mode=mode)
        assert res.verified, (solver, mode, res.reason)


def test_core_first_off_also_verifies(php54: tuple[list[list[int]], list[str]]) -> None:
    cnf, proof = php54
    res = check_drup(cnf, proof, core_first=False)
    assert res.verified, res.reason


def test_satisfiable_formula_gives_no_proof() -> None:
    unsat, proof = prove_unsat([[1, 2], [-1, 2], [1, -2]])
    assert (unsat, proof) == (False, [])


# ----------------------------------------------------------------- corrupted proofs


@pytest.mark.parametrize("mode", MODES)
def test_fresh_unit_in_place_of_a_lemma_is_rejected_at_that_step(
    php54: tuple[list[list[int]], list[str]], mode: str
) -> None:
    """Replace a lemma by a unit on a fresh variable: never RUP in a conflict-free database.

    The bogus unit is then used by the last step (it stands in for the lemma there too) so
    that backward checking, which only checks used lemmas, must check it as well.
    """
    cnf, proof = php54
    conflict = check_drup(cnf, proof).conflict_step
    assert conflict is not None and conflict > 10
    fresh = max(abs(x) for c in cnf for x in c) + 1
    idx = [i for i in lemma_indices(proof) if i < conflict - 1]
    for i in (idx[0], idx[len(idx) // 2], idx[-1]):
        bad = proof[: conflict - 1]
        bad[i] = f"{fresh} 0"
        bad += [f"-{fresh} 0", "0"]  # conflict only through the bogus unit
        res = check_drup(cnf, bad, mode=mode)
        assert not res.verified
        expected = i + 1 if mode == "forward" else conflict
        assert res.failed_step == expected, res.reason
        assert f"step {expected}" in res.reason


@pytest.mark.parametrize("mode", MODES)
def test_flipped_literal_lemmas_are_rejected(
    php54: tuple[list[list[int]], list[str]], mode: str
) -> None:
    """Flip one literal of a lemma: the checker must notice at that step or a later one."""
    cnf, proof = php54
    rejected = 0
    idx = [i for i in lemma_indices(proof) if len(proof[i].split()) >= 3]
    for i in idx[:: max(1, len(idx) // 25)]:
        toks = proof[i].split()
        toks[0] = str(-int(toks[0]))
        bad = list(proof)
        bad[i] = " ".join(toks)
        res = check_drup(cnf, bad, mode=mode)
        if not res.verified:
            rejected += 1
            assert res.failed_step is not None
            if mode == "forward":
                assert res.failed_step >= i + 1
    assert rejected >= 5


@pytest.mark.parametrize("mode", MODES)
def test_truncated_proof_is_rejected(
    php54: tuple[list[list[int]], list[str]], mode: str
) -> None:
    cnf, proof = php54
    ok = check_drup(cnf, proof, mode=mode)
    assert ok.verified and ok.conflict_step is not None
    res = check_drup(cnf, proof[: ok.conflict_step - 1], mode=mode)
    assert not res.verified
    assert res.failed_step is None
    assert "never derives the empty clause" in res.reason


@pytest.mark.parametrize("mode", MODES)
def test_bogus_empty_clause_on_satisfiable_formula(mode: str) -> None:
    res = check_drup([[1, 2], [-1, 2], [1, -2]], ["0"], mode=mode)
    assert not res.verified
    assert res.failed_step == 1


@pytest.mark.parametrize("mode", MODES)
def test_empty_proof(mode: str) -> None:
    assert not check_drup(ALL8, [], mode=mode).verified
    # UNSAT by unit propagation alone: nothing to prove
    res = check_drup([[1], [-1, 2], [-2]], [], mode=mode)
    assert res.verified and res.conflict_step == 0 and res.lemmas_checked == 0
    assert check_drup([[1, 2], []], [], mode=mode).verified


# ----------------------------------------------------------------- hand-checked proofs


@pytest.mark.parametrize("mode", MODES)
def test_hand_proof_all8(mode: str) -> None:
    # "1 2": -1,-2 make (1 2 3) and (1 2 -3) clash on 3. "1": -1, then (1 2) gives 2 and
    # (1 -2 3), (1 -2 -3) clash. "2": with 1, -2 makes (-1 2 3), (-1 2 -3) clash.
    # "0": 1, 2 make (-1 -2 3), (-1 -2 -3) clash.
    res = check_drup(ALL8, ["1 2 0", "1 0", "2 0", "0"], mode=mode)
    assert res.verified, res.reason
    # the conflict already arises when "2" is added, so "0" is never needed
    assert res.conflict_step == 3
    assert res.lemmas_checked == 3


@pytest.mark.parametrize("mode", MODES)
def test_hand_proof_non_rup_lemma(mode: str) -> None:
    # "1" is not RUP without "1 2": after -1 only (2 3), (2 -3), (-2 3), (-2 -3) remain.
    res = check_drup(ALL8, ["1 0", "2 0", "0"], mode=mode)
    assert not res.verified
    assert res.failed_step == 1
    assert "1 0" in res.reason


@pytest.mark.parametrize("mode", MODES)
def test_deletions_are_honoured(mode: str) -> None:
    # deleting (1 -2 -3) breaks the RUP derivation of "1" (step 3)
    proof = ["1 2 0", "d 1 -2 -3 0", "1 0", "2 0", "0"]
    res = check_drup(ALL8, proof, mode=mode)
    assert not res.verified
    assert res.failed_step == 3
    # deleting an unused clause is harmless
    res = check_drup(ALL8, ["1 2 0", "1 0", "d 1 -2 -3 0", "2 0", "0"], mode=mode)
    assert res.verified, res.reason
    assert res.deletions_ignored == 0


@pytest.mark.parametrize("mode", MODES)
def test_unit_and_pseudo_unit_deletions_are_ignored(mode: str) -> None:
    # unit deletion: "d 1 0" is ignored (drat-trim convention), so "2" stays RUP
    res = check_drup(ALL8, ["1 2 0", "1 0", "d 1 0", "2 0", "0"], mode=mode)
    assert res.verified, res.reason
    assert res.deletions_ignored == 1
    # pseudo unit: (-1 2) is the reason of the top-level literal 2, its deletion is
    # ignored; honouring it would make "3" non-RUP
    cnf = [[1], [-1, 2], [-2, 3, 4], [-2, 3, -4], [-2, -3, 4], [-2, -3, -4]]
    res = check_drup(cnf, ["d -1 2 0", "3 0", "0"], mode=mode)
    assert res.verified, res.reason
    assert res.deletions_ignored == 1
    # an unmatched deletion is ignored too
    res = check_drup(cnf, ["d 7 8 0", "3 0", "0"], mode=mode)
    assert res.verified and res.deletions_ignored == 1


@pytest.mark.parametrize("mode", MODES)
def test_backward_reports_the_used_bad_lemma(mode: str) -> None:
    # "5" is bogus (fresh) and unused; "-9 0" then "9 0" is a bogus pair that is used.
    proof = ["1 2 0", "5 0", "9 0", "-9 0", "0"]
    res = check_drup(ALL8, proof, mode=mode)
    assert not res.verified
    # forward stops at the first bad lemma; backward checks only used lemmas, last first
    assert res.failed_step == (2 if mode == "forward" else 4)


def test_tautologies_and_duplicate_literals() -> None:
    proof = ["1 -1 5 0", "1 2 2 0", "1 1 0", "2 0", "0"]
    for mode in MODES:
        res = check_drup(ALL8, proof, mode=mode)
        assert res.verified, (mode, res.reason)
    cnf = [[1, 1, 2], [-1, 2, 2], [1, -2], [-1, -2, -1]]
    for mode in MODES:
        assert check_drup(cnf, ["1 0", "0"], mode=mode).verified


# ----------------------------------------------------------------- formats and helpers


def test_proof_formats_agree(php54: tuple[list[list[int]], list[str]], tmp_path) -> None:
    cnf, proof = php54
    text = "c produced by glucose\n" + "\n".join(proof) + "\n"
    binary = encode_binary(proof)
    as_lists = [("d", [int(t) for t in ln.split()[1:]]) if ln.startswith("d")
                else [int(t) for t in ln.split()] for ln in proof]
    reference = parse_proof(proof)
    assert len(reference) == len(proof)
    for form in (text, text.encode(), binary, as_lists):
        parsed = parse_proof(form)
        assert parsed.deletions == reference.deletions
        assert parsed.clauses == reference.clauses
        assert check_drup(cnf, form).verified
    (tmp_path / "p.drat").write_bytes(binary)
    (tmp_path / "p.drup").write_text(text)
    for name in ("p.drat", "p.drup"):
        parsed = read_proof(tmp_path / name)
        assert parsed.clauses == reference.clauses


def test_binary_large_literals() -> None:
    lines = ["-300000 17 200 0", "d -300000 17 200 0", "1 0"]
    parsed = parse_proof(encode_binary(lines))
    assert parsed.clauses == [[-300000, 17, 200], [-300000, 17, 200], [1]]
    assert list(parsed.deletions) == [0, 1, 0]


@pytest.mark.parametrize("literal", [1 << 40, -(1 << 40), (1 << 40) + 1])
def test_a_text_literal_past_the_limit_is_refused_even_at_the_deletion_marks_value(
        literal: int) -> None:
    """The text parser stands a number in for "d"; a literal of that very value is still
    a literal (past the variable limit), never a deletion that leaves the proof valid."""
    res = check_drup([[1], [-1]], f"{literal} 0\n0\n")
    assert not res.verified
    assert f"variable index {abs(literal)} exceeds" in res.reason


@pytest.mark.parametrize("bad", ["1 2", "1 x 0", "1 - 2 0", "1 d 2 0", "1-2 0"])
def test_malformed_proof_is_rejected(bad: str) -> None:
    res = check_drup(ALL8, [bad, "0"])
    assert not res.verified
    assert "malformed" in res.reason


def test_dimacs_round_trip(tmp_path) -> None:
    cnf = php(4, 3) + [[7]]
    path = tmp_path / "f.cnf"
    write_dimacs(path, cnf, 20)
    text = path.read_text()
    assert text.startswith("p cnf 20 ")
    clauses, nvars = read_dimacs(path)
    assert clauses == cnf and nvars == 20
    path.write_text("c comment\np cnf 3 2\n1 -2\n 0 3\n0\n%\n0\n")
    assert read_dimacs(path) == ([[1, -2], [3]], 3)


def test_input_is_not_modified(php54: tuple[list[list[int]], list[str]]) -> None:
    cnf, proof = php54
    cnf_copy = [list(c) for c in cnf]
    proof_copy = list(proof)
    check_drup(cnf, proof)
    assert cnf == cnf_copy and proof == proof_copy


def test_progress_is_reported(php54: tuple[list[list[int]], list[str]]) -> None:
    cnf, proof = php54
    seen: list[str] = []
    check_drup(cnf, proof, progress=lambda phase, done, total: seen.append(phase))
    assert "parse" in seen and "forward" in seen and "backward" in seen


# ----------------------------------------------------------------- properties

_PROPERTY = settings(max_examples=40, deadline=None,
                     suppress_health_check=[HealthCheck.filter_too_much])


@_PROPERTY
@given(nvars=st.integers(5, 14), seed=st.integers(0, 2**32 - 1),
       solver=st.sampled_from(["glucose4", "cadical153"]))
def test_random_unsat_3sat_proofs_verify(nvars: int, seed: int, solver: str) -> None:
    rng = random.Random(seed)
    cnf = random_3sat(nvars, int(nvars * 7), rng)
    unsat, proof = prove_unsat(cnf, solver)
    assume(unsat)
    for mode in MODES:
        res = check_drup(cnf, proof, mode=mode)
        assert res.verified, (mode, res.reason)


@_PROPERTY
@given(nvars=st.integers(2, 7), seed=st.integers(0, 2**32 - 1),
       nlemmas=st.integers(0, 12))
def test_no_proof_verifies_a_satisfiable_formula(nvars: int, seed: int, nlemmas: int) -> None:
    """Soundness: random lemmas (ending with the empty clause) never refute a SAT formula."""
    rng = random.Random(seed)
    cnf = [
        [rng.choice((-1, 1)) * x
         for x in rng.sample(range(1, nvars + 1), rng.randint(1, min(3, nvars)))]
        for _ in range(rng.randint(1, 4 * nvars))
    ]
    assume(brute_force_sat(cnf, nvars))
    proof = []
    for _ in range(nlemmas):
        size = rng.randint(0, 3)
        lits = [rng.choice((-1, 1)) * rng.randint(1, nvars + 1) for _ in range(size)]
        if rng.random() < 0.2 and cnf:
            lits = list(rng.choice(cnf))
            proof.append("d " + " ".join(map(str, lits)) + " 0")
        else:
            proof.append(" ".join(map(str, [*lits, 0])))
    proof.append("0")
    for mode in MODES:
        assert not check_drup(cnf, proof, mode=mode).verified


# ----------------------------------------------------------------- against brute force
#
# A tiny reference, independent of the checker's data structures: unit propagation by
# rescanning every clause until nothing changes, RUP by propagating the negated lemma, and
# the proof replayed step by step. Deletions are where the checker may legitimately differ
# (drat-trim's convention ignores the deletion of a clause that is the reason of a
# top-level literal, which depends on the propagation order), so the reference runs twice:
# honouring no deletion (the largest database) and every deletion of two or more literals
# (the smallest). RUP is monotone in the database, so the checker's verdicts lie between
# the two; without deletions they must equal the reference exactly.


def naive_conflict(db: list[list[int]], assumed: list[int]) -> bool:
    """Does unit propagation from the literals `assumed` reach a conflict in `db`?"""
    true: set[int] = set()
    for lit in assumed:
        if -lit in true:
            return True
        true.add(lit)
    changed = True
    while changed:
        changed = False
        for c in db:
            if any(lit in true for lit in c):
                continue
            free = [lit for lit in c if -lit not in true]
            if not free:
                return True
            if len(free) == 1:
                true.add(free[0])
                changed = True
    return False


def naive_replay(cnf: list[list[int]], proof: list[tuple[bool, list[int]]],
                 deletions: bool) -> tuple[str, int | None, int]:
    """Forward checking by brute force: ("conflict", step, lemmas checked), with step 0
    for a formula conflicting by propagation; ("not-rup", step, lemmas checked) for the
    first lemma that is not RUP; ("no-conflict", None, lemmas checked)."""
    db = [list(dict.fromkeys(c)) for c in cnf]
    if naive_conflict(db, []):
        return "conflict", 0, 0
    checked = 0
    for s, (is_del, lits) in enumerate(proof):
        lits = list(dict.fromkeys(lits))
        if is_del:
            if deletions and len(lits) >= 2:
                same = [j for j, c in enumerate(db) if set(c) == set(lits)]
                if same:
                    del db[same[-1]]
            continue
        checked += 1
        if not naive_conflict(db, [-lit for lit in lits]):
            return "not-rup", s + 1, checked
        db.append(lits)
        if naive_conflict(db, []):
            return "conflict", s + 1, checked
    return "no-conflict", None, checked


def as_text(proof: list[tuple[bool, list[int]]]) -> list[str]:
    return [("d " if d else "") + " ".join(map(str, [*lits, 0])) for d, lits in proof]


def random_small_cnf(rng: random.Random, nvars: int) -> list[list[int]]:
    return [[rng.choice((-1, 1)) * x
             for x in rng.sample(range(1, nvars + 1), rng.choice((1, 2, 2, 3, 3, 3)))]
            for _ in range(rng.randint(1, 5 * nvars))]


def solver_steps(cnf: list[list[int]], solver: str) -> list[tuple[bool, list[int]]]:
    """A real proof of `cnf` as (deletion, literals) steps, or [] if it is satisfiable."""
    unsat, lines = prove_unsat(cnf, solver)
    return [(ln.startswith("d"), [int(t) for t in ln.split() if t not in ("d", "0")])
            for ln in lines] if unsat else []


def corrupt(rng: random.Random, proof: list[tuple[bool, list[int]]], nvars: int,
            cnf: list[list[int]]) -> list[tuple[bool, list[int]]]:
    """The proof with one to three random corruptions."""
    proof = list(proof)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(proof) + 1)
        kind = rng.randrange(7)
        if kind == 0 and i < len(proof) and proof[i][1]:  # flip a literal
            d, lits = proof[i]
            j = rng.randrange(len(lits))
            proof[i] = (d, [*lits[:j], -lits[j], *lits[j + 1:]])
        elif kind == 1 and i < len(proof):  # drop a step
            del proof[i]
        elif kind == 2:  # a bogus unit, maybe on a fresh variable
            proof.insert(i, (False, [rng.choice((-1, 1)) * rng.randint(1, nvars + 1)]))
        elif kind == 3 and cnf:  # delete a formula clause
            proof.insert(i, (True, list(rng.choice(cnf))))
        elif kind == 4 and i < len(proof):  # a lemma deleted or a deletion made a lemma
            proof[i] = (not proof[i][0], proof[i][1])
        elif kind == 5:  # a random short lemma
            proof.insert(i, (False, [rng.choice((-1, 1)) * rng.randint(1, nvars)
                                     for _ in range(rng.randint(0, 3))]))
        else:  # truncate
            proof = proof[:i]
    return proof


def brute_force_case(seed: int, nvars: int, source: str) -> tuple[list[list[int]], list]:
    rng = random.Random(seed)
    if source == "random":
        cnf = random_small_cnf(rng, nvars)
        proof = [(rng.random() < 0.2, [rng.choice((-1, 1)) * rng.randint(1, nvars + 1)
                                       for _ in range(rng.randint(0, 3))])
                 for _ in range(rng.randint(0, 12))]
        return cnf, [*proof, (False, [])]
    cnf = random_3sat(nvars, 10 * nvars, rng)  # nearly always unsatisfiable
    proof = solver_steps(cnf, rng.choice(["glucose4", "cadical153"]))
    if source == "solver-corrupted" and proof:
        proof = corrupt(rng, proof, nvars, cnf)
    return cnf, proof


@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1), nvars=st.integers(3, 9),
       source=st.sampled_from(["random", "solver", "solver-corrupted"]))
def test_matches_brute_force_without_deletions(seed: int, nvars: int, source: str) -> None:
    """Proofs stripped of their deletions: forward mode equals the brute-force replay in
    every figure; backward mode verifies whatever forward mode verifies (it checks a subset
    of the same lemmas against the same databases), at the same conflict step, and only
    unsatisfiable formulas."""
    cnf, proof = brute_force_case(seed, nvars, source)
    proof = [(False, lits) for d, lits in proof if not d]
    outcome, step, checked = naive_replay(cnf, proof, deletions=False)
    fwd = check_drup(cnf, as_text(proof), mode="forward")
    assert fwd.verified == (outcome == "conflict")
    assert fwd.failed_step == (step if outcome == "not-rup" else None)
    assert fwd.conflict_step == (step if outcome == "conflict" else None)
    assert fwd.lemmas_checked == checked and fwd.deletions_ignored == 0
    for core_first in (True, False):
        bwd = check_drup(cnf, as_text(proof), core_first=core_first)
        assert bwd.verified >= fwd.verified
        if bwd.verified:
            assert not brute_force_sat(cnf, nvars + 1)
            assert bwd.conflict_step == fwd.conflict_step or outcome == "not-rup"
            assert bwd.lemmas_checked <= bwd.lemmas


@_PROPERTY
@given(seed=st.integers(0, 2**32 - 1), nvars=st.integers(3, 9),
       source=st.sampled_from(["random", "solver", "solver-corrupted"]))
def test_deletions_keep_verdicts_between_the_brute_force_bounds(seed: int, nvars: int,
                                                                  source: str) -> None:
    """With deletions: whatever the brute-force replay verifies honouring every deletion
    (the smallest databases), the checker verifies in both modes; what forward mode
    verifies, the replay honouring none (the largest) verifies; and nothing verifies a
    satisfiable formula."""
    cnf, proof = brute_force_case(seed, nvars, source)
    smallest = naive_replay(cnf, proof, deletions=True)[0] == "conflict"
    largest = naive_replay(cnf, proof, deletions=False)[0] == "conflict"
    sat = brute_force_sat(cnf, nvars + 1)
    fwd = check_drup(cnf, as_text(proof), mode="forward")
    assert smallest <= fwd.verified <= largest
    runs = [fwd]
    for core_first in (True, False):
        runs.append(check_drup(cnf, as_text(proof), core_first=core_first))
        assert smallest <= runs[-1].verified
    for res in runs:
        assert not (res.verified and sat)
        assert res.steps == len(proof)
        assert res.lemmas == sum(1 for d, _ in proof if not d)


@pytest.mark.parametrize("dels", [bytearray(1), bytearray(3)], ids=["short", "long"])
def test_proof_steps_with_mismatched_deletion_flags_are_malformed(dels: bytearray) -> None:
    """A hand-built ProofSteps whose flags do not match its clauses is refused (the
    compiled database is sized by them) rather than checked."""
    res = check_drup([[1], [-1]], ProofSteps(dels, [[1], []]))
    assert not res.verified and "malformed" in res.reason


def test_proof_steps_with_literal_zero_are_malformed() -> None:
    res = check_drup([[1], [-1]], ProofSteps(bytearray(2), [[1, 0], []]))
    assert not res.verified and "malformed" in res.reason
