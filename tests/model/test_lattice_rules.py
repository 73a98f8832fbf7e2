"""The lattice profile: hand-worked moves and tracks for each rule, the vectorised expand
against the scalar reference, and the BFS against an independent brute force.

Every expectation in the hand-worked tests is derived in its docstring or comment from
docs/rules.md ("The lattice profile"), not from the engine.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from racecert.model.errors import TrackError
from racecert.model.lattice.geometry import WallIndex, enters_disc, touches
from racecert.model.lattice.rules import LatticeLimitError, LatticeRules, lattice_move
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import parse_track
from racecert.model.rules import CarState, StateArrays
from racecert.oracle.bfs import layered_bfs
from tests import lattice_bruteforce as bf

ROOT = Path(__file__).resolve().parents[2]


def lattice(body: str, bounds: str = "x = [0, 4]\ny = [0, 4]", head: str = "") -> LatticeTrack:
    text = f'rules = "lattice"\nname = "t"\n{head}[bounds]\n{bounds}\n{body}'
    t = parse_track(text.encode(), "t.toml")
    assert isinstance(t, LatticeTrack)
    return t


def at(x: int, y: int, vx: int = 0, vy: int = 0, phase: int = 0) -> CarState:
    return CarState(x, y, vx, vy, 0, 0, phase)


def move(t: LatticeTrack, s: CarState, a: tuple[int, int]):
    return lattice_move(t, s, a)


FAR_FINISH = '[start]\npositions = [[0, 0]]\n[finish]\nfrom = [4, 4]\nto = [4, 3]\n'


# -- moves, by rule ---------------------------------------------------------------------


def test_a_move_through_a_wall_corner_is_invalid() -> None:
    """Wall (2,0)-(2,2): (1,3) -> (3,1) passes exactly through its end (2,2)."""
    t = lattice('[[walls]]\npoints = [[2, 0], [2, 2]]\n' + FAR_FINISH)
    r = move(t, at(1, 3, 1, -1), (1, -1))
    assert not r.valid and "touches the wall" in r.reason
    # (1,3) -> (3,2) crosses x = 2 at y = 5/2, beside the wall's end: valid
    assert move(t, at(1, 3, 1, 0), (1, -1)).valid


def test_touching_the_corner_of_a_polyline_is_invalid() -> None:
    """L-shaped wall (0,2)-(2,2)-(2,0): the diagonal (1,3) -> (3,1) touches its corner."""
    t = lattice('[[walls]]\npoints = [[0, 2], [2, 2], [2, 0]]\n' + FAR_FINISH)
    assert not move(t, at(1, 3, 1, -1), (1, -1)).valid
    assert move(t, at(3, 3), (1, 0)).valid  # (3,3) -> (4,3): far from it


def test_running_along_a_wall_is_invalid_and_stopping_short_is_valid() -> None:
    """Wall (2,1)-(4,1). Along y = 1: 0 -> 3 overlaps it; 0 -> 1 stops short; 0 -> 2 lands
    on its end; along y = 2 the car runs beside it, one unit away."""
    t = lattice('[[walls]]\npoints = [[2, 1], [4, 1]]\n' + FAR_FINISH)
    assert not move(t, at(0, 1, 2, 0), (1, 0)).valid  # (0,1) -> (3,1)
    assert move(t, at(0, 1), (1, 0)).valid  # (0,1) -> (1,1)
    assert not move(t, at(0, 1, 1, 0), (1, 0)).valid  # (0,1) -> (2,1): on its end
    assert move(t, at(0, 2, 3, 0), (1, 0)).valid  # (0,2) -> (4,2)


def test_landing_on_a_wall_is_invalid() -> None:
    t = lattice('[[walls]]\npoints = [[0, 3], [4, 3]]\n' + FAR_FINISH.replace("[4, 3]", "[4, 2]"))
    assert not move(t, at(1, 1, 0, 1), (0, 1)).valid  # (1,1) -> (1,3), on the wall
    assert move(t, at(1, 1, 0, 0), (0, 1)).valid  # (1,1) -> (1,2)


def test_standing_still_is_a_valid_move() -> None:
    """v' = (0, 0): the car stays; the move is valid (a point touching nothing)."""
    t = lattice(FAR_FINISH)
    r = move(t, at(2, 2, 1, -1), (-1, 1))
    assert r.valid and r.state == at(2, 2, 0, 0)


