"""Continuity: hand-worked tiny tracks (docs/continuity.md) and random small tracks
against an independent per-final-state search with `tests/bruteforce.py`'s moves."""

from __future__ import annotations

from collections import deque
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.continuity import continuity
from tests import bruteforce
from tests.strategies import small_tracks

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def brute_continues(track, state: tuple, phase: int) -> bool:
    """From (x, y, vx, vy, layer, progress) after `phase` moves: does a later move arrive?"""
    k = track.opening.moves if track.opening else 0
    seen = {(state, phase)}
    queue = deque(seen)
    while queue:
        s, ph = queue.popleft()
        for a in bruteforce.ACCELS:
            o = bruteforce.move(track, s, a, ph < k)
            if o is None:
                continue
            if o.arrives:
                return True
            node = (o.state, min(ph + 1, k))
            if node not in seen:
                seen.add(node)
                queue.append(node)
    return False


def check_against_bruteforce(track, mode: str = "exact") -> None:
    r = layered_bfs(track, mode)
    if not r.reachable:
        return
    c = continuity(track, r)
    arr = r.dag.arrive_state
    for i in range(len(arr)):
        s = arr.state(i)
        race = brute_continues(track, (s.x, s.y, s.vx, s.vy, s.layer, s.progress), s.phase)
        editor = brute_continues(track, (s.x, s.y, s.vx, s.vy, s.layer, 0), s.phase)
        if c.applicable:
            assert c.race[i] == race and c.editor[i] == editor, (i, s)
        else:
            assert not race and not editor
    assert all(r_ or not e for r_, e in zip(c.race, c.editor, strict=True))  # editor ⟹ race
    assert c.continuable_count == sum(n for n, ok in zip(r.arrival_counts, c.race,
                                                         strict=True) if ok)
    assert c.percent == Fraction(c.continuable_count, r.optimal_count)
    assert (c.m_cont is None) == (any(c.race) or not c.applicable)


def test_nocont_circuit() -> None:
    """A fast optimal arrival cannot take the corner after S: m_cont = m* + 1."""
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    r = layered_bfs(track)
    assert (r.m_star, r.optimal_count) == (17, 8)
    c = continuity(track, r)
    assert c.applicable
    assert not any(c.race) and not any(c.editor)
    assert (c.continuable_count, c.continuable_count_editor, c.percent) == (0, 0, Fraction(0))
    assert c.m_cont == 18
    assert c.cont_bfs is not None and c.cont_bfs.m_star == 18
    assert c.cont_bfs.optimal_count == 4
    for i in range(len(c.cont_bfs.dag.arrive_state)):
        s = c.cont_bfs.dag.arrive_state.state(i)
        assert s.vx <= 2  # slow enough for the corner: docs/continuity.md
        assert brute_continues(track, (s.x, s.y, s.vx, s.vy, s.layer, s.progress), s.phase)
    check_against_bruteforce(track)


def test_race_rule_differs_from_editor_certification() -> None:
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    r = layered_bfs(track)
    assert (r.m_star, r.optimal_count) == (22, 72)
    c = continuity(track, r)
    arr = r.dag.arrive_state
    for i in range(len(arr)):
        s = arr.state(i)
        assert c.race[i]  # every optimal arrival continues on the lower loop
        # only arrivals that stopped between F and S still have S ahead of them
        assert c.editor[i] == (s.progress == 0)
    assert (c.continuable_count, c.continuable_count_editor) == (72, 24)
    assert c.percent == 1 and c.m_cont is None and c.cont_bfs is None
    check_against_bruteforce(track)


@pytest.mark.parametrize("name", ["tiny_straight", "tiny_spiral_stage"])
def test_stage_not_applicable(name: str) -> None:
    track = load_track(TRACKS / f"{name}.toml")
    c = continuity(track, layered_bfs(track))
    assert not c.applicable
    assert c.m_cont is None and c.cont_bfs is None
    assert c.continuable_count == 0 and c.percent == 0


def test_unreachable_result_rejected() -> None:
    track = load_track(TRACKS / "tiny_straight.toml")
    r = layered_bfs(track, max_depth=1)
    # an unreachable result's counts are empty counts like any other's
    assert not r.reachable and r.final_counts.total() == 0 and len(r.final_counts) == 0
    with pytest.raises(ValueError):
        continuity(track, r)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_tracks())
def test_matches_bruteforce_on_random_tracks(gen) -> None:
    check_against_bruteforce(gen.track)


@pytest.mark.parametrize("name", ["tiny_circuit_race_vs_editor", "tiny_circuit_nocont",
                                  "4_esquinas", "ocho"])
def test_arrivals_asked_a_chunk_at_a_time_give_the_same_answers(name: str,
                                                                monkeypatch) -> None:
    """Continuity asks the oracle about the arrivals a chunk at a time; with chunks of three
    arrivals it answers and explores exactly as in one call."""
    from racecert.oracle import continuity as module

    track = load_track(TRACKS / f"{name}.toml")
    r = layered_bfs(track)
    whole = continuity(track, r)
    monkeypatch.setattr(module, "CHUNK_ARRIVALS", 3)
    chunked = continuity(track, r)
    assert len(r.dag.arrive_src) > 3
    assert chunked.race.tolist() == whole.race.tolist()
    assert chunked.editor.tolist() == whole.editor.tolist()
    for field in ("applicable", "continuable_count", "continuable_count_editor", "percent",
                  "m_cont", "m_cont_exact", "states_explored"):
        assert getattr(chunked, field) == getattr(whole, field), field
