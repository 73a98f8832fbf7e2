"""Lap aptitude: hand-worked tracks, the corpus's declared kinds, and random small tracks
against an independent two-lap search written with `tests/bruteforce.py`'s moves."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from racecert.model.parse import load_track
from racecert.model.topology import exit_cells, lap_precondition
from racecert.oracle.laps import lap_aptitude, two_laps_possible
from tests import bruteforce
from tests.strategies import small_tracks

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def brute_two_laps(track) -> bool:
    """Is S→F→S→F possible from the initial state? Closure over (state, phase, lap)."""
    k = track.opening.moves if track.opening else 0
    s0 = (bruteforce.initial_state(track), 0, 0)
    seen = {s0}
    queue = deque([s0])
    while queue:
        s, ph, lap = queue.popleft()
        for a in bruteforce.ACCELS:
            o = bruteforce.move(track, s, a, ph < k)
            if o is None:
                continue
            nlap = lap
            state = o.state
            if o.arrives:
                if lap == 1:
                    return True
                nlap = 1
                # the arriving move's own S crossing after F counts for the next lap
                state = state[:5] + (next_lap_progress(track, s, a),)
            node = (state, min(ph + 1, k), nlap)
            if node not in seen:
                seen.add(node)
                queue.append(node)
    return False


def next_lap_progress(track, s, a) -> int:
    """1 iff the arriving move crosses S after F (exact crossing parameters)."""
    vx, vy = s[2] + a[0], s[3] + a[1]
    ts = bruteforce.crossing(track.start, s[0], s[1], vx, vy)
    tf = bruteforce.crossing(track.finish, s[0], s[1], vx, vy)
    if ts is None or tf is None or ts <= tf:
        return 0
    # the S crossing must be on S's layer: re-run the move with progress 0 after F
    probe = bruteforce.move(track, s[:5] + (0,), a, False)
    return probe.state[5] if probe is not None else 0


def test_straight_is_a_stage() -> None:
    apt = lap_aptitude(load_track(TRACKS / "tiny_straight.toml"))
    assert (apt.kind, apt.topological, apt.kinematic) == ("stage", False, None)


def test_spiral_is_a_stage_by_topology() -> None:
    """The spiral's finish stub leads back only against F's direction."""
    track = load_track(TRACKS / "tiny_spiral_stage.toml")
    assert exit_cells(track, track.finish) == [(9, 7, 0)]
    assert not lap_precondition(track)
    apt = lap_aptitude(track)
    assert (apt.kind, apt.topological, apt.kinematic) == ("stage", False, None)
    assert two_laps_possible(track)[0] is False  # the kinematic search agrees
    assert brute_two_laps(track) is False


def test_nocont_ring_is_a_circuit() -> None:
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    apt = lap_aptitude(track)
    assert (apt.kind, apt.topological, apt.kinematic) == ("circuit", True, True)
    assert apt.states_explored > 0
    assert brute_two_laps(track)


@pytest.mark.parametrize("path", sorted(TRACKS.glob("tiny_*.toml")), ids=lambda p: p.stem)
def test_declared_kind_matches_computed(path: Path) -> None:
    track = load_track(path)
    assert track.kind is not None
    assert lap_aptitude(track).kind == track.kind


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_tracks())
def test_aptitude_matches_bruteforce(gen) -> None:
    track = gen.track
    apt = lap_aptitude(track)
    truth = brute_two_laps(track)
    assert (apt.kind == "circuit") == truth, gen.toml
    if not apt.topological:
        assert apt.kinematic is None and not truth  # the precondition is a relaxation
    else:
        assert apt.kinematic == truth
