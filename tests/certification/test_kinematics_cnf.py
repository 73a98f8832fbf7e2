"""The integer kinematics as an order-encoded CNF (`racecert.independent.kinematics_cnf`)
and the checked-proof lower bound of certify (`kinematics_checks`): it refutes T = m* - 1
with a proof that checks, admits every valid trajectory, finds a replayed witness when m*
is claimed too large, and a corrupted formula or proof is rejected."""

from __future__ import annotations

import ast
import dataclasses
import itertools
from functools import cache
from math import gcd
from pathlib import Path

import pytest
from pysat.solvers import Solver

from benchmarks.generate import open_area, serpentine
from racecert import Analysis
from racecert.api import analyze
from racecert.certification.context import CertifyContext, MethodKind, Verdict
from racecert.certification.kinematics_checks import (
    SAT_FIGURE,
    check_m_star_kinematics,
    sat_lower_bound,
)
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.drup import check_drup
from racecert.independent.geometry import Geometry
from racecert.independent.kinematics import (
    Families,
    KinematicsModel,
    layer_count,
    light,
    one_way,
    refine,
)
from racecert.independent.kinematics_cnf import (
    MAX_CLAUSES,
    Cnf,
    _at_least,
    encode,
    estimated_clauses,
    sat_backend,
    solve_cnf,
)
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_geometry_crosscheck import RING_TRACK

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
OPEN = parse_track(open_area(40, 20, 34).encode(), "open40.toml")
BENDS = parse_track(serpentine(plies=2, length=10, width=3, gap=3).encode(), "bends.toml")
RING = parse_track(RING_TRACK.encode())
SMALL = {"open40": OPEN, "bends": BENDS, "ring": RING,
         **{n: load_track(str(TRACKS / f"{n}.toml"))
            for n in ("tiny_straight", "apertura", "tiny_opening_shadow", "candelabro",
                      "tiny_circuit_nocont", "4_esquinas")}}


def ctx_of(track: Track) -> CertifyContext:
    return CertifyContext(track, layered_bfs(track, "exact"), layered_bfs(track, "editor"),
                          cpsat_budget=30)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_the_checked_lower_bound_agrees(name: str) -> None:
    track = SMALL[name]
    ctx = ctx_of(track)
    results = check_m_star_kinematics(ctx)
    sat = next(r for r in results if r.figure == SAT_FIGURE)
    m = ctx.exact.m_star
    assert (sat.verdict, sat.method_value, sat.kind) == (
        Verdict.AGREE, f"> {m - 1}", MethodKind.CHECKED_PROOF), sat.reason
    assert dict(sat.artefacts)["proof check"] == "verified"


@pytest.mark.parametrize("name", ["open40", "bends", "candelabro"])
def test_a_too_large_m_star_gets_a_replayed_sat_witness(name: str) -> None:
    """Claimed m* + 1: the CNF at T = m* is satisfiable, its model (after cuts) replays as
    a valid trajectory of at most m* moves: a disagreement with evidence."""
    track = SMALL[name]
    ctx = ctx_of(track)
    m = ctx.exact.m_star
    g = Geometry(track)
    r = sat_lower_bound(ctx, track, g, KinematicsModel.of(track, m, g), m + 1, ())
    assert r.verdict == Verdict.DISAGREE, r.reason
    witness = dict(r.artefacts)["witness"]
    positions = list(ast.literal_eval(witness))
    assert g.replay(positions)[0] and len(positions) - 1 <= m


def test_the_sat_refinement_reaches_the_same_m_star_as_cp_sat() -> None:
    """With the SAT backend alone (its own cuts), T = m* - 1 is refuted and T = m* gives a
    witness that replays, arriving at move m*."""
    m = layered_bfs(BENDS, "exact").m_star
    below = refine(BENDS, m - 1, budget=100_000, backend=sat_backend())
    assert below.status == "infeasible", below.reason
    at = refine(BENDS, m, budget=100_000, cuts=below.cuts, backend=sat_backend())
    assert at.status == "feasible" and len(at.positions) - 1 == m, at.reason
    assert Geometry(BENDS).replay(list(at.positions))[0]


