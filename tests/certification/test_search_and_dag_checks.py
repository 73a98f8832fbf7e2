"""The scalable checks: every explored move by fastgeom, the independent search with its
count certificate, and green/blue/yellow/coverage/score over the independent DAG — each
agrees on real tracks and disagrees when one side is corrupted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from racecert.analysis.pipeline import analyze
from racecert.certification import dag_checks, fast_geometry_check, search_checks
from racecert.certification.context import CertifyContext
from racecert.certification.evidence import clear_search_cache
from racecert.independent.fastgeom import FastGeometry
from racecert.model.parse import load_track
from racecert.model.radicals import RadicalSum
from racecert.oracle.bfs import layered_bfs

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def _ctx(name: str, **changes) -> CertifyContext:
    track = load_track(TRACKS / name)
    a = analyze(track)
    if changes:
        a = dataclasses.replace(a, **changes)
    return CertifyContext(track, a.bfs, layered_bfs(track, "editor"), analysis=a)


@pytest.mark.parametrize("name", ["4_esquinas.toml", "ocho.toml", "arcenes.toml",
                                  "tiny_circuit_nocont.toml", "apertura.toml"])
def test_all_scalable_checks_agree(name: str) -> None:
    ctx = _ctx(name)
    results = (search_checks.check_move_validity(ctx) + search_checks.check_search(ctx)
               + dag_checks.check_dag_figures(ctx))
    assert {r.verdict for r in results} == {"agree"}, [r for r in results
                                                       if r.verdict != "agree"]
    assert all(r.work for r in results if r.figure != "score")


def test_a_broken_fastgeom_makes_move_validity_disagree(monkeypatch: pytest.MonkeyPatch) -> None:
    real = FastGeometry.valid_moves

    def lossy(self, *args):
        mv = real(self, *args)
        return mv.take(np.arange(1, len(mv.src)))  # drop one valid move

    monkeypatch.setattr(FastGeometry, "valid_moves", lossy)
    track = load_track(TRACKS / "arcenes.toml")
    r = fast_geometry_check.crosscheck_fast_geometry(track, 5)
    assert not r.agree and "valid for the model only" in r.disagreements[0]


def test_a_state_budget_is_a_timeout_not_a_verdict() -> None:
    ctx = dataclasses.replace(_ctx("4_esquinas.toml"), max_states=50)
    clear_search_cache()
    results = search_checks.check_move_validity(ctx) + search_checks.check_search(ctx)
    assert {r.verdict for r in results} == {"timeout"}
    assert all("budget" in r.reason for r in results)
    clear_search_cache()


def test_wrong_oracle_counts_and_final_states_disagree() -> None:
    ctx = _ctx("ocho.toml")
    wrong = dataclasses.replace(ctx.exact, optimal_count=ctx.exact.optimal_count + 1,
                                final_counts=ctx.exact.final_counts[:-1])
    res = {r.figure: r for r in search_checks.check_search(dataclasses.replace(ctx,
                                                                                exact=wrong))}
    assert res["optimal_count"].verdict == "disagree"
    assert res["final_states"].verdict == "disagree"
    assert res["m_star"].verdict == "agree"


def test_wrong_lengths_coverage_and_score_disagree() -> None:
    base = _ctx("4_esquinas.toml").analysis
    assert base is not None and base.representatives is not None and base.score is not None
    green = dataclasses.replace(base.representatives.green,
                                length=base.representatives.green.length
                                + RadicalSum.parse("sqrt(5)"))
    reps = dataclasses.replace(base.representatives, green=green)
    yellow = dataclasses.replace(base.yellow, moves=(base.yellow.moves or 0) + 1)
    assert base.coverage is not None
    coverage = dataclasses.replace(base.coverage, drivable=base.coverage.drivable + 1)
    score = dataclasses.replace(base.score, total=base.score.total + 1)
    ctx = _ctx("4_esquinas.toml", representatives=reps, yellow=yellow, coverage=coverage,
               score=score)
    res = {r.figure: r.verdict for r in dag_checks.check_dag_figures(ctx)}
    assert res == {"green length and ties": "disagree", "blue length and ties": "agree",
                   "yellow_moves": "disagree", "yellow_length": "disagree",
                   "coverage": "disagree", "score": "disagree"}


def test_the_long_checks_report_their_work_against_their_budget() -> None:
    """The move re-check and the independent search report stored states against the
    state budget, with the oracle's explored states as the total they reach (the display's
    estimate); the lap search reports its layers and its continuation decider's waves."""
    from racecert.certification import laps_checks

    seen: list[tuple[str, int, int | None]] = []
    ctx = dataclasses.replace(_ctx("ocho.toml"),
                              work=lambda what, done, total: seen.append((what, done, total)))
    clear_search_cache()
    laps_checks.clear_laps_cache()
    try:
        assert search_checks.check_move_validity(ctx)[0].verdict == "agree"
        assert {r.verdict for r in search_checks.check_search(ctx)} == {"agree"}
        assert laps_checks.check_kind(ctx)[0].verdict == "agree"
    finally:
        clear_search_cache()
        laps_checks.clear_laps_cache()
    explored = ctx.editor.states_explored
    budget = f"state budget {ctx.max_states:,}"
    for prefix in ("moves of every state within 28 moves", "independent layered search"):
        mine = [r for r in seen if r[0].startswith(prefix)]
        assert mine and all(budget in w and t == explored for w, _, t in mine)
        assert mine[-1][1] == explored  # the last report: every state, as the oracle
        assert [d for _, d, _ in mine] == sorted(d for _, d, _ in mine)
    for prefix in ("first-lap search, exact key", "continuation decider"):
        assert any(w.startswith(prefix) and budget in w for w, _, _ in seen), prefix
