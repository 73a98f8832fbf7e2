"""The certificate's vocabulary: `skipped` (a size budget) apart from `timeout` (a work
budget), the kinds of method that confirmed each figure (`confirmed_by`), and a headline
that names every figure resting on the second implementation alone (issue #19)."""

from __future__ import annotations

import json

import pytest

from racecert.certification import green_blue_checks
from racecert.certification.certificate import certify, judge_figure
from racecert.certification.context import CheckResult, MethodKind, Verdict
from racecert.certification.dag_checks import check_dag_figures
from racecert.certification.green_blue_checks import check_green_blue
from racecert.independent import movetable
from racecert.independent.movetable import TableBudget
from racecert.model.parse import load_track
from tests.conftest import CircuitCertificate

SECOND = MethodKind.SECOND_IMPLEMENTATION


def _r(verdict: str, kind: MethodKind | None = None) -> CheckResult:
    return CheckResult("m*", 5, "test", 5, verdict, "why", 0.0,  # type: ignore[arg-type]
                       kind=kind)


def test_skipped_is_a_typed_verdict_and_never_agreement() -> None:
    """`skipped` is a member of `Verdict` (a typo fails at construction) and, like
    not-applicable and timeout, never confirms a figure."""
    assert _r("skipped").verdict is Verdict.SKIPPED
    with pytest.raises(ValueError):
        _r("skiped")
    assert judge_figure("m_star", 5, None, (_r("skipped"),)).verdict == "skipped"
    assert judge_figure("m_star", 5, None, (_r("skipped"), _r("timeout"))).verdict == "timeout"
    assert judge_figure("m_star", 5, None, (_r("skipped", SECOND),)).confirmed_by == ()
    both = judge_figure("m_star", 5, None, (_r("agree", SECOND),
                                             _r("skipped", MethodKind.SOLVER_MODEL)))
    assert both.verdict == "agree" and both.confirmed_by == (SECOND,)
    assert both.second_implementation_only == "solver models skipped: size budget"


def test_a_check_over_its_size_budget_is_skipped_and_confirms_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corruption: green/blue's CP-SAT optimisation forced over its table-size budget says
    `skipped` with the budget and the measured size (not `timeout`), and green is then
    confirmed by the second implementation only, which the headline says."""
    monkeypatch.setattr(green_blue_checks, "MAX_TABLE_ROWS", 1)
    c = certify(load_track("tracks/tiny_straight.toml"),
                checks=[check_green_blue, check_dag_figures])
    green = next(f for f in c.figures if f.name == "green_length")
    cpsat = [r for r in green.checks if r.kind == MethodKind.SOLVER_MODEL]
    assert [r.verdict for r in cpsat] == ["skipped"]
    assert "rows, over the optimisation's size budget of 1 rows" in cpsat[0].reason
    assert green.verdict == "agree" and green.confirmed_by == (SECOND,)
    j = c.to_json()
    assert j["figures"]["green_length"]["confirmed_by"] == ["second-implementation"]
    assert j["second_implementation_only"]["green_length"] == \
        "solver models skipped: size budget"
    assert "green_length" in c.headline and "(solver models skipped: size budget)" in c.headline
    assert j["summary"]["figures_timeout"] == 0


def test_second_implementation_only_gets_the_headline_note(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Corruption: with every move table over its size budget, no table-based solver model
    runs; the count rests on the second implementation alone, m* on it, the
    integer-kinematics CP-SAT model and the same model as a CNF with a checked proof,
    green/blue on it and the CP-SAT model over the independent DAG (none needs a move
    table). The certificate is
    still `certified` (every figure confirmed) but says so, per figure and in the
    headline, and every table-based check says `skipped`, none `timeout`."""
    def over(track, starts, what, **_):
        raise TableBudget("the reachable-move closure", 8, 7, "states", at_least=True)

    movetable.clear_closure_cache()
    monkeypatch.setattr(movetable, "reachable_move_table", over)
    try:
        c = certify(load_track("tracks/tiny_straight.toml"))
    finally:
        movetable.clear_closure_cache()
    assert c.status == "certified"
    figures = {f.name: f for f in c.figures}
    assert figures["optimal_count"].confirmed_by == (SECOND,)
    assert figures["optimal_count"].second_implementation_only == \
        "solver models skipped: size budget"
    for name in ("green_length", "blue_ties"):
        assert figures[name].confirmed_by == (SECOND, MethodKind.SOLVER_MODEL), name
        assert not figures[name].second_implementation_only, name
    assert figures["m_star"].confirmed_by == (SECOND, MethodKind.CHECKED_PROOF,
                                              MethodKind.SOLVER_MODEL)
    assert not figures["m_star"].second_implementation_only
    assert not any(r.verdict == Verdict.TIMEOUT for r in c.results)
    skipped = [r for r in c.results if r.verdict == Verdict.SKIPPED]
    assert skipped and all("size budget of 7 states" in r.reason for r in skipped)
    assert c.headline.startswith("CERTIFIED: every figure confirmed by an independent check")
    assert "by the second implementation only: optimal_count" in c.headline
    j = json.loads(json.dumps(c.to_json()))
    assert j["figures"]["m_star"]["confirmed_by"] == [
        "second-implementation", "solver-model-checked-proof", "solver-model"]
    assert j["headline"] == c.headline


