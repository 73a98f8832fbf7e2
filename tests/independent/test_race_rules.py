"""The independent side's one home for the race rules (racecert.independent.race_rules).

Hand-worked cases from docs/rules.md §5 and §6, the table successors against the second
geometry move by move, and a twin test: switching the opening rule off in `OpeningRule`
alone makes every user (geometry, table successors, cell relaxation, one-hot CNF, CP-SAT)
behave exactly as on the same track without an opening, which shows they all take the
rule from there.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from racecert.independent import race_rules
from racecert.independent.cpsat import count_solutions, race_model
from racecert.independent.geometry import Geometry, VState
from racecert.independent.movetable import build_move_table
from racecert.independent.onehot import build_onehot_cnf, cell_relaxation
from racecert.independent.race_rules import (
    ACCELS,
    TRANSITIONS,
    OpeningRule,
    initial_state,
    move_outcome,
    table_successors,
)
from racecert.independent.sat import untimed_closure
from racecert.model.parse import load_track, parse_track
from tests.certification.test_geometry_crosscheck import RAMP_TRACK

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


@pytest.mark.parametrize("progress, crossings, expected", [
    # docs/rules.md §5: S at t = 1/8, F at t = 7/8 in one move: it arrives, next lap 0
    (0, (1, 1, 1), (True, 0)),
    # F at t = 1/6, then S at t = 5/6: with progress 0 no arrival, progress 1 ...
    (0, (1, 1, 0), (False, 1)),
    # ... with progress 1 it arrives at F and the S crossing belongs to the next lap
    (1, (1, 1, 0), (True, 1)),
    (1, (1, 1, 1), (True, 0)),
    (0, (0, 1, 0), (False, 0)),  # F with progress 0: neither an arrival nor an error
    (1, (0, 1, 0), (True, 0)),
    (0, (1, 0, 0), (False, 1)),
    (1, (0, 0, 0), (False, 1)),
    (0, (0, 0, 0), (False, 0)),
])
def test_move_outcome_hand_worked(progress: int, crossings: tuple[int, int, int],
                                  expected: tuple[bool, int]) -> None:
    assert move_outcome(progress, *crossings) == expected


def test_transition_table_lists_every_consistent_move_once() -> None:
    keys = [row[:4] for row in TRANSITIONS]
    assert len(keys) == len(set(keys)) == 10
    assert {(p, s, f, sf, a) for p, s, f, sf, a, _ in TRANSITIONS} >= {
        (0, 1, 1, 1, 1), (0, 1, 1, 0, 0), (1, 0, 1, 0, 1), (0, 0, 1, 0, 0)}


def test_opening_rule_by_phase_and_by_move_number() -> None:
    shadow = OpeningRule.of(load_track(TRACKS / "tiny_opening_shadow.toml"))
    assert shadow == OpeningRule(moves=3, max_speed=1, straight_axis=None)
    assert shadow.allows(2, 1, -1) and not shadow.allows(2, 0, -2) and shadow.allows(3, 0, -2)
    assert shadow.allows_move(3, 1, 1) and not shadow.allows_move(3, 2, 0)
    assert shadow.allows_move(4, 0, -2)
    assert [shadow.phase_after(p) for p in range(4)] == [1, 2, 3, 3]
    straight = OpeningRule(moves=2, max_speed=None, straight_axis="x")
    assert straight.zero_axis(0) == "y" and straight.zero_axis(2) is None
    assert straight.allows(1, -3, 0) and not straight.allows(1, 1, 1)  # backwards is fine
    assert straight.speed_cap(0) is None
    assert OpeningRule.of(load_track(TRACKS / "tiny_straight.toml")) == OpeningRule()


@pytest.mark.parametrize("name", ["tiny_opening_shadow.toml", "mini_apertura.toml",
                                  "apertura.toml", "tiny_circuit_race_vs_editor.toml", "RAMP"])
def test_table_successors_match_the_geometry_move_by_move(name: str) -> None:
    """Every state of the untimed closure, every phase it has: the same moves and outcomes."""
    track = parse_track(RAMP_TRACK.encode()) if name == "RAMP" else load_track(TRACKS / name)
    g = Geometry(track)
    vmax = 6
    succ = table_successors(build_move_table(track, vmax), track)
    k = OpeningRule.of(track).moves
    closure = untimed_closure(succ, initial_state(track), k, cap=20_000)
    checked = 0
    for s, phase in sorted(closure):
        x, y, vx, vy, layer, progress = s
        if max(abs(vx), abs(vy)) >= vmax:
            continue  # the table holds speeds up to vmax only
        want = []
        for a in ACCELS:
            v = g.move(VState(x, y, vx, vy, layer, progress, phase), a)
            if v.valid:
                assert v.state is not None
                want.append((v.state.as_tuple()[:6], v.arrives))
        assert sorted(succ(s, phase)) == sorted(want), (s, phase)
        checked += 1
    assert checked >= 8


def _without_opening(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(race_rules.OpeningRule, "active", lambda self, phase: False)


def test_every_user_takes_the_opening_from_opening_rule(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    track = load_track(TRACKS / "tiny_opening_shadow.toml")
    free = dataclasses.replace(track, opening=None)
    table = build_move_table(track, 5)
    s0 = initial_state(track)

    def figures(t):
        succ = table_successors(table, t)
        fast = Geometry(t).move(VState(*s0, 0), (0, -1))
        fast2 = Geometry(t).move(VState(3, 4, 0, -1, 0, 1, 1), (0, -1))
        cnf = build_onehot_cnf(t, table.rows, 3)
        return (succ((3, 4, 0, -1, 0, 1), 1), fast.valid, fast2.valid,
                cell_relaxation(t, table.rows, 4), cnf.nvars, sorted(map(sorted, cnf.clauses)),
                [count_solutions(race_model(t, table, m, "exact")).count for m in (3, 4)])

    restricted, unrestricted = figures(track), figures(free)
    assert restricted != unrestricted
    # docs/rules.md §6: m* = 4 with 5 trajectories; without the opening m* = 3 (6 of them)
    assert restricted[6] == [0, 5] and unrestricted[6] == [6, 5]
    _without_opening(monkeypatch)
    assert figures(track) == unrestricted
