"""A* with the envelope heuristic: admissible and consistent on every state of the optimal
DAGs (bundled, generated and random tracks); A* finds m* and a valid trajectory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.model.parse import load_track, parse_track
from racecert.oracle.astar import astar
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.envelopes import EnvelopePruner
from tests import bruteforce
from tests.strategies import small_tracks

TRACKS = sorted((Path(__file__).resolve().parents[2] / "tracks").glob("*.toml"))


def generated():
    from benchmarks.generate import corridor, open_area
    return [parse_track(open_area(40, 20, 30).encode(), "<open>"),
            parse_track(corridor(200, 5).encode(), "<corridor>")]


def check_heuristic_on_dag(track) -> None:
    """h(s) <= m* - t on layer t; h(src) <= 1 + h(dst) on every DAG move; h <= 1 before arrival."""
    r = layered_bfs(track, "exact")
    if not r.reachable:
        return
    p = EnvelopePruner(track)
    hs = [p.remaining_lower_bound(layer) for layer in r.dag.layers]
    for t, h in enumerate(hs):
        assert (h >= 1).all() and (h <= r.m_star - t).all(), t
    for t, (src, dst) in enumerate(r.dag.edges):
        assert (hs[t][src] <= 1 + hs[t + 1][dst]).all(), t
    assert (hs[-1][r.dag.arrive_src] == 1).all()


def check_astar(track) -> None:
    r = layered_bfs(track, "exact")
    a = astar(track)
    assert a.reachable == r.reachable
    if not r.reachable:
        assert a.moves is None and a.trajectory == ()
        return
    assert a.moves == r.m_star
    assert len(a.trajectory) == a.moves + 1
    assert 1 <= a.initial_bound <= a.moves
    # replay with the independent brute-force move: valid, arrives exactly at the end
    k = track.opening.moves if track.opening else 0
    s = bruteforce.initial_state(track)
    assert s[:5] == a.trajectory[0].kinematic
    for t, (u, v) in enumerate(zip(a.trajectory, a.trajectory[1:], strict=False)):
        o = bruteforce.move(track, s, (v.vx - u.vx, v.vy - u.vy), t < k)
        assert o is not None and o.kinematic == v.kinematic
        assert o.arrives == (t == a.moves - 1)
        s = o.state


@pytest.mark.parametrize("path", TRACKS, ids=[p.stem for p in TRACKS])
def test_heuristic_admissible_consistent_on_corpus(path: Path) -> None:
    check_heuristic_on_dag(load_track(path))


def test_heuristic_on_generated_tracks() -> None:
    for track in generated():
        check_heuristic_on_dag(track)
        check_astar(track)


@pytest.mark.parametrize("path", [p for p in TRACKS if p.stem != "llanura"],
                         ids=lambda p: p.stem)
def test_astar_finds_m_star_on_corpus(path: Path) -> None:
    check_astar(load_track(path))


def test_astar_expands_fewer_states_on_open_area() -> None:
    track = generated()[0]
    assert astar(track).states_expanded < layered_bfs(track).states_explored


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_tracks())
def test_astar_and_heuristic_on_random_tracks(gen) -> None:
    check_heuristic_on_dag(gen.track)
    check_astar(gen.track)


def test_heuristic_out_of_domain_is_one() -> None:
    track = load_track(TRACKS[0].parent / "tiny_straight.toml")
    from racecert.model.rules import CarState, StateArrays
    p = EnvelopePruner(track)
    far = StateArrays.of([CarState(1, 1, 50, 0), CarState(-3, 1, 0, 0)])
    assert p.remaining_lower_bound(far).tolist() == [1, 1]
    keep = p(StateArrays.of([CarState(1, 1, 0, 0)]), 1, 1 + p.horizon + 1)
    assert keep.tolist() == [True] and keep.dtype == np.bool_
