"""The race engine: occupancy, waits, laps, the move limit, determinism, plugged drivers.

Every race below is also replayed by the independent checker (`race_check.py`,
brute-force rules), so each test checks the race rules twice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, Decision, DriverError, RaceSetupError, run_race
from racecert.race.grid import grid_slots
from tests.race.helpers import Scripted, corridor_track, merge_track
from tests.race.race_check import check_race

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def test_blocked_move_waits_and_is_recorded():
    t = merge_track()
    car0 = Scripted((1, 0), (1, 0))
    car1 = Scripted((1, -1), (1, -1), (1, 1))  # wants (2, 1) on turn 1: car 0 just took it
    r = run_race(t, [car0, car1], move_limit=3)
    check_race(t, r.to_json())
    assert r.cars[0].trajectory[:2] == ((1, 1), (2, 1))
    c1 = r.cars[1]
    assert c1.trajectory[:2] == ((1, 2), (1, 2))  # stayed: the move was blocked
    kinds = [(e.turn, e.kind, e.cell) for e in c1.events]
    assert (1, "blocked", (2, 1)) in kinds and (1, "wait", None) in kinds
    assert c1.states[1] == c1.states[0]  # velocity unchanged by a wait
    # turn 2: car 0 has moved on to (4, 1); car 1 at rest plays (1, -1) into (2, 1)
    assert c1.trajectory[2] == (2, 1)


def test_car_with_no_usable_move_waits_without_being_asked():
    t = corridor_track()
    car0, car1 = Scripted((1, 0), name="behind"), Scripted((1, 0), name="ahead")
    r = run_race(t, [car0, car1], move_limit=2)
    check_race(t, r.to_json())
    e = r.cars[0].events[0]
    assert (e.turn, e.kind, e.cell) == (1, "wait", (2, 1))
    assert "all blocked" in e.detail
    assert car0.calls == 1  # asked on turn 2 only
    assert r.cars[0].trajectory == ((1, 1), (1, 1), (2, 1))


def test_passing_through_an_occupied_cell_is_allowed():
    t = corridor_track()
    # car 1 sits at x = 2; car 0 gets speed 2 from x = 1 only after a wait... so let car 1
    # go first, slowly, and car 0 jump over it: car 0 (1 -> 1 wait -> 2 -> 4) passes x = 3
    car1 = Scripted((1, 0), (-1, 0), name="stop-go")  # 2 -> 3, then (0, 0) is invalid: waits
    car0 = Scripted((1, 0), (1, 0), (1, 0))
    r = run_race(t, [car0, car1], move_limit=4)
    check_race(t, r.to_json())
    assert (3, 1) in r.cars[1].trajectory
    assert r.cars[0].trajectory[3] == (4, 1)  # moved from 2 over the occupied 3


def test_invalid_or_malformed_answers_become_waits():
    t = corridor_track()
    bad = Scripted((0, 0), (0, 1), (2, 0), (True, 0), name="bad")
    r = run_race(t, [bad], move_limit=5)
    check_race(t, r.to_json())
    details = [e.detail for e in r.cars[0].events]
    assert "is invalid: zero velocity" in details[0]
    assert "is invalid: cell (1, 2) not drivable" in details[1]
    assert "not an acceleration" in details[2] and "not an acceleration" in details[3]
    assert r.cars[0].trajectory == ((1, 1),) * 5 + ((1, 1),)
    assert r.status == "move_limit"


def test_move_limit_ends_a_hopeless_race():
    t = corridor_track()
    r = run_race(t, [Scripted(name="sleeper")], move_limit=7)
    assert (r.status, r.turns, r.order) == ("move_limit", 7, ())
    assert not r.cars[0].finished and r.cars[0].waits == 7
    check_race(t, r.to_json())


def test_move_limit_shorter_than_m_star():
    t = load_track(TRACKS / "tiny_straight.toml")  # m* = 3
    r = run_race(t, [Alonso()], move_limit=2)
    assert r.status == "move_limit" and r.cars[0].laps_completed == 0
    check_race(t, r.to_json())


def test_finished_car_leaves_the_track():
    t = corridor_track()
    # car 1 (ahead) finishes; its last cell must not block car 0 afterwards
    r = run_race(t, [Alonso(), Alonso()])
    check_race(t, r.to_json())
    assert r.status == "finished" and r.order == (1, 0)
    assert r.cars[0].moves_per_lap[0] == r.cars[0].moves


def test_same_seed_same_json_and_other_seeds_differ():
    t = load_track(TRACKS / "4_esquinas.toml")

    def race(seed):
        return run_race(t, [Amateur(), Amateur(), Alonso()], laps=2, seed=seed).to_json()

    first = race(5)
    assert race(5) == first
    check_race(t, first)
    assert any(race(s) != first for s in (0, 1, 2))


def test_driver_exception_is_reported_with_car_and_turn():
    def broken(view):
        raise KeyError("boom")

    with pytest.raises(DriverError, match=r"car 0 \(broken\), turn 1: .*KeyError"):
        run_race(corridor_track(), [broken])


def test_user_function_driver_and_decision_notes():
    """A plugged-in driver: a plain function using the view, with its own notes."""

    def greedy(view):
        best = max(view.usable, key=lambda o: (o.result.state.x, -o.result.state.vx))
        return Decision(best.acceleration, states_expanded=1)

    t = load_track(TRACKS / "tiny_straight.toml")
    r = run_race(t, [greedy])
    check_race(t, r.to_json())
    c = r.cars[0]
    assert c.driver == "greedy" and c.finished
    assert c.states_expanded == c.moves  # one per decision, summed by the race


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"laps": 0}, "laps must be at least 1"),
    ({"laps": 2}, "is a stage"),
    ({"seed": -1}, "seed"),
    ({"move_limit": 0}, "move limit"),
])
def test_setup_errors(kwargs, match):
    with pytest.raises(RaceSetupError, match=match):
        run_race(load_track(TRACKS / "tiny_straight.toml"), [Alonso()], **kwargs)


def test_too_many_cars_for_the_grid():
    with pytest.raises(RaceSetupError, match="grid holds 1 car"):
        run_race(load_track(TRACKS / "tiny_straight.toml"), [Alonso(), Alonso()])


def test_grid_listed_then_derived_slots():
    esq = grid_slots(load_track(TRACKS / "4_esquinas.toml"), 4)
    assert [s.position for s in esq] == [(14, 2), (14, 3), (13, 2), (13, 3)]
    assert not any(s.derived for s in esq)
    # ocho: car (3, 20) facing -y; S is y = 19 1/2, F y = 21 1/2 behind the car. The
    # nearest cells without crossing S: the rest of rows 20 and 21, by row then column
    ocho = grid_slots(load_track(TRACKS / "ocho.toml"), 5)
    assert [s.position for s in ocho] == [(3, 20), (2, 20), (4, 20), (2, 21), (3, 21)]
    assert [s.derived for s in ocho] == [False, True, True, True, True]


def test_two_alonsos_contend_for_a_cell():
    """The merge: car 0 takes (2, 1) on turn 1, so car 1 cannot; it re-plans around it and
    is a move slower than from its slot alone."""
    t = merge_track()
    alone = run_race(t, [Scripted(name="parked"), Alonso()], move_limit=12)
    # (car 0 parked at (1, 1) never blocks car 1's fastest line through (2, 1))
    both = run_race(t, [Alonso(), Alonso()])
    check_race(t, both.to_json())
    check_race(t, alone.to_json())
    assert alone.cars[1].trajectory[1] == (2, 1)
    assert both.cars[0].trajectory[1] == (2, 1) and both.cars[1].trajectory[1] != (2, 1)
    assert both.cars[1].moves == alone.cars[1].moves + 1


def test_numpy_integers_and_lists_are_accelerations():
    import numpy as np

    t = load_track(TRACKS / "tiny_straight.toml")
    d = Scripted([1, 0], (np.int64(1), np.int8(0)), Decision((1, 0)), (True, 0))
    r = run_race(t, [d], move_limit=4)
    assert r.cars[0].trajectory == ((1, 1), (2, 1), (4, 1), (7, 1))  # arrived on move 3
    check_race(t, r.to_json())


def test_one_driver_object_for_two_cars_is_refused():
    d = Alonso()
    with pytest.raises(RaceSetupError, match="several cars"):
        run_race(merge_track(), [d, d])

    def plain(view):
        return None

    r = run_race(merge_track(), [plain, plain], move_limit=1)  # a function keeps no state
    assert r.status == "move_limit"