def test_confirmed_by_names_each_kind_that_agreed(
        circuit_certificate: CircuitCertificate) -> None:
    """On a small circuit every kind of method confirms something, and each figure lists
    exactly the kinds of its agreeing checks: the certificate of `racecert certify
    tracks/tiny_circuit_nocont.toml` (the session's, tests/conftest.py)."""
    c = circuit_certificate.certificate
    assert c.track.name == load_track("tracks/tiny_circuit_nocont.toml").name
    by = {f.name: f.confirmed_by for f in c.figures}
    assert by["m_star"] == (SECOND, MethodKind.CHECKED_PROOF, MethodKind.SOLVER_MODEL)
    assert by["optimal_count"] == (SECOND, MethodKind.ENUMERATION)
    assert by["continuable_count"] == (MethodKind.CHECKED_PROOF, MethodKind.SOLVER_MODEL)
    assert by["kind"] == (SECOND,)
    assert c.to_json()["second_implementation_only"]["kind"] == \
        "not covered by any solver model"
    for f in c.figures:
        assert set(f.confirmed_by) == {r.kind for r in f.checks if r.verdict == "agree"}


def _m_result(figure: str, verdict: Verdict) -> CheckResult:
    return CheckResult(figure, 24, "a method", 24 if verdict == Verdict.AGREE else None,
                       verdict, "its reason", 0.0, kind=MethodKind.CHECKED_PROOF)


def test_a_lower_bound_alone_does_not_confirm_m_star() -> None:
    """Corruption of the judgement: a refuted m* - 1 (the displacement CNF, say) shows
    m* >= 24, not that 24 moves suffice; with the checks of the whole figure out of
    budget, m* is not confirmed and the reason names the missing side."""
    lower = _m_result("m* lower bound, displacement CNF", Verdict.AGREE)
    full = _m_result("m*", Verdict.TIMEOUT)
    f = judge_figure("m_star", 24, None, (lower, full))
    assert f.verdict == "timeout" and f.confirmed_by == ()
    assert f.reason.startswith("only the lower bound is confirmed (m* lower bound, "
                               "displacement CNF); nothing confirmed the upper bound; ")
    f = judge_figure("m_star", 24, None, (_m_result("m* upper bound, one-hot CNF",
                                                    Verdict.AGREE),))
    assert f.verdict == "unchecked" and "nothing confirmed the lower bound" in f.reason


def test_both_sides_or_a_whole_check_confirm_m_star() -> None:
    lower = _m_result("m* lower bound, one-hot CNF", Verdict.AGREE)
    upper = _m_result("m* upper bound, one-hot CNF", Verdict.AGREE)
    assert judge_figure("m_star", 24, None, (lower, upper)).verdict == "agree"
    whole = _m_result("m_star", Verdict.AGREE)
    assert judge_figure("m_star", 24, None, (lower, whole)).verdict == "agree"
    assert judge_figure("m_star", 24, None, (whole,)).verdict == "agree"
