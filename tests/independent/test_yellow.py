"""Yellow by the independent least-length search: analysis, brute force, exactness, budget."""

from __future__ import annotations

import importlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent import radical_forms as rf
from racecert.independent import yellow as yl
from racecert.independent.agreement import compare_yellow
from racecert.independent.extremes import extreme_lengths
from racecert.independent.fastgeom import Moves
from racecert.independent.radical_forms import RadicalLength
from racecert.independent.successors import geometry_classifier
from racecert.independent.yellow import SearchBudget, shortest_arrival
from racecert.model.parse import parse_track
from tests.bruteforce import WorkCapExceeded, can_arrive
from tests.independent.helpers import BUNDLED, analysis_of, brute_yellow, layered_from_oracle
from tests.strategies import small_tracks


def classifier(track):
    """The independent fast geometry when present, else the verify geometry (same answers)."""
    try:
        fast = importlib.import_module("racecert.independent.fastgeom")
    except ImportError:
        return geometry_classifier(track)
    return fast.FastGeometry(track).classify


def room(width: int, rows: list[str], finish_x: int) -> bytes:
    """A walled room: car at (1, 1) facing +x, start x = 1, finish x = finish_x, all rows."""
    grid = "\n".join(["#" * width, *("#" + r + "#" for r in rows), "#" * width])
    n = len(rows)
    return (f'name = "room"\n[car]\nposition = [1, 1]\ndirection = "+x"\n'
            f'[start]\nx = 1\ny = [1, {n}]\ndir = "+x"\n'
            f'[finish]\nx = {finish_x}\ny = [1, {n}]\ndir = "+x"\n'
            f'[map]\nground = """\n{grid}\n"""\n').encode()


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_tracks_agree_with_the_analysis(path):
    """Bounded by the independent green (an arriving trajectory), as certify would run it."""
    a = analysis_of(path)
    green = extreme_lengths(layered_from_oracle(a.bfs.dag)).green.length
    mine = shortest_arrival(a.track, classifier(a.track), upper_bound=green)
    y = a.yellow
    assert compare_yellow(mine, str(y.length), y.moves) == []
    assert mine.accelerations == y.accelerations and mine.positions == y.positions


def test_without_a_bound_the_answer_is_the_same():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "4_esquinas"))
    mine = shortest_arrival(a.track, classifier(a.track))
    assert compare_yellow(mine, str(a.yellow.length), a.yellow.moves) == []


def test_scalar_and_fast_geometry_agree():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "ocho"))
    one = shortest_arrival(a.track, geometry_classifier(a.track))
    two = shortest_arrival(a.track, classifier(a.track))
    assert (one.length, one.moves, one.accelerations) == (two.length, two.moves,
                                                          two.accelerations)


def test_random_tracks_against_brute_force():
    """Least length, then fewest moves, then lex-smallest accelerations, by enumeration."""
    stats: Counter[str] = Counter()

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(small_tracks())
    def check(g):
        try:
            truth = brute_yellow(g.track, depth_cap=10, max_nodes=100_000)
        except WorkCapExceeded:
            stats["skipped"] += 1
            return
        mine = shortest_arrival(g.track, geometry_classifier(g.track), max_states=200_000)
        if truth is None:
            if can_arrive(g.track):
                stats["skipped"] += 1
                return
            assert not mine.reachable
            stats["unreachable"] += 1
            return
        length, moves, accs = truth
        assert mine.reachable and mine.length.same_as(str(length))
        assert (mine.moves, mine.accelerations) == (moves, accs)
        stats["arrives"] += 1

    check()
    assert stats["arrives"] >= 6 and stats["arrives"] + stats["unreachable"] >= 28, stats


def test_unreachable_finish():
    """A wall across the room: nothing arrives, the search ends by exhaustion."""
    t = parse_track(room(9, ["...#...", "...#..."], 5), "<room>")
    mine = shortest_arrival(t, geometry_classifier(t))
    assert not mine.reachable and mine.length is None and mine.moves is None
    assert compare_yellow(mine, None, None) == []
    assert compare_yellow(mine, "5", 3)


def test_exact_path_alone_gives_the_same_answer(monkeypatch):
    """With the float filter made useless, ties are decided by rows and sympy: same yellow."""
    a = analysis_of(next(p for p in BUNDLED if p.stem == "4_esquinas"))
    monkeypatch.setattr(yl, "UNIT_ROUNDOFF", 1e-4)
    monkeypatch.setattr(rf, "UNIT_ROUNDOFF", 1e-4)
    mine = shortest_arrival(a.track, classifier(a.track))
    assert mine.decided_by_sympy > 0
    assert compare_yellow(mine, str(a.yellow.length), a.yellow.moves) == []
    assert mine.accelerations == a.yellow.accelerations


def test_a_bound_below_yellow_is_refused():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "tiny_spiral_stage"))
    too_small = RadicalLength(((1, 25),))  # yellow is 26 + 6 sqrt(2)
    with pytest.raises(ValueError, match="below every arriving trajectory"):
        shortest_arrival(a.track, classifier(a.track), upper_bound=too_small)


def test_budget_ends_with_a_clear_message():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "4_esquinas"))
    with pytest.raises(SearchBudget, match="more than 100 states"):
        shortest_arrival(a.track, classifier(a.track), max_states=100)


def test_wrong_length_or_moves_are_detected():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "ocho"))
    mine = shortest_arrival(a.track, classifier(a.track))
    y = a.yellow
    assert compare_yellow(mine, str(y.length) + " + 1", y.moves)
    assert compare_yellow(mine, str(y.length), y.moves + 1)


def test_dropped_move_is_detected():
    """A successor function that loses yellow's first move finds another trajectory."""
    a = analysis_of(next(p for p in BUNDLED if p.stem == "ocho"))
    inner = classifier(a.track)
    first = a.yellow.velocities[0]

    def lossy(x, y, vx, vy, layer, progress, phase) -> Moves:
        m = inner(x, y, vx, vy, layer, progress, phase)
        code = np.asarray(m.code).copy()
        start = np.asarray(vx)[m.src] == 0
        code[start & (np.asarray(m.vx) == first[0]) & (np.asarray(m.vy) == first[1])] = 9
        return Moves(m.src, m.accel, code, m.x, m.y, m.vx, m.vy, m.layer, m.progress,
                         m.arrives)

    mine = shortest_arrival(a.track, lossy)
    y = a.yellow
    assert compare_yellow(mine, str(y.length), y.moves) or mine.accelerations != y.accelerations
