"""Yellow's bounds (racecert.oracle.yellow_bound): the moves lower bound against a 1-D
brute force, the exact finish distance, and the tie cut against the uncut search (which
the brute force of test_dijkstra.py checks on small rooms), with a corruption test; the
states every search drops (`yellow_prune.doomed_one`, `walled_one`) against the exact
rules."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import corridor
from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import (
    ACCELERATIONS,
    CarState,
    StateArrays,
    VectorRaceRules,
    apply_move,
)
from racecert.model.track import Line, Track
from racecert.oracle import dijkstra
from racecert.oracle import yellow_kernel as yk
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.dijkstra import finish_distance, shortest_trajectory
from racecert.oracle.yellow_bound import finish_gap2, moves_to_cross
from racecert.oracle.yellow_search import drivable_prefix, endable_box, finish_ints
from tests.oracle.test_dijkstra import room


def yellow(track: Track, selection: str = "exact", **kw):
    return shortest_trajectory(track, selection, length_of=RadicalSum.of_vector,
                               zero=RadicalSum.zero(), **kw)


def brute_moves_1d(p: int, v: int, k: int, sign: int, horizon: int = 40) -> int | None:
    """Fewest moves of a 1-D car (a in {-1, 0, 1}) from (p, v) to a move crossing the
    boundary k + 1/2 in direction `sign` (from k to k + 1 for +, k + 1 to k for -)."""
    frontier = {(p, v)}
    for n in range(1, horizon + 1):
        nxt = set()
        for q, u in frontier:
            for a in (-1, 0, 1):
                w = u + a
                r = q + w
                if (sign > 0 and q <= k < r) or (sign < 0 and r <= k < q):
                    return n
                nxt.add((r, w))
        frontier = nxt
    return None


@pytest.mark.parametrize("axis", ["x", "y"])
@pytest.mark.parametrize("direction", ["+", "-"])
def test_moves_to_cross_is_the_1d_minimum_or_below(axis: str, direction: str) -> None:
    k = 6
    line = Line(axis, k, 0, 3, f"{direction}{axis}", 0)
    bound = moves_to_cross(SimpleNamespace(finish=line))  # only the finish line is read
    sign = line.sign
    cases = [(p, v) for p in range(-4, 18) for v in range(-5, 6)]
    coords = np.array([c[0] for c in cases], dtype=np.int32)
    vels = np.array([c[1] for c in cases], dtype=np.int32)
    zeros = np.zeros(len(cases), dtype=np.int32)
    states = (StateArrays(coords, zeros, vels, zeros, zeros, zeros, zeros) if axis == "x"
              else StateArrays(zeros, coords, zeros, vels, zeros, zeros, zeros))
    got = bound(states).tolist()
    for (p, v), b in zip(cases, got, strict=True):
        true = brute_moves_1d(p, v, k, sign)
        assert true is not None and 1 <= b <= true, (p, v, b, true)
        if (p <= k) if sign > 0 else (p >= k + 1):  # on the entry side: exact
            assert b == true, (p, v, b, true)


def test_finish_gap2_is_the_exact_finish_distance() -> None:
    t = load_track("tracks/tiny_straight.toml")
    states = StateArrays.of([CarState(1, 1), CarState(7, 1), CarState(4, 4)])
    n = finish_gap2(t)(states).tolist()
    assert n == [11**2, 1, 5**2 + 5**2]  # (2·5.5)², 1², (2·2.5)² + (2·2.5)²
    exact = [(np.sqrt(v) + 1) / 2 for v in n]
    assert all(f <= e for f, e in zip(finish_distance(t)(states).tolist(), exact, strict=True))


def corridor_track(length: int) -> Track:
    """The benchmark corridor: length x 5 cells with walls, end to end."""
    return parse_track(corridor(length, 5).encode())


def test_a_corridor_settles_about_as_many_states_as_its_bfs() -> None:
    """Every straight trajectory landing just past F ties with yellow: without the cut
    the exact search settled 344,324 states here; the layered BFS explores 8,234."""
    t = corridor_track(1000)
    y = yellow(t)
    assert (y.moves, str(y.length)) == (45, "997")
    assert y.states_settled <= layered_bfs(t).states_explored


_ROOM_CELL = st.sampled_from("......:#")  # built once: a strategy per cell cost as much again


@st.composite
def long_rooms(draw):
    """Corridors of 20 to 60 cells, 1 to 3 rows, a few obstacles and rough cells."""
    length = draw(st.integers(20, 60))
    n_rows = draw(st.integers(1, 3))
    rows = []
    for _ in range(n_rows):
        rows.append("".join(draw(_ROOM_CELL) if 2 < i < length - 6 else "."
                            for i in range(length - 2)))
    opening = ""
    if draw(st.booleans()):
        opening = f"[opening]\nmoves = {draw(st.integers(1, 4))}\n"
        if draw(st.booleans()):
            opening += f"max_speed = {draw(st.integers(1, 3))}\n"
    return room(length, rows, draw(st.integers(1, n_rows)), length - draw(st.integers(3, 8)),
                opening)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_rooms())
def test_the_cut_keeps_the_result(data: bytes) -> None:
    """The bound and the tie cut against the search with neither (the brute force of
    test_dijkstra.py vouches for that one on smaller rooms)."""
    try:
        t = parse_track(data)
    except TrackError:
        return
    for sel in ("exact", "editor"):
        a = yellow(t, sel)
        b = yellow(t, sel, prune=False)
        assert (a.reachable, a.moves, a.accelerations, a.length) == (
            b.reachable, b.moves, b.accelerations, b.length)


def test_a_cut_trusting_too_few_moves_changes_the_result(monkeypatch) -> None:
    """Corruption: a bound claiming fewer moves than the tie-break needs cuts the yellow
    trajectory itself; the comparison with the uncut search sees it."""
    t = corridor_track(120)
    honest = yellow(t)
    real = dijkstra.upper_bound

    def lying(*args, **kw):
        found = real(*args, **kw)
        return dataclasses.replace(found, moves=found.moves - 2)

    monkeypatch.setattr(dijkstra, "upper_bound", lying)
    broken = yellow(t)
    assert (broken.moves, broken.accelerations) != (honest.moves, honest.accelerations)


# -- doomed states: dropped by every search mode (`yellow_prune.doomed_one`) ----------------


def _doomed(finish: np.ndarray, box: np.ndarray, s: CarState) -> bool:
    """The kernel's `doomed_one` on the track's `finish_ints` and `endable_box` (made once
    per track)."""
    return bool(yk.doomed_one(finish, box, s.x, s.y, s.vx, s.vy))


def _dies_without_arriving(track: Track, s: CarState, horizon: int) -> bool:
    """True when every move sequence from `s` ends in an invalid move within `horizon`
    moves and none arrives (the exact reference `apply_move`, every acceleration)."""
    frontier = {s}
    for _ in range(horizon):
        nxt = set()
        for u in frontier:
            for acc in ACCELERATIONS:
                r = apply_move(track, u, acc)
                if r.valid:
                    if r.arrives:
                        return False
                    nxt.add(r.state)
        if not nxt:
            return True
        frontier = nxt
    return False


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_rooms())
def test_doomed_states_cannot_arrive(data: bytes) -> None:
    """Every reachable state (fast ones towards the far wall among them) that the kernel
    calls doomed dies within its overrun moves without arriving, by the exact rules.
    (The reachable states are listed layer by layer with the compiled rules' `expand`,
    which tests/oracle/test_expand_equivalence.py holds to `apply_move`; the check itself
    is `apply_move`'s.)"""
    try:
        t = parse_track(data)
    except TrackError:
        return
    rules = VectorRaceRules(t)
    seen = {rules.initial_state()}
    frontier = set(seen)
    while frontier and len(seen) < 4000:
        succ = rules.expand(StateArrays.of(list(frontier))).succ  # arrivals are apart
        rows = zip(*(a.tolist() for a in succ.fields()), strict=True)
        nxt = {CarState(*row) for row in rows} - seen
        seen |= nxt
        frontier = nxt
    box, finish = endable_box(t), finish_ints(t)
    for s in seen:
        if _doomed(finish, box, s):
            k = max(yk.overrun_moves(s.x, s.vx, box[0], box[1]),
                    yk.overrun_moves(s.y, s.vy, box[2], box[3]))
            assert _dies_without_arriving(t, s, k), s


def test_a_car_too_fast_for_the_far_wall_is_doomed_unless_it_can_arrive_first() -> None:
    """tiny_straight (F at x = 6.5, row 1, walls beyond x = 8): at 4 cells a move the car
    on x = 3 must still travel 3 + 2 + 1 = 6 cells past x = 3 before it can turn, but it
    arrives on its next move; on x = 7, past F and heading on, it cannot arrive again."""
    t = load_track("tracks/tiny_straight.toml")
    box = endable_box(t)
    assert yk.overrun_moves(3, 4, box[0], box[1]) >= 1
    finish = finish_ints(t)
    assert not _doomed(finish, box, CarState(3, 1, 4, 0, 0, 1, 0))
    assert _doomed(finish, box, CarState(7, 1, 4, 0, 0, 1, 0))
    assert _dies_without_arriving(t, CarState(7, 1, 4, 0, 0, 1, 0), 4)


def _walled(prefix: tuple[np.ndarray, np.ndarray], s: CarState) -> bool:
    """The kernel's `walled_one` on the track's `drivable_prefix` (made once per track)."""
    rowp, colp = prefix
    return bool(yk.walled_one(rowp, colp, s.x, s.y, s.vx, s.vy))


def _no_valid_move(track: Track, s: CarState) -> bool:
    return not any(apply_move(track, s, acc).valid for acc in ACCELERATIONS)


def _check_walled_states(track: Track, speed: int) -> int:
    """Every state on a cell drivable in its layer, velocities up to `speed`: the kernel's
    `walled_one` only where no move is valid by the exact rules. Returns how many it
    called walled."""
    sa = track.surface_arrays
    prefix = drivable_prefix(track)
    seen = 0
    for layer in range(sa.drivable.shape[0]):
        ys, xs = np.nonzero(sa.drivable[layer])
        for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
            for vx in range(-speed, speed + 1):
                for vy in range(-speed, speed + 1):
                    s = CarState(x, y, vx, vy, layer, 1, 0)
                    if _walled(prefix, s):
                        seen += 1
                        assert _no_valid_move(track, s), s
    return seen


def test_walled_states_have_no_valid_move_on_a_bridge() -> None:
    """ocho: a figure eight whose roads cross on two layers (ramps, an overpass)."""
    assert _check_walled_states(load_track("tracks/ocho.toml"), 4) > 1000


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_rooms())
def test_walled_states_have_no_valid_move(data: bytes) -> None:
    """Rooms with obstacles: every state the kernel calls walled has no valid move."""
    try:
        t = parse_track(data)
    except TrackError:
        return
    _check_walled_states(t, 3)
