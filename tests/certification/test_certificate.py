"""Certificates: each check agrees on a correct input and disagrees on a corrupted one."""

from __future__ import annotations

import dataclasses
import json

import pytest

from racecert.certification import checks_cpsat
from racecert.certification.certificate import (
    SCHEMA,
    CertifyContext,
    CheckResult,
    certify,
    default_checks,
    judge_figure,
)
from racecert.independent import movetable
from racecert.independent.geometry import Geometry
from racecert.independent.movetable import MoveTable
from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_geometry_crosscheck import RAMP_TRACK, RING_TRACK

RING = parse_track(RING_TRACK.encode())
RAMP = parse_track(RAMP_TRACK.encode())


def _ctx(track=RING, **kw) -> CertifyContext:
    return CertifyContext(track, layered_bfs(track, "exact"), layered_bfs(track, "editor"),
                          cpsat_budget=30, **kw)


def test_certify_agrees_on_a_small_circuit() -> None:
    c = certify(RING)
    assert c.ok
    figures = {r.figure: r for r in c.results}
    assert {"move validity", "m*", "optimal_count", "continuable final states (race rule)",
            "continuable final states (editor certification)"} <= set(figures)
    # not applicable on a ring: m_cont in the editor key (no opening rule) and the
    # displacement CNF's bound (its relaxation, without walls between end cells, arrives early)
    apart = ("m_cont (editor key)", "m* lower bound, displacement CNF")
    assert all(r.verdict == "agree" for r in c.results if r.figure not in apart)
    assert [r.verdict for r in c.results if r.figure in apart] == ["not-applicable"] * 2
    assert figures["m*"].method_value == 12 and figures["optimal_count"].method_value == "3"
    j = json.loads(json.dumps(c.to_json()))
    assert j["schema"] == SCHEMA and j["summary"]["ok"] and j["summary"]["figures_disagree"] == 0
    assert j["figures"]["m_star"]["verdict"] == "agree"
    assert j["figures"]["optimal_count"]["value"] == "3"
    assert j["status"] in ("certified", "partial")
    assert j["status"] == "certified" or j["unconfirmed"]
    assert j["bfs"]["exact"]["optimal_count"] == "3"
    assert {a["figure"] for a in j["arbitration"]} == {"m*", "optimal_count"}
    assert all("exact" in a["agrees_with"] for a in j["arbitration"])


def test_wrong_m_star_disagrees() -> None:
    ctx = _ctx()
    wrong = dataclasses.replace(ctx.exact, m_star=ctx.exact.m_star + 1)
    r = checks_cpsat.check_m_star(dataclasses.replace(ctx, exact=wrong))[0]
    assert r.verdict == "disagree" and r.bfs_value == 13
    wrong = dataclasses.replace(ctx.exact, m_star=ctx.exact.m_star - 1)
    r = checks_cpsat.check_m_star(dataclasses.replace(ctx, exact=wrong))[0]
    assert r.verdict == "disagree"


def test_wrong_count_disagrees() -> None:
    ctx = _ctx()
    wrong = dataclasses.replace(ctx.exact, optimal_count=ctx.exact.optimal_count + 1)
    r = checks_cpsat.check_count(dataclasses.replace(ctx, exact=wrong))[0]
    assert r.verdict == "disagree" and r.bfs_value == "4" and r.method_value == "3"


def test_count_too_large_is_a_named_limit() -> None:
    """Over --count-limit the enumeration is not attempted: a size budget (`skipped`, with
    the count and the budget), never `timeout` (nothing ran out of time) and never
    not-applicable (the count exists; another method confirms it)."""
    r = checks_cpsat.check_count(_ctx(count_limit=2))[0]
    assert r.verdict == "skipped" and "--count-limit" in r.reason
    assert "3 trajectories is over the enumeration's size budget of 2" in r.reason