def _assumptions(cnf, positions: tuple[tuple[int, int], ...]) -> list[int]:
    """Order literals fixing x_t, y_t to `positions` (t = 0..len - 1)."""
    lits = []
    for t, (x, y) in enumerate(positions):
        for z, value in ((cnf.xs[t], x), (cnf.ys[t], y)):
            for a in range(z.lo + 1, z.hi + 1):
                lit = z.ge(a)
                lits.append(lit if value >= a else -lit)
    return lits


@cache
def _analysis_and_cuts(name: str) -> tuple[Analysis, Geometry, tuple]:
    """The analysis, the geometry and CP-SAT's cuts at T = m* - 1 of SMALL[name] (once for
    both horizons of the soundness test)."""
    track = SMALL[name]
    a = analyze(track)
    g = Geometry(track)
    return a, g, refine(track, a.bfs.m_star - 1, geometry=g).cuts


FAMILIES = tuple((j, n) for n in (3, 5, 7) for j in range(1, n) if gcd(j, n) == 1)


@pytest.mark.parametrize("name", ["bends", "ring", "candelabro", "apertura",
                                  "tiny_circuit_nocont"])
@pytest.mark.parametrize("extra", [0, 2])
@pytest.mark.parametrize("variant", ["full", "light"])
def test_every_valid_trajectory_satisfies_the_cnf(name: str, extra: int, variant: str
                                                  ) -> None:
    """Soundness of the relaxation: the yellow, green and blue trajectories (valid, by the
    oracle) satisfy the CNF at their own length and two moves beyond (the steps after an
    arrival are free), with the cuts CP-SAT found, every sample family up to n = 7, the
    line walls and no standstill, in the full model and the light one
    (`kinematics.light`)."""
    track = SMALL[name]
    a, g, cuts = _analysis_and_cuts(name)
    trajectories = {a.yellow.positions, a.representatives.green.trajectory.positions,
                    a.representatives.blue.trajectory.positions}
    for positions in trajectories:
        horizon = len(positions) - 1 + extra
        lines = tuple(line for line in (track.start, track.finish)
                      if one_way(line, g, layer_count(track)))
        model = Families(FAMILIES, lines, True).on(
            dataclasses.replace(KinematicsModel.of(track, horizon, g), cuts=cuts))
        cnf = encode(light(model) if variant == "light" else model)
        with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
            assert s.solve(assumptions=_assumptions(cnf, positions)), positions


