"""Alonso: alone it drives the analysis' numbers (m*, or m_cont on a circuit with no
optimal continuation; the next laps as an independent brute-force search predicts)."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import pytest

from racecert.analysis.library import eligible_representatives
from racecert.model.parse import load_track
from racecert.race import Alonso, run_race
from racecert.race.context import RaceContext
from racecert.race.engine import default_move_limit
from tests import bruteforce as bf
from tests.race.race_check import _next_lap_progress, check_race

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
BUNDLED = sorted(p.name for p in TRACKS.glob("*.toml"))


@pytest.mark.parametrize("name", BUNDLED)
def test_alone_drives_trai_in_the_library_moves(name):
    t = load_track(TRACKS / name)
    ctx = RaceContext(t, 1, default_move_limit(1))
    r = run_race(t, [Alonso()], context=ctx)
    check_race(t, r.to_json())
    _, moves = eligible_representatives(ctx.analysis)
    a = ctx.analysis
    expected = a.bfs.m_star if a.continuity is None or a.continuity.m_cont is None \
        else a.continuity.m_cont
    assert moves == expected
    c = r.cars[0]
    assert c.moves_per_lap == (expected,)
    assert c.trajectory == ctx.trai.positions  # it followed trai: no search at all
    assert c.events == () and c.states_expanded == 0


_MOVES: dict = {}


def _moves(track, s) -> list:
    """The valid brute-force moves from s (no opening rule left), memoised per track."""
    key = (track.sha256, s)
    got = _MOVES.get(key)
    if got is None:
        got = [o for a in bf.ACCELS if (o := bf.move(track, s, a, False)) is not None]
        _MOVES[key] = got
    return got


def _continues(track, state, memo) -> bool:
    """Brute force: from `state` (no opening rule left) some trajectory arrives again."""
    if state in memo:
        return memo[state]
    seen, queue, found = {state}, deque([state]), False
    while queue and not found:
        s = queue.popleft()
        for o in _moves(track, s):
            if o.arrives:
                found = True
                break
            if o.state not in seen:
                seen.add(o.state)
                queue.append(o.state)
    memo[state] = found
    return found


def _predicted_lap(track, start, memo) -> tuple[int, set]:
    """Brute force, Alonso's rule: the fewest moves from `start` to an arrival from which
    another lap can be driven, and those arrived states; when no arrival at any depth
    continues, the fewest moves to any arrival, and those arrived states."""
    layer, seen, depth = {start}, {start}, 0
    first_any: tuple[int, set] | None = None
    while layer:
        depth += 1
        nxt, good, arrived_here = set(), set(), set()
        for s in layer:
            for o in _moves(track, s):
                if o.arrives:
                    arrived = (*o.state[:5], _next_lap_progress(track, s[0], s[1],
                                                                *o.state[2:4]))
                    arrived_here.add(arrived)
                    if _continues(track, arrived, memo):
                        good.add(arrived)
                elif o.state not in seen:
                    seen.add(o.state)
                    nxt.add(o.state)
        if good:
            return depth, good
        if arrived_here and first_any is None:
            first_any = (depth, arrived_here)
        layer = nxt
    assert first_any is not None, "no arrival at all"
    return first_any


def _check_laps(t, car) -> None:
    memo: dict = {}
    x, y = t.car.position
    state = (x, y, 0, 0, t.car.layer, 0)
    lap_end = 0
    for lap, moves in enumerate(car.moves_per_lap):
        predicted, finals = _predicted_lap(t, state, memo)
        assert moves == predicted, f"lap {lap + 1}"
        lap_end += moves
        s = car.states[lap_end]
        state = (s.x, s.y, s.vx, s.vy, s.layer, s.progress)
        assert state in finals  # an arrival Alonso's rule allows, of that many moves


def test_alone_on_a_circuit_every_lap_as_brute_force_predicts():
    t = load_track(TRACKS / "tiny_circuit_nocont.toml")
    r = run_race(t, [Alonso()], laps=3)
    check_race(t, r.to_json())
    assert r.cars[0].finished and len(r.cars[0].moves_per_lap) == 3
    _check_laps(t, r.cars[0])


def test_a_circuit_with_two_laps_only():
    """docs/continuity.md example 2: after lap 2 (on the lower loop) no further arrival
    exists, so lap 2 takes a plain optimal arrival and a third lap never ends."""
    t = load_track(TRACKS / "tiny_circuit_race_vs_editor.toml")
    r = run_race(t, [Alonso()], laps=3, move_limit=80)
    check_race(t, r.to_json())
    car = r.cars[0]
    assert r.status == "move_limit" and len(car.moves_per_lap) == 2
    _check_laps(t, car)
    end = car.states[sum(car.moves_per_lap)]
    assert not _continues(t, (end.x, end.y, end.vx, end.vy, end.layer, end.progress), {})
    assert all(e.kind == "wait" for e in car.events if e.turn > sum(car.moves_per_lap))


def test_nocont_first_lap_is_m_cont_not_m_star():
    """docs/continuity.md example 1: m* = 17 but no optimal arrival continues, m_cont = 18."""
    t = load_track(TRACKS / "tiny_circuit_nocont.toml")
    r = run_race(t, [Alonso()], laps=2)
    assert r.cars[0].moves_per_lap[0] == 18


def test_replan_from_the_configured_slot_gives_trai():
    """A re-plan from the grid position at rest picks what the library picks."""
    t = load_track(TRACKS / "4_esquinas.toml")
    ctx = RaceContext(t, 1, default_move_limit(1))
    d = Alonso()
    d._tried_trai = True  # skip trai: plan by BFS from the start
    r = run_race(t, [d], context=ctx)
    c = r.cars[0]
    assert c.events[0].kind == "replan" and c.states_expanded > 0
    assert c.trajectory == ctx.trai.positions


def test_several_alonsos_never_share_a_cell_on_narrow_tracks():
    for name, cars, laps in (("tiny_circuit_nocont.toml", 4, 2), ("espiral.toml", 4, 1),
                             ("ocho.toml", 4, 1)):
        t = load_track(TRACKS / name)
        r = run_race(t, [Alonso() for _ in range(cars)], laps=laps)
        check_race(t, r.to_json())  # asserts no move ends on an occupied cell
        assert r.status == "finished", name