def test_bounds_are_inclusive() -> None:
    t = lattice(FAR_FINISH)
    assert move(t, at(3, 0, 0, 0), (1, 0)).valid  # (4, 0): on the bound
    r = move(t, at(4, 0, 0, 0), (1, 0))
    assert not r.valid and "outside the bounds" in r.reason


def test_circles_forbid_their_inside_and_allow_touching() -> None:
    """Circle r = 3 at (0,0): tangent y = 3 touches (allowed), y = 2 cuts (forbidden),
    (3, 0) lies on the circle (allowed), (2, 2) lies inside (|.|^2 = 8 < 9)."""
    c = (0, 0)
    assert not enters_disc((-4, 3), (4, 3), c, 3)
    assert enters_disc((-4, 2), (4, 2), c, 3)
    assert not enters_disc((3, -2), (3, 0), c, 3)
    assert enters_disc((2, 2), (2, 2), c, 3)
    assert enters_disc((-3, -1), (3, -1), c, 3)  # a chord between points outside
    assert not enters_disc((3, 4), (5, 0), c, 3)  # passes (4, 2): |.|^2 = 20 > 9


# -- tracks, by rule (m* and counts worked by hand) --------------------------------------


def bfs(t: LatticeTrack, starts=None, max_depth=None):
    r = LatticeRules(t)
    init = [r.state_at(p) for p in (starts or [t.start])]
    return layered_bfs(t, "exact", rules=r, initial=init, max_depth=max_depth)  # type: ignore


def test_finish_touched_at_its_endpoint() -> None:
    """Open 5x4 lattice, finish (2,0)-(2,1), start (0,2). One move reaches |v| <= 1, so the
    finish (x = 2) needs 2 moves, the first with vx = 1. From (1,1) [v = (1,-1)]: to (2,0)
    and (2,1) (its ends) and to (3,0), (3,1) (crossing x = 2 at y = 1/2 and y = 1, the
    latter through its end): 4. From (1,2) [v = (1,0)]: only to (2,1), its end: 1. From
    (1,3): nothing. m* = 2, 5 trajectories."""
    t = lattice('[start]\npositions = [[0, 2]]\n[finish]\nfrom = [2, 0]\nto = [2, 1]\n',
                "x = [0, 4]\ny = [0, 3]")
    r = bfs(t)
    assert (r.m_star, r.optimal_count) == (2, 5)
    # final (x, y, vx, vy, layer): (2,1) is reached with v = (1, 0) from (1,1) and with
    # v = (1, -1) from (1,2): two final states
    assert dict(r.final_state_list()) == {(2, 0, 1, -1, 0): 1, (2, 1, 1, 0, 0): 1,
                                          (2, 1, 1, -1, 0): 1, (3, 0, 2, -1, 0): 1,
                                          (3, 1, 2, 0, 0): 1}


U_TURN = ('[[walls]]\npoints = [[0, 1], [3, 1]]\n[start]\npositions = [[0, 0]]\n'
          '[finish]\nfrom = [1, 0]\nto = [1, 1]\ndirection = [-1, 0]\n')


def test_a_u_turn_needs_a_standstill() -> None:
    """Row y = 0 only (y = 1 is a wall, y = -1 outside), x in 0..3; the directed finish
    x = 1 counts from x > 1 to x <= 1. The car starts at x = 0 (ahead), so it must get
    past x = 1 and come back. Positions 0, 1, 2, 2, 1 (v = 1, 1, 0, -1) is the only
    4-move way: after 2 moves x <= 3 needs v >= 1 at the turn, so 3 moves cannot come
    back, and x2 = 3 (v = 2) leaves no stop inside the bounds. m* = 4, one trajectory,
    and its third move stands still."""
    t = lattice(U_TURN, "x = [0, 3]\ny = [0, 1]")
    r = bfs(t)
    assert (r.m_star, r.optimal_count) == (4, 1)
    assert r.dag is not None
    xs = [int(layer.x[0]) for layer in r.dag.layers] + [int(r.dag.arrive_state.x[0])]
    assert xs == [0, 1, 2, 2, 1]


