"""The one-hot SAT lower bound of m*: its DRUP proof verifies, and every corruption fails.

A flipped literal in a lemma the refutation uses, the lemmas before the empty clause
removed, or one clause of the CNF flipped: each makes `check_drup` reject the proof and
the certify-level check report "disagree" (a check that cannot fail certifies nothing).
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from racecert.certification import sat_checks
from racecert.certification.certificate import certify
from racecert.certification.context import MethodKind
from racecert.certification.sat_checks import (
    LOWER_CUT,
    LOWER_ONEHOT,
    UPPER_CUT,
    UPPER_ONEHOT,
    judge_onehot_lower,
    onehot_certificate,
)
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.drup import check_drup
from racecert.independent.movetable import build_move_table
from racecert.independent.onehot import build_onehot_cnf, solve_onehot
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def _lemmas(proof: tuple[str, ...]) -> list[int]:
    """Indices of the added, non-empty lemmas of a text proof."""
    return [i for i, line in enumerate(proof) if not line.startswith("d") and line.strip() != "0"]


def _flip_first(line: str) -> str:
    lits = [int(x) for x in line.split()[:-1]]
    lits[0] = -lits[0]
    return " ".join(map(str, [*lits, 0]))


@pytest.fixture(scope="module")
def nocont():
    """tiny_circuit_nocont (m* = 17): its one-hot refutation needs hundreds of lemmas."""
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    table = build_move_table(track, 17)
    cnf = build_onehot_cnf(track, table.rows, 16)
    res = solve_onehot(cnf)
    assert not res.satisfiable
    return track, table, cnf, res


@pytest.mark.parametrize(("name", "m_star"), [("apertura", 7), ("tiny_opening_shadow", 4),
                                              ("tiny_circuit_nocont", 17)])
def test_onehot_proof_with_lemmas_verifies(name: str, m_star: int, tmp_path: Path) -> None:
    track = load_track(TRACKS / f"{name}.toml")
    cert = onehot_certificate(track, m_star, tmp_path)
    assert (cert.lower.verdict, cert.upper.verdict) == ("agree", "agree")
    assert cert.lower.method_value == f"> {m_star - 1}" and cert.upper.method_value == m_star
    assert cert.drup is not None and cert.drup.verified
    assert cert.lemmas_used >= 1 and cert.proof_lines >= cert.lemmas_used
    arte = dict(cert.lower.artefacts)
    assert arte["proof check"] == "verified"
    assert Path(arte["proof"]).read_text().count("\n") == cert.proof_lines


def test_tiny_opening_shadow_falls_back_to_a_domain_that_needs_search(tmp_path: Path) -> None:
    """With the cell relaxation the CNF is refuted by unit propagation; the next domain is not."""
    track = load_track(TRACKS / "tiny_opening_shadow.toml")
    table = build_move_table(track, 4)
    strong = solve_onehot(build_onehot_cnf(track, table.rows, 3))
    assert not strong.satisfiable and strong.proof_lines == ()
    cert = onehot_certificate(track, 4, tmp_path, table=table)
    assert (cert.backward, cert.cells) == (True, False) and cert.proof_lines > 0


def test_flipped_literal_in_a_used_lemma_is_rejected(nocont) -> None:
    track, _, cnf, res = nocont
    proof = list(res.proof_lines)
    assert check_drup(cnf.clauses, proof).verified
    rejected = 0
    for i in reversed(_lemmas(res.proof_lines)[-40:]):
        bad = proof.copy()
        bad[i] = _flip_first(bad[i])
        verdict = check_drup(cnf.clauses, bad)
        if not verdict.verified:
            rejected += 1
            assert verdict.failed_step is not None  # a lemma is named, not just "no conflict"
            judged, _ = judge_onehot_lower(cnf, replace(res, proof_lines=tuple(bad)), 17, track,
                                           time.perf_counter())
            assert judged.verdict == "disagree" and judged.method_value == "unproven"
            assert "not RUP" in judged.reason
            break
    assert rejected == 1


def test_removing_the_lemmas_before_the_empty_clause_is_rejected(nocont) -> None:
    track, _, cnf, res = nocont
    assert not check_drup(cnf.clauses, ["0"]).verified
    judged, drup = judge_onehot_lower(cnf, replace(res, proof_lines=("0",)), 17, track,
                                      time.perf_counter())
    assert drup is not None and not drup.verified
    assert judged.verdict == "disagree" and judged.method_value == "unproven"


def test_one_flipped_clause_of_the_cnf_changes_the_verdict(nocont) -> None:
    """Flip one literal of "alive at 0 and no arrival at move 1 -> alive at 1": the car may
    then vanish after one move, the CNF is satisfiable, the true CNF's proof is rejected on
    it, and solving it reports a disagreement (its model is no trajectory)."""
    track, _, cnf, res = nocont
    alive0, alive1, arrive1 = cnf.alive[0], cnf.alive[1], cnf.arrive[1]
    i = cnf.clauses.index([alive1, -alive0, arrive1])
    clauses = [c.copy() for c in cnf.clauses]
    clauses[i] = [alive1, alive0, arrive1]
    verdict = check_drup(clauses, list(res.proof_lines))
    assert not verdict.verified
    flipped = replace(cnf, clauses=clauses)
    solved = solve_onehot(flipped)
    assert solved.satisfiable and solved.positions is None and solved.decode_error
    judged, _ = judge_onehot_lower(flipped, solved, 17, track, time.perf_counter())
    assert judged.verdict == "disagree" and "does not decode" in judged.reason


def test_certify_fails_when_the_solver_proof_is_corrupted(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    """A solver that hands back a proof without its lemmas fails the whole certificate
    (a track whose strongest one-hot domain needs lemmas: 884 proof lines)."""
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    ok = certify(track, checks=[sat_checks.check_sat], out_dir=tmp_path)
    assert ok.ok
    figures = [r.figure for r in ok.results]
    assert figures == [LOWER_CUT, UPPER_CUT, LOWER_ONEHOT, UPPER_ONEHOT]
    real = sat_checks.solve_onehot

    def truncated(cnf, solver_name="glucose4", proof_path=None):
        res = real(cnf, solver_name, proof_path)
        return replace(res, proof_lines=("0",)) if not res.satisfiable else res

    monkeypatch.setattr(sat_checks, "solve_onehot", truncated)
    bad = certify(track, checks=[sat_checks.check_sat], out_dir=tmp_path)
    lower = next(r for r in bad.results if r.figure == LOWER_ONEHOT)
    assert lower.verdict == "disagree" and not bad.ok


def test_a_wrong_table_entry_makes_the_onehot_lower_bound_disagree(tmp_path: Path) -> None:
    """Making the shoulder cell (4, 1) of mini_arcen endable lets 3 moves arrive (m* = 4)."""
    track = load_track(TRACKS / "mini_arcen.toml")
    assert layered_bfs(track, "exact").m_star == 4
    table = build_move_table(track, 4)
    extra = ((2, 1, 4, 1, 0, 0, 0, 0, 0), (4, 1, 7, 1, 0, 0, 0, 1, 0))
    cert = onehot_certificate(track, 4, tmp_path, table=replace(table, rows=table.rows + extra))
    assert cert.lower.verdict == "disagree" and "satisfiable" in cert.lower.reason
    assert "replays: move" in cert.lower.reason  # the spurious trajectory does not replay


def test_skipped_beyond_the_size_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Too large for the encoder is a named size budget: `skipped` (never `timeout`, nothing
    ran out of time; never not-applicable), with the budget and the measured size."""
    track = load_track(TRACKS / "tiny_spiral_stage.toml")
    bfs = layered_bfs(track, "exact")
    assert bfs.m_star is not None
    monkeypatch.setattr(sat_checks, "ONEHOT_MAX_MSTAR", bfs.m_star - 1)
    [r] = sat_checks.onehot_checks(track, bfs)
    assert r.verdict == "skipped" and r.figure == LOWER_ONEHOT
    assert f"m* = {bfs.m_star}, over the one-hot encoding's size budget of m* <= " \
        f"{bfs.m_star - 1}" in r.reason
    monkeypatch.setattr(sat_checks, "SAT_MAX_CELLS", bfs.m_star)
    first, *rest = sat_checks.sat_checks(track, bfs)
    assert first.verdict == "skipped" and f"size budget of {bfs.m_star:,}" in first.reason
    assert rest[0].verdict == "skipped"  # the one-hot checks still run (and hit their budget)
    assert first.kind == rest[0].kind == MethodKind.CHECKED_PROOF


