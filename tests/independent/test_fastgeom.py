"""The fast integer geometry against the verify geometry (move by move) and, here only, the model.

`racecert.independent.fastgeom` must agree with `racecert.independent.geometry` on the
touched cells of every displacement, and on every move of many states of every
bundled track and of random tracks: validity, the reason class, the next state
and the arrival. The model (`racecert.model.rules.apply_move`) is a third witness.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent import geometry as verify
from racecert.independent.fastgeom import (
    OK,
    OPENING,
    WRONG_WAY,
    FastGeometry,
    footprint,
    touched_cells,
)
from racecert.independent.race_rules import ACCELS
from racecert.independent.search import explore
from racecert.model.geometry import touched_offsets
from racecert.model.parse import load_track
from racecert.model.rules import CarState, apply_move
from racecert.model.track import Track
from tests.independent.geomcompare import compare_with_verify, reachable_states, sample_states
from tests.model.test_rules import F_THEN_S, RAMPS, S_THEN_F
from tests.strategies import TRACKS, GeneratedTrack, small_tracks

BUNDLED = sorted(TRACKS.glob("*.toml"))


def test_worked_examples_of_the_rules() -> None:
    """docs/rules.md §2: (1, 1) through a corner, (2, 1) and (3, 1) with their entry times."""
    assert touched_cells(1, 1) == ((0, 0, 0), (1, 1, Fraction(1, 2)))
    assert touched_cells(2, 1) == ((0, 0, 0), (1, 0, Fraction(1, 4)), (1, 1, Fraction(1, 2)),
                                   (2, 1, Fraction(3, 4)))
    assert touched_cells(3, 1) == ((0, 0, 0), (1, 0, Fraction(1, 6)), (2, 1, Fraction(1, 2)),
                                   (3, 1, Fraction(5, 6)))
    assert touched_cells(0, -3) == tuple((0, -i, Fraction(2 * i - 1, 6) if i else 0)
                                         for i in range(4))


def test_touched_cells_agree_with_verify_and_model_for_every_velocity_up_to_14() -> None:
    """Three methods (corner signs, Liang–Barsky clipping, boundary walk) on 840 displacements."""
    for vx in range(-14, 15):
        for vy in range(-14, 15):
            if (vx, vy) == (0, 0):
                continue
            mine = touched_cells(vx, vy)
            assert mine == verify.touched_cells(vx, vy), (vx, vy)
            assert mine == touched_offsets(vx, vy), (vx, vy)
            dx, dy, num, den = footprint(vx, vy)
            assert np.all(np.diff(num) > 0)  # entry times strictly increase


def _dag_states(track: Track) -> np.ndarray:
    """States of the independent search's optimal DAG (arrivals happen from the last layer)."""
    r = explore(track, "exact")
    if r.dag is None:
        return np.zeros((0, 7), dtype=np.int64)
    rows = [np.stack([s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase], axis=1)
            for s in r.dag.layers]
    out = np.concatenate(rows)
    # at most 3,000, always with the whole last layer (where the arrivals are)
    step = max(1, (len(out) - len(rows[-1])) // 3000 + 1)
    return np.concatenate([np.concatenate(rows[:-1])[::step] if len(rows) > 1 else out[:0],
                           rows[-1]])


def _model_disagreements(track: Track, states: np.ndarray) -> list[str]:
    """fastgeom vs the model's scalar `apply_move` (tests only)."""
    g = FastGeometry(track)
    m = g.classify(*(states[:, j] for j in range(7)))
    # as Python lists once (row r = 9 * state + acceleration), not a numpy scalar per field
    code, arrives = m.code.tolist(), m.arrives.tolist()
    nxt = list(zip(m.x.tolist(), m.y.tolist(), m.vx.tolist(), m.vy.tolist(),
                   m.layer.tolist(), m.progress.tolist(), strict=True))
    out = []
    for i, row in enumerate(states.tolist()):
        s = CarState(*row)
        for a, acc in enumerate(ACCELS):
            r = 9 * i + a
            res = apply_move(track, s, acc)
            theirs = (res.valid, res.state.kinematic + (res.state.progress,) if res.valid else None,
                      res.arrives)
            mine = (code[r] == OK, nxt[r] if code[r] == OK else None, arrives[r])
            if mine != theirs:
                out.append(f"{row} {acc}: fastgeom {mine}, model {theirs}")
    return out


@cache
def _states_of(path: Path) -> np.ndarray:
    """Reachable states (all of them up to 6,000, else an even sample), sampled states
    (any drivable cell, any velocity up to 6) and every optimal-DAG state."""
    track = load_track(str(path))
    return np.concatenate([reachable_states(track, 6_000), sample_states(track, 1500, seed=7),
                           _dag_states(track)])


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_track_agrees_with_verify_and_model(path: Path) -> None:
    """All nine moves of every state of `_states`: fastgeom == verify == model."""
    track = load_track(str(path))
    states = _states_of(path)
    assert compare_with_verify(track, states) == []
    assert _model_disagreements(track, states[::3]) == []  # a third: the model is scalar
    codes = Counter(FastGeometry(track).classify(*(states[:, j] for j in range(7))).code.tolist())
    assert codes[OK] > 100  # the states exercise valid moves, not only rejections


def test_the_samples_cover_layers_wrong_ways_openings_and_arrivals() -> None:
    """Across the bundled tracks the compared moves include every interesting case."""
    seen: Counter[str] = Counter()
    for path in BUNDLED:
        track = load_track(str(path))
        states = _states_of(path)
        m = FastGeometry(track).classify(*(states[:, j] for j in range(7)))
        ok = m.code == OK
        seen["arrival"] += int((ok & m.arrives).sum())
        seen["layer switch"] += int((ok & (m.layer != states[m.src, 4])).sum())
        seen["wrong way"] += int((m.code == WRONG_WAY).sum())
        seen["opening"] += int((m.code == OPENING).sum())
        seen["start crossed"] += int((ok & (m.progress > states[m.src, 5])).sum())
    assert all(seen[k] > 0 for k in ("arrival", "layer switch", "wrong way", "opening",
                                     "start crossed")), seen


def test_a_corrupted_surface_is_caught_by_the_comparison() -> None:
    """Corruption: one drivable cell made off-track in fastgeom only must show up."""
    track = load_track(str(TRACKS / "tiny_straight.toml"))
    g = FastGeometry(track)
    states = np.array([[1, 1, 0, 0, 0, 0, 0], [2, 1, 1, 0, 0, 1, 0]], dtype=np.int64)
    assert compare_with_verify(track, states, g) == []
    g.drive[1 * track.width + 3] = False  # cell (3, 1), layer 0
    g.rebuild()  # the compiled walk's summed-area table follows `drive`
    assert compare_with_verify(track, states, g) != []


def test_bridge_and_line_cases_of_the_rules() -> None:
    """docs/rules.md §3-§4 on the RAMPS bridge: up, down, no jumping off, a bridge over F."""
    g = FastGeometry(RAMPS)
    assert g.move((1, 2, 1, 0, 0, 1, 0), (1, 0))[1] == (3, 2, 2, 0, 1, 1)  # up the ramp
    assert g.move((3, 2, 0, 0, 1, 1, 0), (-1, 1))[0] != OK  # no jumping off the bridge
    assert g.move((4, 2, 1, 0, 1, 1, 0), (1, 0))[1] == (6, 2, 2, 0, 0, 1)  # down again
    assert g.move((2, 2, 1, 0, 0, 1, 0), (1, 0))[2] is False  # over F on the bridge: no arrival
    assert g.move((2, 1, 1, 0, 0, 1, 0), (1, 0))[2] is True  # one row up: arrives


def test_start_and_finish_in_one_move_in_both_orders() -> None:
    """docs/rules.md §5: S then F arrives; F then S with progress 0 only sets progress."""
    assert FastGeometry(S_THEN_F).move((1, 1, 3, 0, 0, 0, 0), (1, 0)) == (
        OK, (5, 1, 4, 0, 0, 0), True)
    g = FastGeometry(F_THEN_S)
    assert g.move((2, 1, 2, 0, 0, 0, 0), (1, 0)) == (OK, (5, 1, 3, 0, 0, 1), False)
    assert g.move((2, 1, 2, 0, 0, 1, 0), (1, 0)) == (OK, (5, 1, 3, 0, 0, 1), True)
    assert g.move((5, 1, -2, 0, 0, 1, 0), (-1, 0))[0] == WRONG_WAY  # back over S


RANDOM = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@RANDOM
@given(small_tracks())
def test_random_tracks_agree_with_verify_and_model(g: GeneratedTrack) -> None:
    """Random tracks (walls, shoulders, bridges, lines, openings): sampled + DAG states."""
    states = np.concatenate([sample_states(g.track, 150, seed=3, vmax=4), _dag_states(g.track)])
    assert compare_with_verify(g.track, states) == []
    assert _model_disagreements(g.track, states) == []