def test_wrong_move_table_entry_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Drop the first move of every optimal trajectory from the table: m* disagrees."""
    real = movetable.reachable_move_table

    def broken(track, starts, what):
        t = real(track, starts, what)
        x, y = track.car.position
        rows = tuple(r for r in t.rows if not (r[:2] == (x, y) and r[2:4] == (x + 1, y)))
        return MoveTable(rows, t.vmax, t.endable, t.scope, 0.0)

    movetable.clear_closure_cache()
    monkeypatch.setattr(movetable, "reachable_move_table", broken)
    try:
        r = checks_cpsat.check_m_star(_ctx())[0]
    finally:
        movetable.clear_closure_cache()
    assert r.verdict == "disagree"


def test_wrong_geometry_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    class Lax(Geometry):
        """Forgets the opening rule."""

        def opening_ok(self, phase: int, vx: int, vy: int) -> bool:
            return True

    import racecert.certification.geometry_check as gc
    monkeypatch.setattr(gc, "Geometry", Lax)
    r = checks_cpsat.check_geometry(_ctx(RAMP))[0]
    assert r.verdict == "disagree" and r.artefacts and "acceleration" in r.artefacts[0][1]


def test_wrong_continuation_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """A reference that claims no continuation where CP-SAT finds one."""
    real = checks_cpsat.layered_bfs

    def never(track, mode="exact", **kw):
        r = real(track, mode, **kw)
        return dataclasses.replace(r, reachable=False, m_star=None) if "initial" in kw else r

    monkeypatch.setattr(checks_cpsat, "layered_bfs", never)
    res = checks_cpsat.check_continuity(_ctx())
    assert [r.verdict for r in res] == ["disagree", "disagree"]
    assert "bounded BFS None" in res[0].artefacts[0][1]


@pytest.mark.parametrize("shift", [1, -1])
def test_a_continuation_length_off_by_one_disagrees(monkeypatch: pytest.MonkeyPatch,
                                                    shift: int) -> None:
    """One earliest-arrival solve per final state: a reference one move too long is refuted
    by CP-SAT's shorter optimum, one move too short by its infeasibility."""
    real = checks_cpsat.layered_bfs

    def off(track, mode="exact", **kw):
        r = real(track, mode, **kw)
        if "initial" in kw and r.reachable and r.m_star + shift >= 1:
            return dataclasses.replace(r, m_star=r.m_star + shift)
        return r

    monkeypatch.setattr(checks_cpsat, "layered_bfs", off)
    res = checks_cpsat.check_continuity(_ctx())
    assert [r.verdict for r in res] == ["disagree", "disagree"]
    assert "first continuation within" in res[0].artefacts[0][1]


def test_continuity_takes_one_solve_per_distinct_start() -> None:
    res = checks_cpsat.check_continuity(_ctx())
    assert [r.verdict for r in res] == ["agree", "agree"]
    starts = {int(dict(r.artefacts)["final states"]) for r in res}
    solves = int(res[-1].work.split()[0])
    assert solves <= sum(starts) and solves >= max(starts)


def test_a_disagreeing_plugged_check_makes_the_certificate_fail() -> None:
    def bogus(ctx: CertifyContext) -> list[CheckResult]:
        """A plugged-in check that always disagrees."""
        return [CheckResult("m*", ctx.exact.m_star, "bogus", -1, "disagree", "test", 0.0)]

    c = certify(RING, [bogus])
    assert not c.ok and c.status == "disagree"
    assert c.to_json()["summary"]["figures_disagree"] == 1
    assert c.to_json()["figures"]["m_star"]["verdict"] == "disagree"
    assert checks_cpsat.check_geometry in [c.run for c in default_checks()]


def test_nothing_applicable_is_not_certified() -> None:
    """`not-applicable` never counts as agreement: no check, no certificate; one figure
    confirmed leaves the others unconfirmed, and the certificate says which."""
    none = certify(load_track("tracks/tiny_straight.toml"), checks=[])
    assert none.ok and not none.certified and none.status == "partial"
    assert "m_star" in none.unconfirmed and "optimal_count" in none.unconfirmed
    some = certify(load_track("tracks/tiny_straight.toml"), checks=[checks_cpsat.check_m_star])
    assert some.ok and not some.certified and some.status == "partial"
    assert "m_star" not in some.unconfirmed and "optimal_count" in some.unconfirmed
    verdicts = {f.name: f.verdict for f in some.figures}
    assert verdicts["m_star"] == "agree" and verdicts["continuable_count"] == "not-applicable"


def _r(verdict: str, figure: str = "m*") -> CheckResult:
    return CheckResult(figure, 5, "test", 5, verdict, "why", 0.0)  # type: ignore[arg-type]


def test_figure_verdicts_follow_their_checks() -> None:
    """disagree beats agree; absent figures are not-applicable; a timeout is not agreement."""
    assert judge_figure("m_star", 5, None, (_r("agree"), _r("disagree"))).verdict == "disagree"
    assert judge_figure("m_star", 5, None, (_r("agree"), _r("timeout"))).verdict == "agree"
    assert judge_figure("m_star", 5, None, (_r("timeout"),)).verdict == "timeout"
    assert judge_figure("m_star", 5, None, (_r("not-applicable"),)).verdict == "unchecked"
    assert judge_figure("m_star", 5, None, ()).verdict == "unchecked"
    assert judge_figure("m_cont", None, "a stage", ()).verdict == "not-applicable"
    assert judge_figure("m_cont", None, "a stage", (_r("disagree"),)).verdict == "disagree"