def test_the_closure_budget_holds_exactly_at_its_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """The closure search stops once closure states x m* passes the budget: at exactly the
    closure's own size x m* the CNF is built (it agrees), one less is skipped, naming a
    size of at least the budget + 1 that it did not build in full."""
    from racecert.independent.movetable import race_table
    from racecert.independent.race_rules import OpeningRule, initial_state, table_successors
    from racecert.independent.sat import untimed_closure

    track = load_track(TRACKS / "tiny_spiral_stage.toml")
    m = 20
    closure = untimed_closure(table_successors(race_table(track), track),
                              initial_state(track), OpeningRule.of(track).moves)
    monkeypatch.setattr(sat_checks, "SAT_MAX_CELLS", len(closure) * m)
    cert = sat_checks.sat_certificate(track, m)
    assert cert.lower.verdict == cert.upper.verdict == "agree"
    assert cert.closure_states == len(closure)
    monkeypatch.setattr(sat_checks, "SAT_MAX_CELLS", len(closure) * m - 1)
    with pytest.raises(SizeBudgetExceeded, match=(
            f"holds at least {len(closure) * m:,} "
            r"closure states x steps, over its size budget of "
            f"{len(closure) * m - 1:,}")):
        sat_checks.sat_certificate(track, m)


def test_only_the_closure_cap_is_a_size_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another ValueError inside the closure search is an error, not a size skip."""
    def broken(table: object, track: object) -> object:
        def successors(state: object, phase: int) -> list:
            raise ValueError("a broken move table")
        return successors

    monkeypatch.setattr(sat_checks, "table_successors", broken)
    with pytest.raises(ValueError, match="a broken move table"):
        sat_checks.sat_certificate(load_track(TRACKS / "tiny_spiral_stage.toml"), 20)


def test_an_unchecked_proof_over_its_size_budget_is_skipped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-hot proof larger than the checker's size budget is not checked: `skipped`,
    naming the proof's size, so the lower bound confirms nothing."""
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    monkeypatch.setattr(sat_checks, "ONEHOT_MAX_PROOF_BYTES", 10)
    cert = onehot_certificate(track, 17)
    assert cert.lower.verdict == "skipped" and "size budget of 10 bytes" in cert.lower.reason