def test_laps_count_net_crossings() -> None:
    """The same U-turn with laps = 1: going past x = 1 is a backward crossing (-1), coming
    back a forward one (back to 0), so a net +1 is impossible on a single row: the BFS
    ends unreachable (the net count never falls below -1, so nothing raises)."""
    t = lattice(U_TURN + "laps = 1\n", "x = [0, 3]\ny = [0, 1]")
    r = bfs(t)
    assert not r.reachable and not r.bounded


def test_the_lap_deficit_raises_instead_of_dropping_states() -> None:
    """With a deficit of 0 the net count may not go below 0: from (1,0), ahead of the
    finish x = 2 (direction -x), the move to (3,0) crosses it backwards (net -1), a state
    the profile cannot encode: an error, never a silently dropped state."""
    t = lattice('[start]\npositions = [[1, 0]]\n[finish]\nfrom = [2, 0]\nto = [2, 4]\n'
                'direction = [-1, 0]\nlaps = 1\n')
    rules = LatticeRules(t, deficit=0)
    with pytest.raises(LatticeLimitError, match="below -0"):
        layered_bfs(t, "exact", rules=rules)  # type: ignore[arg-type]


def test_riddler_published_answer() -> None:
    """The Riddler racetrack (FiveThirtyEight, 6 August 2021): 12 moves is the published
    fastest lap. The 322 optimal trajectories agree with an independent public solver of
    the puzzle (stefperf/racetrack: 322 fastest routes)."""
    t = parse_track((ROOT / "tracks/lattice/riddler.toml").read_bytes())
    r = bfs(t)
    assert r.m_star == 12
    assert r.optimal_count == 322


# -- vectorised expand == scalar reference ----------------------------------------------


def _states(t: LatticeTrack, rng: np.random.Generator, n: int, limit: int) -> list[CarState]:
    """Random states; phases 1..limit (net count above -deficit, so no move raises)."""
    return [CarState(int(rng.integers(0, t.width)), int(rng.integers(0, t.height)),
                     int(rng.integers(-3, 4)), int(rng.integers(-3, 4)), 0, 0,
                     int(rng.integers(min(1, limit), limit + 1)))
            for _ in range(n)]


@pytest.mark.parametrize("path", ["tracks/lattice/riddler.toml"])
def test_expand_matches_lattice_move(path: str) -> None:
    t = parse_track((ROOT / path).read_bytes())
    rules = LatticeRules(t)
    rng = np.random.default_rng(7)
    states = _states(t, rng, 400, rules.phase_limit)
    _compare_expand(t, rules, states)


def _compare_expand(t: LatticeTrack, rules: LatticeRules, states: list[CarState]) -> None:
    exp = rules.expand(StateArrays.of(states))
    got_succ = {(int(i), exp.succ.state(j)) for j, i in enumerate(exp.src)}
    got_arr = {(int(i), exp.arrive_state.state(j).kinematic[:4])
               for j, i in enumerate(exp.arrive_src)}
    want_succ, want_arr = set(), set()
    for i, s in enumerate(states):
        for a in bf.accelerations_of(t):  # the brute force's statement of the track's set
            r = lattice_move(t, s, a, rules.deficit)
            if r.valid and r.arrives:
                want_arr.add((i, r.state.kinematic[:4]))
            elif r.valid:
                want_succ.add((i, r.state))
    assert got_succ == want_succ
    assert got_arr == want_arr


# -- random small polygon tracks: expand and BFS against the brute force ---------------


