"""Green and blue by CP-SAT over the independent search's optimal DAG: exact against a brute
force, the same as the closure model where both run, disagreeing when the oracle or the DAG
is corrupted, and `skipped` / `timeout` at its budgets."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from racecert.certification import green_blue_checks
from racecert.certification.evidence import clear_search_cache
from racecert.independent.cpsat_dag import DagLengths, potential
from racecert.independent.cpsat_lengths import extreme_length, move_weight
from racecert.independent.dag import LayeredDag
from racecert.independent.search import explore
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from tests.certification.test_geometry_crosscheck import RING_TRACK
from tests.certification.test_green_blue import (
    STRAIGHT,
    _ctx,
    _with_green,
    assert_extremes,
    brute_lengths,
)

ROOT = Path(__file__).resolve().parents[2]


def _dag(track) -> LayeredDag:
    res = explore(track, "exact")
    assert res.dag is not None
    return LayeredDag.of(res.dag)


@pytest.mark.parametrize("text", [STRAIGHT, RING_TRACK])
def test_dag_extremes_equal_the_brute_force(text: str) -> None:
    track = parse_track(text.encode())
    m, lengths = brute_lengths(track)
    model = DagLengths(_dag(track))
    assert model.horizon == m
    green, blue = assert_extremes(model, lengths)
    assert green.band >= green.ties and blue.band >= blue.ties


def test_the_potential_is_the_least_cost_to_go() -> None:
    """h(start) is the least scaled length over the DAG's paths (brute force over them)."""
    dag = _dag(parse_track(STRAIGHT.encode()))
    steps = DagLengths(dag)._steps()
    costs = [np.array([move_weight(a, b) for a, b in zip(dx.tolist(), dy.tolist(),
                                                          strict=True)], dtype=np.int64)
             for _, _, dx, dy in steps]
    h = potential(steps, costs, [len(x) for x in dag.xs], 10**12)
    best = None
    stack = [(0, 0, 0)]  # (step, state, cost so far)
    while stack:
        t, s, c = stack.pop()
        src, dst = steps[t][0], steps[t][1]
        for j in np.nonzero(src == s)[0].tolist():
            if t + 1 == len(steps):
                best = c + int(costs[t][j]) if best is None else min(best, c + int(costs[t][j]))
            else:
                stack.append((t + 1, int(dst[j]), c + int(costs[t][j])))
    assert int(h[0][0]) == best


@pytest.mark.parametrize("path", ["tracks/tiny_straight.toml", "tracks/4_esquinas.toml",
                                  "tracks/espiral.toml"])
def test_dag_check_agrees_with_the_analysis_and_the_closure_check(path: str) -> None:
    ctx = _ctx(load_track(ROOT / path))
    dag = green_blue_checks.check_green_blue_dag(ctx)
    closure = green_blue_checks.check_green_blue(ctx)
    assert [r.verdict for r in dag] == ["agree", "agree"]
    assert [r.verdict for r in closure] == ["agree", "agree"]
    assert [r.method_value for r in dag] == [r.method_value for r in closure]
    assert all("DAG moves" in r.work and "over the independent search's optimal DAG"
               in r.method for r in dag)


def test_a_wrong_length_or_tie_count_disagrees() -> None:
    ctx = _ctx(parse_track(STRAIGHT.encode()))
    a = ctx.analysis
    assert a is not None and a.representatives is not None
    g = a.representatives.green
    res = green_blue_checks.check_green_blue_dag(
        _with_green(ctx, length=g.length + RadicalSum.parse("sqrt(2)")))
    assert res[0].verdict == "disagree" and "lengths differ" in res[0].reason
    res = green_blue_checks.check_green_blue_dag(_with_green(ctx, ties=g.ties + 1))
    assert res[0].verdict == "disagree" and "tie counts differ" in res[0].reason
    assert res[1].verdict == "agree"


def test_a_dropped_dag_move_disagrees() -> None:
    """Without the first move of one green trajectory, the DAG model counts fewer ties (or
    finds another length): CP-SAT over a wrong DAG is faithful to that DAG."""
    track = parse_track(STRAIGHT.encode())
    dag = _dag(track)
    good = extreme_length(DagLengths(dag), "green", budget=30)
    first = good.representative[1]
    keep = ~((dag.xs[1][dag.edges[0][1]] == first[0]) & (dag.ys[1][dag.edges[0][1]] == first[1]))
    edges = ((dag.edges[0][0][keep], dag.edges[0][1][keep]), *dag.edges[1:])
    bad = extreme_length(DagLengths(dataclasses.replace(dag, edges=edges)), "green", budget=30)
    assert bad.status == "optimal"
    assert (bad.length, bad.ties) != (good.length, good.ties)


def test_a_dag_over_the_size_budget_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(green_blue_checks, "MAX_DAG_MOVES", 3)
    res = green_blue_checks.check_green_blue_dag(_ctx(parse_track(STRAIGHT.encode())))
    assert [r.verdict for r in res] == ["skipped", "skipped"]
    assert all("moves, over the DAG model's size budget of 3 moves" in r.reason for r in res)


def test_a_band_over_its_budget_is_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """espiral's blue has 432 tied trajectories. An oracle that claims more ties than the
    band budget (100 here) gets `skipped` up front; one that claims fewer (50: a
    corruption) has the enumeration run past the budget, and the check says `timeout`,
    never agreement."""
    monkeypatch.setattr(green_blue_checks, "BAND_CAP", 100)
    ctx = _ctx(load_track(ROOT / "tracks/espiral.toml"))
    res = green_blue_checks.check_green_blue_dag(ctx)
    assert [r.verdict for r in res] == ["agree", "skipped"]
    assert "claims 432 tied blue trajectories, over the band budget of 100" in res[1].reason
    a = ctx.analysis
    reps = dataclasses.replace(a.representatives,
                               blue=dataclasses.replace(a.representatives.blue, ties=50))
    lying = dataclasses.replace(ctx, analysis=dataclasses.replace(a, representatives=reps))
    res = green_blue_checks.check_green_blue_dag(lying)
    assert [r.verdict for r in res] == ["agree", "timeout"]
    assert "more than 100 trajectories in the error band" in res[1].reason
    assert res[1].method_value is None


def test_a_search_over_its_state_budget_is_a_timeout() -> None:
    ctx = dataclasses.replace(_ctx(parse_track(STRAIGHT.encode())), max_states=5)
    clear_search_cache()
    try:
        res = green_blue_checks.check_green_blue_dag(ctx)
    finally:
        clear_search_cache()
    assert [r.verdict for r in res] == ["timeout", "timeout"]
    assert all("5" in r.reason for r in res)
