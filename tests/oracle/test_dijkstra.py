"""Yellow (shortest Euclidean trajectory): hand-worked cases and a brute-force oracle.

The oracle is independent of `racecert.oracle.dijkstra`: it enumerates every
trajectory move count by move count with the scalar reference `apply_move`,
keeping per (moves, full state) the best (exact length, acceleration sequence),
and stops once the move count alone exceeds the best arriving length.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racecert.model.errors import TrackError
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import ACCELERATIONS, CarState, StateArrays, VectorRaceRules, apply_move
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.dijkstra import (
    finish_distance,
    float_error,
    shortest_trajectory,
)
from racecert.oracle.yellow_bound import upper_bound


def yellow(track: Track, selection: str = "exact"):
    return shortest_trajectory(track, selection, length_of=RadicalSum.of_vector,
                               zero=RadicalSum.zero())


def brute_force(track: Track, max_moves: int = 60):
    """(length, moves, accelerations) of the best arriving trajectory, or None."""
    k = track.opening.moves if track.opening else 0
    x, y = track.car.position
    layer: dict[CarState, tuple[RadicalSum, tuple[int, ...]]] = {
        CarState(x, y, 0, 0, track.car.layer, 0, 0): (RadicalSum.zero(), ())}
    best = None
    for t in range(max_moves):
        if best is not None and t + 1 > best[0].to_float() + 1e-9:
            break
        nxt: dict[CarState, tuple[RadicalSum, tuple[int, ...]]] = {}
        for s, (length, seq) in layer.items():
            for i, acc in enumerate(ACCELERATIONS):
                r = apply_move(track, s, acc)
                if not r.valid:
                    continue
                new_len = length + RadicalSum.of_vector(r.state.vx, r.state.vy)
                item = (new_len, seq + (i,))
                if r.arrives:
                    cand = (new_len, t + 1, seq + (i,))
                    if best is None or _better(cand, best):
                        best = cand
                    continue
                key = CarState(*r.state.kinematic, r.state.progress, min(t + 1, k))
                old = nxt.get(key)
                if old is None or new_len < old[0] or (new_len == old[0] and item[1] < old[1]):
                    nxt[key] = item
        layer = nxt
        if not layer:
            break
    if best is None:
        return None
    return best[0], best[1], tuple(ACCELERATIONS[i] for i in best[2])


def _better(a, b) -> bool:
    if a[0] != b[0]:
        return a[0] < b[0]
    return (a[1], a[2]) < (b[1], b[2])


def room(width: int, rows: list[str], car_row: int, finish_x: int, opening: str = "") -> bytes:
    """A walled room with start line x = 1 and finish line x = finish_x across all rows."""
    grid = "\n".join(["#" * width, *("#" + r + "#" for r in rows), "#" * width])
    return f'''name = "room"
[car]
position = [1, {car_row}]
direction = "+x"
[start]
x = 1
y = [1, {len(rows)}]
dir = "+x"
[finish]
x = {finish_x}
y = [1, {len(rows)}]
dir = "+x"
{opening}
[map]
ground = """
{grid}
"""
'''.encode()


# -- hand-worked cases -------------------------------------------------------------------


def test_tiny_straight_is_one_two_three() -> None:
    """Car at x = 1, finish x = 6.5: |v| = 1, 2, 3 reaches x = 7 with length 6 in 3 moves."""
    y = yellow(load_track("tracks/tiny_straight.toml"))
    assert y.reachable and y.certified
    assert y.moves == 3
    assert y.accelerations == ((1, 0), (1, 0), (1, 0))
    assert y.positions == ((1, 1), (2, 1), (4, 1), (7, 1))
    assert str(y.length) == "6" and y.length_float == 6.0


def test_diagonal_detour_is_measured_exactly() -> None:
    """A wall forces a step up and back down: the shortest way costs 2*sqrt(2) extra.

    Row 1: `..#..`, row 2: `.....`; car at (1, 1), finish after x = 4.
    Straight along row 2 after stepping down costs at least sqrt(2) + ... ; the
    brute force confirms the exact minimum and the tie-break.
    """
    t = parse_track(room(8, ["..#...", "......"], 1, 5))
    y = yellow(t)
    ref = brute_force(t)
    assert ref is not None
    assert y.length == ref[0] and y.moves == ref[1] and y.accelerations == ref[2]
    assert "sqrt(2)" in str(y.length)


def test_opening_rule_is_applied_by_phase() -> None:
    """max_speed = 1 for 3 moves: the car must crawl 1, 1, 1 then accelerate."""
    t = parse_track(room(12, ["." * 10], 1, 8, "[opening]\nmoves = 3\nmax_speed = 1"))
    y = yellow(t)
    assert y.velocities[:3] == ((1, 0), (1, 0), (1, 0))
    ref = brute_force(t)
    assert (y.length, y.moves, y.accelerations) == ref


def test_unreachable_finish() -> None:
    t = parse_track(room(9, ["...#...", "...#..."], 1, 5))
    for sel in ("exact", "editor"):
        y = yellow(t, sel)
        assert not y.reachable and y.moves is None and y.length is None


def test_editor_and_exact_agree_on_tiny_tracks() -> None:
    t = parse_track(room(10, [".....:..", "........", "..#....."], 2, 6))
    a, b = yellow(t, "exact"), yellow(t, "editor")
    assert a.length == b.length and a.moves == b.moves
    assert not b.certified and a.certified


def test_bad_selection_is_rejected() -> None:
    with pytest.raises(ValueError, match="selection"):
        yellow(load_track("tracks/tiny_straight.toml"), "fast")


def test_float_error_bound_covers_long_sums() -> None:
    """The certified bound exceeds the actual error of a long float sum of square roots."""
    vel = [(i % 7 + 1, (3 * i) % 5) for i in range(400)]
    f = 0.0
    for vx, vy in vel:
        f += math.sqrt(vx * vx + vy * vy)
    exact = sum((RadicalSum.of_vector(vx, vy) for vx, vy in vel), RadicalSum.zero())
    err = abs(float(exact.to_sympy().evalf(40)) - f)
    assert err <= float_error(f)
    assert float_error(f) < 1e-7


def test_yellow_bounds_the_bfs_minimum() -> None:
    t = parse_track(room(14, ["............", "....##......", "............"], 2, 10))
    y = yellow(t)
    b = layered_bfs(t, "exact")
    assert b.m_star <= y.moves


# -- brute force on random rooms ---------------------------------------------------------


_ROOM_CELL = st.sampled_from("....:#")  # built once: a strategy per cell cost as much again


@st.composite
def rooms(draw):
    width = draw(st.integers(7, 10))
    n_rows = draw(st.integers(1, 2))
    inner = width - 2
    rows = []
    for _ in range(n_rows):
        rows.append("".join(draw(_ROOM_CELL) for _ in range(inner)))
    car_row = draw(st.integers(1, n_rows))
    rows[car_row - 1] = "." + rows[car_row - 1][1:]
    finish_x = draw(st.integers(3, width - 3))
    opening = ""
    if draw(st.booleans()):
        opening = f"[opening]\nmoves = {draw(st.integers(1, 3))}\n"
        if draw(st.booleans()):
            opening += f"max_speed = {draw(st.integers(1, 2))}\n"
        if draw(st.booleans()):
            opening += "straight = true\n"
    return room(width, rows, car_row, finish_x, opening)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_matches_brute_force(data: bytes) -> None:
    try:
        t = parse_track(data)
    except TrackError:
        return  # e.g. an invalid car position: not a track
    y = yellow(t)
    reachable = layered_bfs(t, "exact").reachable
    assert y.reachable == reachable
    if not reachable:
        return
    ref = brute_force(t)
    assert ref is not None
    assert y.length == ref[0]
    assert y.moves == ref[1]
    assert y.accelerations == ref[2]
    e = yellow(t, "editor")
    assert e.length == ref[0] and e.moves == ref[1]


# -- the pruning bound and the id map ------------------------------------------------------


def test_finish_distance_by_hand() -> None:
    """tiny_straight: F is x = 6.5 over row 1. From (1, 1): 5.5 to F, 0.5 beyond: 6."""
    t = load_track("tracks/tiny_straight.toml")
    h = finish_distance(t)
    got = h(StateArrays.of([CarState(1, 1, 0, 0, 0, 0, 0), CarState(7, 1, 0, 0, 0, 0, 0),
                            CarState(4, 4, 0, 0, 0, 0, 0)]))
    # (7, 1) is beyond F: 0.5 back to it, 0.5 beyond; (4, 4): F's segment ends at y = 1.5,
    # so dist = |(4, 4) - (6.5, 1.5)| = sqrt(2.5² + 2.5²)
    want = [6.0, 1.0, math.sqrt(12.5) + 0.5]
    for g, w in zip(got.tolist(), want, strict=True):
        assert w * (1 - 1e-11) <= g <= w


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_finish_distance_is_below_every_remaining_yellow_length(data: bytes) -> None:
    """Before each move of the yellow trajectory, the exact length still to go is >= the
    bound (the final position, after the arriving move, has nothing left to go)."""
    try:
        t = parse_track(data)
    except TrackError:
        return
    y = yellow(t)
    if not y.reachable:
        return
    h = finish_distance(t)
    bounds = h(StateArrays.of([CarState(x, yy, 0, 0, 0, 0, 0) for x, yy in y.positions[:-1]]))
    for i, b in enumerate(bounds.tolist()):
        rest = sum((RadicalSum.of_vector(*v) for v in y.velocities[i:]), RadicalSum.zero())
        assert b <= rest.to_float()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rooms())
def test_pruning_keeps_the_result(data: bytes) -> None:
    try:
        t = parse_track(data)
    except TrackError:
        return
    for sel in ("exact", "editor"):
        a = shortest_trajectory(t, sel, length_of=RadicalSum.of_vector, zero=RadicalSum.zero())
        b = shortest_trajectory(t, sel, length_of=RadicalSum.of_vector, zero=RadicalSum.zero(),
                                prune=False)
        assert (a.reachable, a.moves, a.accelerations, a.length) == (
            b.reachable, b.moves, b.accelerations, b.length)
        assert a.states_settled <= b.states_settled


@pytest.mark.parametrize("sel", ["exact", "editor"])
def test_pruning_on_an_open_area_settles_far_fewer_states(sel: str) -> None:
    """Open 30x30 with a pillar field: the bound prunes, the trajectory is the same."""
    rows = ["." * 28 if r % 4 else "".join("#" if c % 5 == 3 else "." for c in range(28))
            for r in range(28)]
    rows[13] = "." * 28
    t = parse_track(room(30, rows, 14, 24))
    a = shortest_trajectory(t, sel, length_of=RadicalSum.of_vector, zero=RadicalSum.zero())
    b = shortest_trajectory(t, sel, length_of=RadicalSum.of_vector, zero=RadicalSum.zero(),
                            prune=False)
    assert a.reachable and (a.moves, a.accelerations, a.length) == (b.moves, b.accelerations,
                                                                    b.length)
    assert 5 * a.states_settled < b.states_settled


def test_upper_bound_gives_up_over_budget() -> None:
    t = load_track("tracks/espiral.toml")
    rules = VectorRaceRules(t)
    found = upper_bound(rules, t, 10**9)
    u = found.value
    assert math.isfinite(u) and found.moves >= 1 and len(found.velocities) == found.moves
    # the velocities are those of a real trajectory of that float length
    assert u == pytest.approx(sum(math.hypot(*v) for v in found.velocities), rel=1e-12)
    ref = yellow(t)
    assert ref.length_float is not None and u >= ref.length_float - float_error(u)
    assert upper_bound(rules, t, 10).value == math.inf