def test_a_conflict_budget_ends_the_solve_with_timeout() -> None:
    """A formula that needs search, with a budget of one conflict: timeout, not a verdict."""
    from pysat.examples.genhard import PHP

    from racecert.independent.sat import SolverBudgetExceeded, run_with_proof

    with pytest.raises(SolverBudgetExceeded, match="1 conflicts"):
        run_with_proof([list(c) for c in PHP(7).clauses], "glucose4", None, conflict_budget=1)
    done = run_with_proof([list(c) for c in PHP(4).clauses], "glucose4", None)
    assert done.sat is False and done.proof


def test_proofs_come_with_their_formula_in_dimacs(tmp_path: Path) -> None:
    """With an output folder the refuted formula is written beside its DRUP proof, so an
    outside checker (drat-trim) can re-check it."""
    from racecert.independent.sat import run_with_proof

    clauses = [[1, 2], [-1, 2], [1, -2], [-1, -2]]
    run_with_proof(clauses, "glucose4", tmp_path / "p.drup")
    cnf = (tmp_path / "p.cnf").read_text().splitlines()
    assert cnf[0] == "p cnf 2 4" and cnf[1:] == ["1 2 0", "-1 2 0", "1 -2 0", "-1 -2 0"]
    assert (tmp_path / "p.drup").exists()