@st.composite
def polygon_tracks(draw, accelerations: str = "moore") -> LatticeTrack:
    """Small random lattice tracks (walls, a circle, every kind of finish, 1-3 starts)
    with the acceleration set `accelerations` (the default writes no key)."""
    w, h = draw(st.integers(3, 6)), draw(st.integers(3, 6))
    coord = st.tuples(st.integers(-1, w), st.integers(-1, h))
    walls = draw(st.lists(st.lists(coord, min_size=2, max_size=3), max_size=3))
    body = "".join(f"[[walls]]\npoints = {[list(p) for p in line]}\n" for line in walls)
    if draw(st.booleans()):
        body += (f"[[circles]]\ncenter = [{draw(st.integers(0, w - 1))}, "
                 f"{draw(st.integers(0, h - 1))}]\nradius = {draw(st.integers(1, 2))}\n")
    a, b = draw(coord), draw(coord)
    kind = draw(st.sampled_from(["plain", "directed", "laps"]))
    fin = f"[finish]\nfrom = {list(a)}\nto = {list(b)}\n"
    if kind != "plain":
        fin += f"direction = {list(draw(coord))}\n"
        if kind == "laps":
            fin += "laps = 1\n"
    starts = draw(st.lists(st.tuples(st.integers(0, w - 1), st.integers(0, h - 1)),
                           min_size=1, max_size=3, unique=True))
    head = "" if accelerations == "moore" else f'accelerations = "{accelerations}"\n'
    text = (f'rules = "lattice"\nname = "r"\n{head}[bounds]\nx = [0, {w - 1}]\n'
            f"y = [0, {h - 1}]\n{body}[start]\npositions = {[list(p) for p in starts]}\n{fin}")
    try:
        t = parse_track(text.encode(), "random.toml")
    except TrackError:  # an invalid draft (a start on a wall, a parallel direction...)
        assume(False)
        raise
    assert isinstance(t, LatticeTrack)
    return t


PROPERTY = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@PROPERTY
@given(polygon_tracks(), st.integers(0, 2**32 - 1))
def test_expand_matches_lattice_move_on_random_tracks(t: LatticeTrack, seed: int) -> None:
    rules = LatticeRules(t)
    _compare_expand(t, rules, _states(t, np.random.default_rng(seed), 40, rules.phase_limit))


@PROPERTY
@given(polygon_tracks())
def test_bfs_matches_brute_force(t: LatticeTrack) -> None:
    """m*, the count and the per-final counts from every start at once, up to depth 5."""
    _agrees_with_brute_force(t, 5)


def _agrees_with_brute_force(t: LatticeTrack, depth: int):
    """The BFS from every start against the brute force up to `depth`: m*, the count and
    the per-final counts (None when the finish is out of reach, or the brute force's work
    cap is hit: the example is then discarded); the BFS result otherwise."""
    try:
        b = bf.enumerate_optimal(t, list(t.starts), depth)
    except bf.WorkCap:
        assume(False)
        return None
    r = bfs(t, list(t.starts), max_depth=depth)
    kind = "laps" if t.finish.laps else "directed" if t.finish.direction else "plain"
    event(f"{kind} finish, {'reached' if b.m_star else 'not reached'} within {depth}")
    if b.m_star is None:
        assert not r.reachable
        return None
    assert (r.m_star, r.optimal_count) == (b.m_star, b.count)
    assert {k[:4]: c for k, c in r.final_state_list()} == dict(b.finals)
    return r


@PROPERTY
@given(polygon_tracks("von-neumann"), st.integers(0, 2**32 - 1))
def test_von_neumann_expand_matches_lattice_move_on_random_tracks(t: LatticeTrack,
                                                                 seed: int) -> None:
    rules = LatticeRules(t)
    assert len(rules.accelerations) == 5
    _compare_expand(t, rules, _states(t, np.random.default_rng(seed), 40, rules.phase_limit))


@PROPERTY
@given(polygon_tracks("von-neumann"))
def test_von_neumann_bfs_matches_brute_force(t: LatticeTrack) -> None:
    """m*, the count and the per-final counts with the five accelerations, up to depth 6
    (the brute force branches 5 ways); and against the same track with all nine: every
    von Neumann trajectory is a Moore one, so the Moore m* is no larger and, when equal,
    its count is no smaller."""
    depth = 6
    r = _agrees_with_brute_force(t, depth)
    if r is None:
        return
    moore = bfs(dataclasses.replace(t, accelerations="moore"), list(t.starts),
                max_depth=depth)
    assert moore.m_star is not None and moore.m_star <= r.m_star
    if moore.m_star == r.m_star:
        assert moore.optimal_count >= r.optimal_count


CORNER = ('[start]\npositions = [[0, 0]]\n[finish]\nfrom = [1, 1]\nto = [2, 2]\n')


