"""The displacement CNF (`racecert.independent.displacement_cnf`) and certify's checked-proof
lower bound built on it (`displacement_checks`): it refutes T = m* - 1 on straight tracks
with a proof that checks, admits every valid trajectory, cannot refute T = m*, and a
wrong m*, an unsound encoder, a dropped or flipped clause or a rejected proof is caught."""

from __future__ import annotations

import dataclasses
from functools import cache

import pytest
from pysat.solvers import Solver

import racecert.independent.displacement_cnf as dcnf
import racecert.independent.kinematics_cnf as kcnf
from benchmarks.generate import corridor, open_area
from racecert import Analysis
from racecert.api import analyze
from racecert.certification.checks import CHECKS
from racecert.certification.context import CertifyContext, MethodKind, Verdict
from racecert.certification.displacement_checks import FIGURE, check_m_star_displacement
from racecert.independent.drup import check_drup
from racecert.independent.kinematics import KinematicsModel
from racecert.model.bundled import track_path
from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs

CORRIDOR = parse_track(corridor(300, 5).encode(), "corridor300.toml")  # m* = 24
OPEN = parse_track(open_area(40, 20, 34).encode(), "open40.toml")
STRAIGHT = {"corridor300": CORRIDOR, "open40": OPEN,
            **{n: load_track(track_path(n)) for n in ("tiny_straight", "mini_apertura",
                                                      "caleidoscopio")}}
BENT = {n: load_track(track_path(n)) for n in ("candelabro", "tiny_circuit_nocont")}


@cache
def ctx_of(name: str) -> CertifyContext:
    track = {**STRAIGHT, **BENT}[name]
    return CertifyContext(track, layered_bfs(track, "exact"), layered_bfs(track, "editor"))


def with_m_star(ctx: CertifyContext, m: int) -> CertifyContext:
    """The context with the oracle's m* replaced (a corrupted oracle)."""
    return dataclasses.replace(ctx, exact=dataclasses.replace(ctx.exact, m_star=m))


def test_the_check_is_listed_in_certify() -> None:
    assert any(c.run is check_m_star_displacement for c in CHECKS)


@pytest.mark.parametrize("name", sorted(STRAIGHT))
def test_straight_tracks_get_a_checked_lower_bound(name: str) -> None:
    ctx = ctx_of(name)
    m = ctx.exact.m_star
    [r] = check_m_star_displacement(ctx)
    assert (r.figure, r.verdict, r.method_value, r.kind) == (
        FIGURE, Verdict.AGREE, f"> {m - 1}", MethodKind.CHECKED_PROOF), r.reason
    assert dict(r.artefacts)["proof check"] == "verified"


@pytest.mark.parametrize("name", sorted(BENT))
def test_where_the_car_must_turn_it_bounds_nothing(name: str) -> None:
    [r] = check_m_star_displacement(ctx_of(name))
    assert r.verdict == Verdict.NOT_APPLICABLE and "arrives at move" in r.reason, r.reason


@pytest.mark.parametrize("resolution", ["intervals", "grid"])
def test_corridor_bound_at_both_resolutions(resolution: str) -> None:
    """Every value a threshold, or a few: the same answers; refuting T = m* is SAT."""
    m = ctx_of("corridor300").exact.m_star
    model = KinematicsModel.of(CORRIDOR, m - 1)
    below = dcnf.solve_displacement(model, resolution=resolution)
    at = dcnf.solve_displacement(dataclasses.replace(model, horizon=m), resolution=resolution)
    assert (below.status, at.status) == ("infeasible", "feasible"), (below.note, at.note)
    assert at.positions[-1][0] > CORRIDOR.finish.k


def test_the_intervals_cnf_stays_small_on_a_5000_cell_corridor() -> None:
    """Sizes only (no solve, no oracle): the grid resolution would need ~1.5 M clauses."""
    track = parse_track(corridor(5000, 5).encode(), "corridor5000.toml")
    model = KinematicsModel.of(track, 99)
    cnf = dcnf.encode(model)
    assert len(cnf.clauses) <= dcnf.estimated_clauses(model) < 10_000
    assert dcnf.estimated_clauses(model, "grid") > 1_000_000


def _assumptions(cnf: dcnf.DisplacementCnf, positions: tuple[tuple[int, int], ...]
                 ) -> list[int]:
    """Threshold literals fixing x_t, y_t to `positions` (t = 0..len - 1)."""
    lits = []
    for t, (x, y) in enumerate(positions):
        for z, value in ((cnf.xs[t], x), (cnf.ys[t], y)):
            lits += [z.base + i if value >= a else -(z.base + i) for i, a in enumerate(z.cuts)]
    return lits


OTHERS = {n: load_track(track_path(n)) for n in ("tiny_opening_shadow", "ocho")}


@cache
def _analysis(name: str) -> Analysis:
    return analyze({**STRAIGHT, **BENT, **OTHERS}[name])


@pytest.mark.parametrize("name", ["corridor300", "caleidoscopio", "candelabro",
                                  "tiny_circuit_nocont", "mini_apertura",
                                  "tiny_opening_shadow", "ocho"])