def test_a_flipped_goal_clause_or_a_cut_proof_is_rejected() -> None:
    m = layered_bfs(BENDS, "exact").m_star
    cnf = encode(KinematicsModel.of(BENDS, m - 1))
    with Solver(name="glucose4", bootstrap_with=cnf.clauses, with_proof=True) as s:
        assert not s.solve()
        proof = list(s.get_proof())
    assert check_drup(cnf.clauses, proof).verified
    goal = cnf.clauses[-1]
    assert len(goal) == 1  # the goal: done[T]
    flipped = [*cnf.clauses[:-1], [-goal[0]]]
    assert not check_drup(flipped, proof).verified
    if len(proof) > 1:  # a proof cut short no longer derives the empty clause
        assert not check_drup(cnf.clauses, proof[: len(proof) // 2]).verified


def test_the_size_budget_skips_before_building() -> None:
    """An open 300 x 300 area at 100 moves: about 5 million clauses (its velocities are
    at most 23 a move: 23 moves of acceleration cover 276 of its 297 columns)."""
    big = parse_track(open_area(300, 150, 240).encode(), "open300.toml")
    model = KinematicsModel.of(big, 100)
    assert estimated_clauses(model) > MAX_CLAUSES
    with pytest.raises(SizeBudgetExceeded, match="kinematics CNF holds .* clauses"):
        solve_cnf(model)


def test_an_open_area_is_refuted_by_unit_propagation() -> None:
    """Nothing beyond the rules' domains is given to the CNF: the solver and the checker
    derive how far the car gets; on an open area unit propagation alone does it."""
    m = layered_bfs(OPEN, "exact").m_star
    r = solve_cnf(KinematicsModel.of(OPEN, m - 1))
    assert r.solve.status == "infeasible" and r.proof_lines == 0
    assert "unit propagation" in r.checker
    assert solve_cnf(KinematicsModel.of(OPEN, m)).solve.status == "feasible"


def test_a_rejected_proof_is_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    """Corruption of the checker's input: the solver's UNSAT stands, but its proof does not
    check (here: the checker refuses every proof); the check must not agree."""
    from racecert.independent import kinematics_cnf
    from racecert.independent.drup import DrupResult

    def refuse(clauses, proof):  # noqa: ANN001, ANN202 - the checker's signature
        return DrupResult(False, 0, 0, None, "no empty clause derived", 0.0)

    monkeypatch.setattr(kinematics_cnf, "check_drup", refuse)
    track = SMALL["candelabro"]
    ctx = ctx_of(track)
    sat = next(r for r in check_m_star_kinematics(ctx) if r.figure == SAT_FIGURE)
    assert sat.verdict == Verdict.DISAGREE and sat.method_value == "unproven", sat.reason
    assert dict(sat.artefacts)["proof check"] == "rejected"


def test_the_proof_and_its_formula_are_written_for_an_outside_checker(tmp_path: Path) -> None:
    track = SMALL["tiny_circuit_nocont"]
    ctx = dataclasses.replace(ctx_of(track), out_dir=tmp_path)
    sat = next(r for r in check_m_star_kinematics(ctx) if r.figure == SAT_FIGURE)
    proof = Path(dict(sat.artefacts)["proof"])
    assert sat.verdict == Verdict.AGREE and proof.parent == tmp_path
    from racecert.independent.drup import read_dimacs, read_proof
    clauses, _ = read_dimacs(proof.with_suffix(".cnf"))
    assert check_drup(clauses, read_proof(proof)).verified


@pytest.mark.parametrize(("ca", "cb", "b_lo", "b_hi"), [(3, 1, -4, 4), (2, 5, -2, 6),
                                                         (7, 3, -9, 9), (1, 1, 0, 12)])
def test_a_threshold_literal_is_the_inequality(ca: int, cb: int, b_lo: int, b_hi: int
                                               ) -> None:
    """[ca a + cb b >= k] (`_at_least`), for every k across the sum's range and beyond:
    with a and b fixed by assumptions, unit propagation sets the literal to the truth of
    the inequality, and the clauses admit every pair of values."""
    for k in range(ca * 0 + cb * b_lo - 2, ca * 5 + cb * b_hi + 3):
        cnf = Cnf()
        a, b = cnf.integer(0, 5), cnf.integer(b_lo, b_hi)
        lit = _at_least(cnf, a, ca, b, cb, k)
        with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
            for va, vb in itertools.product(range(0, 6), range(b_lo, b_hi + 1)):
                fix = [z.ge(t) if v >= t else -z.ge(t)
                       for z, v in ((a, va), (b, vb)) for t in range(z.lo + 1, z.hi + 1)]
                want = ca * va + cb * vb >= k
                if isinstance(lit, bool):
                    assert lit == want, (k, va, vb)
                    continue
                ok, implied = s.propagate(assumptions=fix)
                assert ok and (lit if want else -lit) in implied, (k, va, vb)


LLANURA = load_track(str(TRACKS / "llanura.toml"))


def test_llanura_lower_bound_has_a_checked_proof() -> None:
    """Issue #19's last gap: llanura's m* = 69 gets its lower bound from the kinematics
    CNF with a checked DRUP proof (the row walls keep the relaxed car from jumping the
    hedges; the light model, y velocity free, is small enough to refute after the full
    model runs out of its conflicts).

    The SAT bound is asked here on its own, with no cut and no sample family from CP-SAT:
    T = 68 needs none (certify hands it CP-SAT's, and its work is the same). The CP-SAT
    half of the check on llanura (its refutation at 68 and its replayed witness at 69,
    about 10 CPU s of solving) is certify's, run on every bundled track by `make bench`
    (BENCHMARKS.md, certify section); its chaining into this bound is
    test_the_checked_lower_bound_agrees's, on the small tracks."""
    ctx = ctx_of(LLANURA)
    assert ctx.exact.m_star == 69
    g = Geometry(LLANURA)
    sat = sat_lower_bound(ctx, LLANURA, g, KinematicsModel.of(LLANURA, 69, g), 69, ())
    assert (sat.verdict, sat.method_value, sat.kind) == (
        Verdict.AGREE, "> 68", MethodKind.CHECKED_PROOF), sat.reason
    assert dict(sat.artefacts)["proof check"] == "verified"
    assert "the light model" in sat.reason
    assert sat.work.startswith("2 solves, 0 cuts,")  # the full model, then the light one