def test_von_neumann_turns_need_a_stop() -> None:
    """A 2x2 lattice, start (0,0), a plain finish that meets the lattice only at (1,1).
    Moore: the diagonal a = (1,1) finishes in one move, the only way (every other first
    move stays on x = 0 or y = 0). Von Neumann: a first move changes one component, to
    (1,0) or (0,1); from (1,0) with v = (1,0) every move but stopping (a = (-1,0)) leaves
    the bounds, and from rest a = (0,1) reaches (1,1). Staying at (0,0) first is one move
    too many. m* = 3, two trajectories, ending with v = (0,1) and v = (1,0)."""
    moore = lattice(CORNER, "x = [0, 1]\ny = [0, 1]")
    r = bfs(moore)
    assert (r.m_star, r.optimal_count) == (1, 1)
    vn = lattice(CORNER, "x = [0, 1]\ny = [0, 1]", head='accelerations = "von-neumann"\n')
    r = bfs(vn)
    assert (r.m_star, r.optimal_count) == (3, 2)
    assert dict(r.final_state_list()) == {(1, 1, 0, 1, 0): 1, (1, 1, 1, 0, 0): 1}
    with pytest.raises(ValueError, match="not in the track's von-neumann set"):
        lattice_move(vn, at(0, 0), (1, 1))
    assert lattice_move(moore, at(0, 0), (1, 1)).arrives


def test_an_unknown_set_built_in_code_is_refused() -> None:
    t = dataclasses.replace(lattice(FAR_FINISH), accelerations="hexagonal")
    with pytest.raises(ValueError, match="known: moore, von-neumann"):
        LatticeRules(t)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_wall_index_matches_every_wall_at_every_scale(seed: int) -> None:
    """Moves of every length (inside the tile reach of each scale, and beyond the largest)
    against random walls on a 300 x 300 lattice: the index gives what testing every wall
    gives."""
    rng = np.random.default_rng(seed)
    walls = [((int(a), int(b)), (int(c), int(d)))
             for a, b, c, d in rng.integers(-5, 305, size=(int(rng.integers(1, 30)), 4))]
    index = WallIndex(tuple(walls), 300, 300)
    n = 400
    px, py = rng.integers(0, 300, n), rng.integers(0, 300, n)
    reach = rng.choice([1, 8, 9, 32, 33, 128, 129, 299], n)
    qx = np.clip(px + rng.integers(-1, 2, n) * rng.integers(0, reach + 1), 0, 299)
    qy = np.clip(py + rng.integers(-1, 2, n) * rng.integers(0, reach + 1), 0, 299)
    got = index.blocked(*(a.astype(np.int64) for a in (px, py, qx, qy)))
    # every wall, less those whose bounding box misses the move's (they cannot touch it)
    boxes = [(min(w0[0], w1[0]), max(w0[0], w1[0]), min(w0[1], w1[1]), max(w0[1], w1[1]),
              w0, w1) for w0, w1 in walls]
    want = [any(touches((a, b), (c, d), w0, w1) for x0, x1, y0, y1, w0, w1 in boxes
                if x0 <= max(a, c) and min(a, c) <= x1 and y0 <= max(b, d) and min(b, d) <= y1)
            for a, b, c, d in zip(*(v.tolist() for v in (px, py, qx, qy)), strict=True)]
    assert got.tolist() == want


def test_brute_force_geometry_agrees_on_the_hand_worked_cases() -> None:
    """The brute force's parametric test and the oracle's orientation test, on the cases
    above and on every pair of short segments of a 4x4 lattice (a small exhaustive sweep)."""
    pts = [(x, y) for x in range(4) for y in range(4)]
    segs = [(p, q) for p in pts for q in pts if abs(p[0] - q[0]) + abs(p[1] - q[1]) <= 3]
    walls = [((1, 1), (2, 2)), ((0, 2), (3, 2)), ((2, 0), (2, 0)), ((1, 3), (3, 1))]
    for p, q in segs:
        for a, b in walls:
            assert touches(p, q, a, b) == bf.meet(p, q, a, b), (p, q, a, b)
        assert enters_disc(p, q, (1, 1), 1) == bf.inside_disc(p, q, (1, 1), 1), (p, q)