@pytest.mark.parametrize("extra", [0, 2])
def test_every_valid_trajectory_satisfies_the_cnf(name: str, extra: int) -> None:
    """Soundness: the yellow, green and blue trajectories (valid, by the oracle) satisfy
    the CNF at their own length and two moves beyond, at both resolutions; opening rules
    (mini_apertura, tiny_opening_shadow) and a bridge (ocho) included."""
    track = {**STRAIGHT, **BENT, **OTHERS}[name]
    a = _analysis(name)
    for positions in {a.yellow.positions, a.representatives.green.trajectory.positions,
                      a.representatives.blue.trajectory.positions}:
        for resolution in ("intervals", "grid"):
            cnf = dcnf.encode(KinematicsModel.of(track, len(positions) - 1 + extra),
                              resolution)
            with Solver(name="glucose4", bootstrap_with=cnf.clauses) as s:
                assert s.solve(assumptions=_assumptions(cnf, positions)), positions


def test_a_too_small_m_star_disagrees_with_a_checked_proof() -> None:
    """The oracle claiming m* - 1: the relaxation refutes that horizon too."""
    ctx = ctx_of("corridor300")
    m = ctx.exact.m_star
    [r] = check_m_star_displacement(with_m_star(ctx, m - 1))
    assert (r.verdict, r.method_value) == (Verdict.DISAGREE, f"> {m - 1}"), r.reason


def test_a_too_large_m_star_is_not_confirmed() -> None:
    """The oracle claiming m* + 1: asking to refute T = m* finds the relaxation's arrival."""
    ctx = ctx_of("corridor300")
    [r] = check_m_star_displacement(with_m_star(ctx, ctx.exact.m_star + 1))
    assert r.verdict == Verdict.NOT_APPLICABLE, r.reason


def test_an_unsound_encoder_is_caught_at_m_star(monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoder stating the speed cap one too small (wrong clauses: the t-th move may
    cover t cells) refutes T = m* as well: the check disagrees instead of confirming."""
    real = dcnf.velocity_cap
    monkeypatch.setattr(dcnf, "velocity_cap", lambda *a: max(real(*a) - 1, 0))
    [r] = check_m_star_displacement(ctx_of("corridor300"))
    assert r.verdict == Verdict.DISAGREE and "UNSAT too" in r.reason, r.reason


def test_a_dropped_or_flipped_clause_rejects_the_proof() -> None:
    m = ctx_of("corridor300").exact.m_star
    cnf = dcnf.encode(KinematicsModel.of(CORRIDOR, m - 1))
    with Solver(name="glucose4", bootstrap_with=cnf.clauses, with_proof=True) as s:
        assert not s.solve()
        proof = list(s.get_proof())
    assert check_drup(cnf.clauses, proof).verified
    goal = cnf.clauses[-1]
    assert len(goal) == 1  # the goal: arrived by move T
    assert not check_drup(cnf.clauses[:-1], proof).verified
    assert not check_drup([*cnf.clauses[:-1], [-goal[0]]], proof).verified
    # the displacement clauses of move 1 (from the fixed start): without them nothing
    # bounds x_1, so the refutation falls apart
    first = {abs(lit) for z in (cnf.xs[1], cnf.ys[1]) for lit in range(z.base,
                                                                      z.base + len(z.cuts))}
    units = [c for c in cnf.clauses if len(c) == 1 and abs(c[0]) in first]
    assert units
    kept = [c for c in cnf.clauses if c not in units]
    assert not check_drup(kept, proof).verified


def test_a_rejected_proof_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker shown the formula without its goal clause rejects the solver's proof:
    the check says so instead of confirming (the check runs in `kinematics_cnf`'s
    `solve_checked`, which both CNFs' solves share)."""
    real = kcnf.check_drup
    monkeypatch.setattr(kcnf, "check_drup", lambda clauses, proof: real(clauses[:-1], proof))
    [r] = check_m_star_displacement(ctx_of("corridor300"))
    assert r.verdict == Verdict.DISAGREE and "rejected" in r.reason, r.reason


def test_over_the_size_budget_it_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dcnf, "MAX_CLAUSES", 10)
    [r] = check_m_star_displacement(ctx_of("tiny_straight"))
    assert r.verdict == Verdict.SKIPPED and "size budget" in r.reason, r.reason


def test_unreachable_or_one_move_is_not_applicable() -> None:
    ctx = ctx_of("tiny_straight")
    for m in (0, 1):
        [r] = check_m_star_displacement(with_m_star(ctx, m))
        assert r.verdict == Verdict.NOT_APPLICABLE, r.reason



def test_a_lower_bound_stands_when_only_the_solve_at_m_star_is_over_its_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The solve at T = m* only guards against an impossible m*; when its CNF is over the
    size budget the checked lower bound still agrees, and the reason says what was not
    solved. A T = m* - 1 over the budget is `skipped`."""
    import racecert.certification.displacement_checks as checks

    real = checks.solve_displacement

    def over_at_m_star(model: KinematicsModel, *args: object, **kwargs: object):
        if model.horizon == ctx_of("corridor300").exact.m_star:
            raise dcnf.SizeBudgetExceeded("the displacement CNF", 9, 8, "clauses")
        return real(model, *args, **kwargs)

    monkeypatch.setattr(checks, "solve_displacement", over_at_m_star)
    [r] = check_m_star_displacement(ctx_of("corridor300"))
    assert r.verdict == Verdict.AGREE, r.reason
    assert "T = 24 not solved: the displacement CNF holds 9 clauses, over its size " \
        "budget of 8 clauses" in r.reason

    def over(model: KinematicsModel, *args: object, **kwargs: object):
        raise dcnf.SizeBudgetExceeded("the displacement CNF", 9, 8, "clauses")

    monkeypatch.setattr(checks, "solve_displacement", over)
    [r] = check_m_star_displacement(ctx_of("corridor300"))
    assert r.verdict == Verdict.SKIPPED
