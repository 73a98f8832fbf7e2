"""The independent lap figures (`racecert.independent.laps`): kind, the first continuable
arrival and the continuation decider, against hand-worked tracks (docs/continuity.md) and
brute-force searches written with `tests/bruteforce.py`'s moves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent.laps import (
    ContinuationBudgetExceeded,
    Continuations,
    first_continuable,
    reaches_good,
)
from racecert.independent.search import explore
from racecert.model.parse import load_track
from tests.analysis.test_opening_laps import brute_first_continuable
from tests.oracle.test_continuity import brute_continues
from tests.oracle.test_laps import brute_two_laps
from tests.strategies import small_circuits

TRACKS = Path(__file__).resolve().parents[2] / "tracks"

# (file, kind, exact first continuable depth, its trajectory count, editor depth or "-")
HAND_WORKED = [
    ("tiny_circuit_nocont.toml", "circuit", 18, 4, "-"),  # example 1: m* 17, m_cont 18
    ("tiny_circuit_race_vs_editor.toml", "circuit", 22, 72, "-"),  # all optimal continue
    ("limits/opening_outlasts_lap.toml", "circuit", 5, 1, None),  # example 5: editor none
    ("limits/opening_outlasts_lap_min.toml", "circuit", 5, 1, None),
    ("limits/opening_ring_nocont.toml", "circuit", 4, 1, 4),  # example 3: m_cont 4
    ("limits/opening_ring_nocont_min.toml", "circuit", 4, 1, 4),
    ("limits/opening_ring_stage.toml", "stage", None, 0, None),  # example 4
    ("limits/opening_ring_stage_min.toml", "stage", None, 0, None),
    ("tiny_spiral_stage.toml", "stage", None, 0, "-"),
    ("tiny_straight.toml", "stage", None, 0, "-"),
]


@pytest.mark.parametrize(("name", "kind", "depth", "count", "editor"), HAND_WORKED)
def test_hand_worked_tracks(name: str, kind: str, depth: int | None, count: int,
                            editor: int | None | str) -> None:
    track = load_track(TRACKS / name)
    r = first_continuable(track, "exact")
    assert (r.kind, r.depth, r.count) == (kind, depth, count)
    assert r.status == ("arrived" if depth is not None else "none")
    assert track.kind == kind  # the file's own declaration, written by hand
    if editor != "-":
        e = first_continuable(track, "editor")
        assert e.depth == editor and e.status == ("arrived" if editor else "none")


def test_continuations_match_brute_force_per_state() -> None:
    """Every optimal arrival, race rule and editor variant (example 2 is worked by hand
    below)."""
    for name in ("tiny_circuit_nocont.toml", "limits/opening_outlasts_lap.toml",
                 "limits/opening_ring_nocont.toml", "apertura.toml"):
        track = load_track(TRACKS / name)
        res = explore(track)
        d = res.dag
        assert d is not None
        k = track.opening.moves if track.opening else 0
        phase = np.full(len(d.arrive_x), min(d.m_star, k), dtype=np.int64)
        decide = Continuations(track)
        for progress in (d.arrive_progress, np.zeros_like(d.arrive_progress)):
            got = decide(d.arrive_x, d.arrive_y, d.arrive_vx, d.arrive_vy, d.arrive_layer,
                         progress, phase)
            want = [brute_continues(track, (int(d.arrive_x[i]), int(d.arrive_y[i]),
                                            int(d.arrive_vx[i]), int(d.arrive_vy[i]),
                                            int(d.arrive_layer[i]), int(progress[i])),
                                    int(phase[i])) for i in range(len(phase))]
            assert got.tolist() == want
        assert decide.states > 0


def test_race_rule_and_editor_differ_where_the_docs_say() -> None:
    """docs/continuity.md example 2: 4 final states beyond S continue only by the race
    rule; the 2 between the lines continue both ways."""
    track = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    d = explore(track).dag
    assert d is not None
    phase = np.zeros(len(d.arrive_x), dtype=np.int64)
    decide = Continuations(track)
    race = decide(d.arrive_x, d.arrive_y, d.arrive_vx, d.arrive_vy, d.arrive_layer,
                  d.arrive_progress, phase)
    editor = decide(d.arrive_x, d.arrive_y, d.arrive_vx, d.arrive_vy, d.arrive_layer,
                    np.zeros_like(phase), phase)
    assert race.all()
    xs, ys = d.arrive_x[editor].tolist(), d.arrive_y[editor].tolist()
    assert set(zip(xs, ys, strict=True)) == {(13, 5)}
    assert sum(int(c) for c, ok in zip(d.arrival_counts, editor, strict=True) if ok) == 24


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_circuits())
def test_random_circuits_match_brute_force(gen) -> None:
    """Kind by a brute-force two-lap closure; first continuable depth, both keys, by a
    brute-force layered search whose arrivals are judged by brute-force continuation."""
    track = gen.track
    exact = first_continuable(track, "exact")
    assert exact.kind == ("circuit" if brute_two_laps(track) else "stage")
    assert exact.depth == brute_first_continuable(track, editor=False, horizon=200)
    editor = first_continuable(track, "editor")
    assert editor.depth == brute_first_continuable(track, editor=True, horizon=200)


def test_the_state_budget_stops_with_a_message() -> None:
    track = load_track(TRACKS / "tiny_circuit_nocont.toml")
    r = first_continuable(track, max_states=20)
    assert r.status == "budget" and r.kind is None and "budget of 20" in r.message
    tight = Continuations(track, max_states=3)
    with pytest.raises(ContinuationBudgetExceeded, match="continuation state budget of 3"):
        tight(*(np.array([v]) for v in (19, 1, 0, 0, 0, 0, 0)))  # the car at rest


def test_reaches_good_by_hand() -> None:
    """0 -> 1 -> 2 (good), 3 -> 0, 4 alone, 5 -> 4: 0, 1, 2, 3 reach a good node."""
    good = np.array([False, False, True, False, False, False])
    src = np.array([0, 1, 3, 5])
    dst = np.array([1, 2, 0, 4])
    assert reaches_good(good, src, dst).tolist() == [True, True, True, True, False, False]
    assert not good[0]  # the input is not modified
