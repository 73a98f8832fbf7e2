"""Green and blue by the independent DP: against the analysis, brute force, and corruptions."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent import extremes as ex
from racecert.independent import radical_forms as rf
from racecert.independent.agreement import compare_extreme
from racecert.independent.dag import LayeredDag
from racecert.independent.extremes import extreme_lengths
from racecert.oracle.bfs import layered_bfs
from tests.bruteforce import WorkCapExceeded
from tests.independent.helpers import BUNDLED, analysis_of, brute_extremes, layered_from_oracle
from tests.strategies import small_tracks


def _disagreements(mine, analysis) -> list[str]:
    reps = analysis.representatives
    out = []
    for name, theirs in (("green", reps.green), ("blue", reps.blue)):
        out += compare_extreme(name, getattr(mine, name), str(theirs.length), theirs.ties)
    return out


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_tracks_agree_with_the_analysis(path):
    a = analysis_of(path)
    mine = extreme_lengths(layered_from_oracle(a.bfs.dag))
    assert _disagreements(mine, a) == []
    reps = a.representatives
    assert mine.green.accelerations == reps.green.trajectory.accelerations
    assert mine.blue.accelerations == reps.blue.trajectory.accelerations
    assert mine.green.positions == reps.green.trajectory.positions
    assert mine.blue.positions == reps.blue.trajectory.positions


def test_tiny_straight_by_hand():
    """tracks/tiny_straight.toml: one optimal trajectory, speeds 1, 2, 3: length 6."""
    a = analysis_of(next(p for p in BUNDLED if p.stem == "tiny_straight"))
    mine = extreme_lengths(layered_from_oracle(a.bfs.dag))
    for e in (mine.green, mine.blue):
        assert str(e.length) == "6" and e.ties == 1
        assert e.accelerations == ((1, 0), (1, 0), (1, 0))
        assert e.positions == ((1, 1), (2, 1), (4, 1), (7, 1))


def test_random_tracks_against_brute_force():
    """Small random tracks: the DP over the oracle's DAG equals plain enumeration of every
    optimal trajectory with the analysis's radical arithmetic (lengths, ties, representative)."""
    stats: Counter[str] = Counter()

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(small_tracks())
    def check(g):
        bfs = layered_bfs(g.track, "exact")
        if not bfs.reachable:
            stats["unreachable"] += 1
            return
        try:
            green, blue = brute_extremes(g.track, bfs.m_star)
        except WorkCapExceeded:
            stats["skipped"] += 1
            return
        mine = extreme_lengths(layered_from_oracle(bfs.dag))
        for m, b in ((mine.green, green), (mine.blue, blue)):
            assert m.length.same_as(str(b.length))
            assert m.ties == b.ties
            assert m.accelerations == b.accelerations
        stats["checked"] += 1

    check()
    assert stats["checked"] >= 20, stats


@pytest.mark.parametrize("name", ["4_esquinas", "ocho", "espiral"])
def test_exact_path_alone_gives_the_same_answer(monkeypatch, name):
    """With the float filter made useless every decision is exact (rows, then sympy)."""
    a = analysis_of(next(p for p in BUNDLED if p.stem == name))
    dag = layered_from_oracle(a.bfs.dag)
    monkeypatch.setattr(ex, "UNIT_ROUNDOFF", 1e-3)
    monkeypatch.setattr(rf, "UNIT_ROUNDOFF", 1e-3)
    mine = extreme_lengths(dag)
    assert mine.decided_by_sympy > 0
    assert _disagreements(mine, a) == []


def _green_edge(dag, mine):
    """(layer t, edge index) of a move of the green representative into a state that has
    another incoming move (so dropping it keeps every state reachable)."""
    pos = mine.green.positions
    cur = 0
    for t, (src, dst) in enumerate(dag.edges):
        nxt = pos[t + 1]
        rows = np.nonzero((src == cur) & (dag.xs[t + 1][dst] == nxt[0])
                          & (dag.ys[t + 1][dst] == nxt[1]))[0]
        j = int(rows[0])
        if np.count_nonzero(dst == dst[j]) > 1:
            return t, j
        cur = int(dst[j])
    raise AssertionError("no droppable green move")


def test_dropped_edge_is_detected():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "ocho"))
    dag = layered_from_oracle(a.bfs.dag)
    t, j = _green_edge(dag, extreme_lengths(dag))
    src, dst = dag.edges[t]
    keep = np.arange(len(src)) != j
    edges = dag.edges[:t] + ((src[keep], dst[keep]),) + dag.edges[t + 1:]
    corrupted = extreme_lengths(dataclasses.replace(dag, edges=edges))
    assert _disagreements(corrupted, a)


def test_edge_leaving_a_state_unreachable_is_refused():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "tiny_straight"))
    dag = layered_from_oracle(a.bfs.dag)
    src, dst = dag.edges[0]
    edges = ((src[:0], dst[:0]),) + dag.edges[1:]
    with pytest.raises(ValueError, match="no incoming move"):
        extreme_lengths(dataclasses.replace(dag, edges=edges))


def test_wrong_length_and_wrong_ties_are_detected():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "4_esquinas"))
    mine = extreme_lengths(layered_from_oracle(a.bfs.dag))
    g = a.representatives.green
    assert compare_extreme("green", mine.green, str(g.length), g.ties) == []
    assert compare_extreme("green", mine.green, str(g.length) + " + sqrt(2)", g.ties)
    assert compare_extreme("green", mine.green, str(g.length), g.ties + 1)
    moved = dataclasses.replace(mine.green, ties=mine.green.ties - 1)
    assert compare_extreme("green", moved, str(g.length), g.ties)


def test_moved_arrival_changes_the_length():
    """An arrival one cell short (acceleration 0, not 1) changes the length: detected."""
    a = analysis_of(next(p for p in BUNDLED if p.stem == "tiny_straight"))
    dag = layered_from_oracle(a.bfs.dag)
    corrupted = extreme_lengths(dataclasses.replace(dag, arrive_x=dag.arrive_x - 1))
    assert _disagreements(corrupted, a)


@pytest.mark.parametrize("name", ["4_esquinas", "espiral", "tiny_opening_shadow"])
def test_on_the_independent_search_dag(name):
    """The whole independent chain: the independent search's DAG, viewed by `LayeredDag.of`."""
    search = pytest.importorskip("racecert.independent.search")
    a = analysis_of(next(p for p in BUNDLED if p.stem == name))
    found = search.explore(a.track)
    mine = extreme_lengths(LayeredDag.of(found.dag))
    assert _disagreements(mine, a) == []
    assert mine.green.accelerations == a.representatives.green.trajectory.accelerations
