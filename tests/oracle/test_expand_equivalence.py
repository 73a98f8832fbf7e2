"""The vectorised rules and BFS against the scalar exact reference.

`VectorRaceRules.expand` is checked move by move against `apply_move` on random
states of tracks built to exercise every rule: walls, shoulders, ramps, an
overpass, lines on both layers, an opening rule with `max_speed` and with
`straight`, crossings exactly through cell corners and at the ends of a line's
span, wrong-way crossings and moves crossing both lines. Coverage counters make
sure those cases really occur, so a sampler that stopped reaching them fails.

`layered_bfs` is checked against a plain dictionary BFS over `apply_move`
written here (no shared code with `racecert.oracle`): m*, the exact counts per
final state, the number of states explored, on these tracks and on random small
tracks, in both keys.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from racecert.model.parse import parse_track
from racecert.model.rules import (
    ACCELERATIONS,
    CarState,
    StateArrays,
    VectorRaceRules,
    apply_move,
)
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs

# Ramps at (8, 1) and (5, 3); overpass cells where both grids are drivable and no ramp;
# shoulders in both layers; opening rule with max_speed.
BRIDGE = b'''name = "bridge"
[car]
position = [1, 3]
direction = "+x"
[start]
x = 2
y = [1, 7]
dir = "+x"
[finish]
y = 5
x = [7, 8]
dir = "+y"
[opening]
moves = 2
max_speed = 1
[map]
ground = """
##########
#...:.../#
#........#
#..../:..#
#........#
#.....:..#
#.....##.#
#.....#..#
##########
"""
elevated = """

     ===/
     =   =
     /=  =
    ==  ==
    =====
"""
'''

# Start and finish close together (moves crossing both, in either order, and
# wrong-way crossings); spans that end inside the grid at walls; a straight opening.
TWIN = b'''name = "twin"
[car]
position = [1, 4]
direction = "+x"
[start]
x = 3
y = [2, 7]
dir = "+x"
[finish]
x = 5
y = [3, 6]
dir = "+x"
[opening]
moves = 3
max_speed = 2
straight = true
[map]
ground = """
#############
#..#........#
#.....#.....#
#...:.......#
#...........#
#.......:...#
#...........#
#....#......#
#...#.......#
#############
"""
'''

# Both lines on the elevated layer region, a horizontal start crossed downwards.
UPPER = b'''name = "upper"
[car]
position = [2, 1]
direction = "+y"
[start]
y = 2
x = [1, 3]
dir = "+y"
[finish]
x = 6
y = [5, 6]
dir = "+x"
layer = 1
[map]
ground = """
###########
#...#.....#
#...#.....#
#...#.....#
#../###...#
#...#.....#
#.../.....#
#.........#
###########
"""
elevated = """




   /===
    =:==
    /===
"""
'''

# A circuit with the finish just before the start: an arriving move may cross the
# start line after the finish line (the next lap's progress, docs/continuity.md).
LOOP = b'''name = "loop"
[car]
position = [4, 2]
direction = "+x"
[start]
x = 5
y = [1, 4]
dir = "+x"
[finish]
x = 3
y = [1, 4]
dir = "+x"
[map]
ground = """
#############
#...........#
#.....:.....#
#...........#
#...........#
#.#########.#
#...........#
#...........#
#############
"""
'''

# Open space with isolated pillars and a ramp: most moves take the fast paths (clearance,
# bounding box) and the rest walk, so an off-by-one in a fast path shows up here. Two
# asphalt cells lie on the grid's edge (moves from them may leave the grid) at both ends of
# one flat row boundary, so a move off the grid must not wrap around to the next row.
FIELD = b'''name = "field"
[car]
position = [1, 8]
direction = "+x"
[start]
x = 2
y = [1, 14]
dir = "+x"
[finish]
x = 21
y = [1, 14]
dir = "+x"
[map]
ground = """
##########################
#........................#
#........................#
#.....#..........:.......#
#.........................
#...........#............#
#..............###.......#
#...:.........../........#
#........................#
#.........#...............
.........................#
#....................#...#
#......#.................#
#........................#
#........................#
##########################
"""
elevated = """






               ===
               =/=
               ===
"""
'''

TRACKS = {"bridge": BRIDGE, "field": FIELD, "loop": LOOP, "twin": TWIN, "upper": UPPER}
# Cases each track must exercise, besides invalid, wrong-way, arriving and corner moves.
REQUIRED = {"bridge": ("layer change",), "field": ("layer change",),
            "loop": ("finish then start",),
            "twin": ("both lines", "span end"),
            "upper": ("layer change", "span end")}


def _track(name: str) -> Track:
    return parse_track(TRACKS[name], name)


def _random_states(track: Track, n: int, rng: random.Random, vmax: int) -> list[CarState]:
    k = track.opening.moves if track.opening else 0
    out: list[CarState] = []
    while len(out) < n:
        x, y = rng.randrange(track.width), rng.randrange(track.height)
        layer = rng.randrange(track.layers)
        if not track.endable(layer, x, y):
            continue
        out.append(CarState(x, y, rng.randint(-vmax, vmax), rng.randint(-vmax, vmax), layer,
                            rng.randint(0, 1), rng.randint(0, k)))
    return out


def _on_span_end(track: Track, s: CarState, accel: tuple[int, int], name: str,
                 t: Fraction) -> tuple[bool, bool]:
    """(crossing point is a cell corner, crossing point is an end of the line's span)."""
    line = track.start if name == "start" else track.finish
    vx, vy = s.vx + accel[0], s.vy + accel[1]
    other = s.y + vy * t if line.axis == "x" else s.x + vx * t
    corner = other.denominator == 2
    end = other in (Fraction(2 * line.lo - 1, 2), Fraction(2 * line.hi + 1, 2))
    return corner, end


@pytest.mark.parametrize("name", sorted(TRACKS))
def test_expand_matches_apply_move(name: str) -> None:
    track = _track(name)
    rules = VectorRaceRules(track)
    rng = random.Random(1234)
    states = _random_states(track, 3000, rng, 9)
    exp = rules.expand(StateArrays.of(states))
    got = Counter((int(exp.src[i]), exp.succ.state(i), False) for i in range(len(exp.src)))
    got.update((int(exp.arrive_src[i]), exp.arrive_state.state(i), True)
               for i in range(len(exp.arrive_src)))
    want: Counter = Counter()
    seen: Counter = Counter()
    for i, s in enumerate(states):
        for a in ACCELERATIONS:
            r = apply_move(track, s, a)
            if not r.valid:
                seen["wrong way" if "wrong way" in r.reason else "invalid"] += 1
                continue
            want[(i, r.state, r.arrives)] += 1
            seen["arrives"] += r.arrives
            seen["both lines"] += len(r.crossings) == 2
            seen["finish then start"] += [n for n, _ in r.crossings] == ["finish", "start"]
            seen["layer change"] += len({lay for _, _, lay in r.touched}) == 2
            for line_name, t in r.crossings:
                corner, end = _on_span_end(track, s, a, line_name, t)
                seen["corner"] += corner
                seen["span end"] += end
    assert got == want
    assert max(got.values()) == 1
    for case in ("invalid", "wrong way", "arrives", "corner", *REQUIRED[name]):
        assert seen[case] > 0, (case, seen)


def _reference_bfs(track: Track, mode: str, max_depth: int
                   ) -> tuple[int | None, dict[tuple[int, ...], int], int]:
    """Plain BFS over `apply_move`: (m*, {final kinematic state: count}, states explored)."""
    k = track.opening.moves if track.opening else 0
    x, y = track.car.position
    start = CarState(x, y, 0, 0, track.car.layer, 0, 0)

    def key(s: CarState) -> tuple[int, ...]:
        full = (s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase)
        return full if mode == "exact" else full[:6]

    visited = {key(start)}
    layer: dict[tuple[int, ...], tuple[CarState, int]] = {key(start): (start, 1)}
    for depth in range(max_depth):
        finals: Counter = Counter()
        nxt: dict[tuple[int, ...], tuple[CarState, int]] = {}
        for s, count in layer.values():
            if mode == "editor":
                s = CarState(s.x, s.y, s.vx, s.vy, s.layer, s.progress, min(depth, k))
            for a in ACCELERATIONS:
                r = apply_move(track, s, a)
                if not r.valid:
                    continue
                if r.arrives:
                    finals[r.state.kinematic] += count
                    continue
                kk = key(r.state)
                if kk in visited and kk not in nxt:
                    continue
                old = nxt.get(kk, (r.state, 0))
                nxt[kk] = (old[0], old[1] + count)
        if finals:
            return depth + 1, dict(finals), len(visited)
        if not nxt:
            break
        visited.update(nxt)
        layer = nxt
    return None, {}, len(visited)


def _random_track(rng: random.Random) -> bytes:
    w, h = rng.randint(8, 14), rng.randint(4, 8)
    car_y = rng.randint(1, h - 2)
    rows = []
    for y in range(h):
        row = ""
        for x in range(w):
            edge = x in (0, w - 1) or y in (0, h - 1)
            r = rng.random()
            if edge or (r < 0.12 and (x, y) != (1, car_y)):
                row += "#"
            elif r < 0.2 and (x, y) != (1, car_y):
                row += ":"
            else:
                row += "."
        rows.append(row)
    grid = "\n".join(rows)
    opening = "[opening]\nmoves = 2\nmax_speed = 1\n" if rng.random() < 0.4 else ""
    return f'''name = "random"
[car]
position = [1, {car_y}]
direction = "+x"
[start]
x = 1
y = [1, {h - 2}]
dir = "+x"
[finish]
x = {w - 3}
y = [1, {h - 2}]
dir = "+x"
{opening}[map]
ground = """
{grid}
"""
'''.encode()


def _check_bfs(track: Track, mode: str, max_depth: int = 30) -> None:
    m_star, finals, explored = _reference_bfs(track, mode, max_depth)
    r = layered_bfs(track, mode, max_depth=max_depth)
    assert r.m_star == m_star
    assert r.reachable == (m_star is not None)
    if m_star is None:
        return
    assert dict(r.final_state_list()) == finals
    assert r.optimal_count == sum(finals.values())
    assert r.states_explored == explored
    assert sum(r.arrival_counts) == r.optimal_count
    assert len(r.arrival_counts) == len(r.dag.arrive_src)
    per_final: Counter = Counter()
    for i, c in enumerate(r.arrival_counts):
        per_final[r.dag.final_states.state(int(r.dag.arrive_final[i])).kinematic] += c
    assert dict(per_final) == finals


@pytest.mark.parametrize("mode", ["exact", "editor"])
@pytest.mark.parametrize("name", sorted(TRACKS))
def test_bfs_matches_reference(name: str, mode: str) -> None:
    _check_bfs(_track(name), mode)


@pytest.mark.parametrize("seed", range(12))
def test_bfs_matches_reference_on_random_tracks(seed: int) -> None:
    rng = random.Random(seed)
    track = parse_track(_random_track(rng), f"random-{seed}")
    _check_bfs(track, "exact" if seed % 2 else "editor")


def test_bfs_chunk_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny expansion chunks (forward and backward pass) change nothing."""
    import racecert.oracle.backward as backward
    import racecert.oracle.bfs as bfs

    monkeypatch.setattr(bfs, "CHUNK", 3)
    monkeypatch.setattr(backward, "DST_CHUNK", 2)
    for name in ("field", "bridge"):
        _check_bfs(_track(name), "exact")
    _check_bfs(parse_track(_random_track(random.Random(5)), "random-5"), "editor")


@pytest.mark.parametrize("name", sorted(TRACKS))
def test_surface_arrays_match_cell_queries(name: str) -> None:
    track = _track(name)
    sa = track.surface_arrays
    for layer in (0, 1):
        for y in range(track.height):
            for x in range(track.width):
                assert sa.drivable[layer, y, x] == track.drivable(layer, x, y), (layer, x, y)
                assert sa.endable[layer, y, x] == track.endable(layer, x, y), (layer, x, y)
                assert sa.ramp[y, x] == track.is_ramp(x, y), (x, y)


def test_crt_rows_matches_scalar_crt() -> None:
    """The vectorised CRT (both its int64 and its Python-int path) against `crt`."""
    import numpy as np

    from racecert.oracle.counts import crt, crt_rows, primes_below_2_31

    primes = primes_below_2_31(4)
    rng = random.Random(7)
    values = [0, 1, 2**62 - 1, 2**62, 2**63 + 5, math.prod(primes) - 1]
    values += [rng.randrange(2**k) for k in (10, 40, 61, 62, 63, 64, 90, 123) for _ in range(5)]
    for group in (values[:3], values):  # small values only: the int64 path; then mixed
        rows = np.array([[v % p for p in primes] for v in group], dtype=np.int64)
        assert crt_rows(rows, primes) == group
        assert [crt([int(r) for r in row], primes) for row in rows] == group


def test_arrival_counts_in_both_forms() -> None:
    """`crt_counts` and `ExactCounts` (the BFS's per-arrival counts): an int64 array
    where every count fits, Python ints where one does not; either way the same ints,
    gathered (`take`) and summed under a mask exactly (sums past 2^63 included), and the
    module's doctests hold."""
    import doctest

    import numpy as np

    from racecert.oracle import counts
    from racecert.oracle.counts import ExactCounts, crt_counts, primes_below_2_31

    primes = primes_below_2_31(4)
    # 2^63 - 1 and 2^62 + 2^61 need three of the four primes' digits but still fit an
    # int64; 2^63 needs them and does not
    for group, compact in (([5, 7, 2**40], True), ([5, 2**62 + 2**61, 2**63 - 1], True),
                           ([5, 2**62, 2**63], False), ([5, 2**62, 2**63 + 5], False)):
        rows = np.array([[v % p for p in primes] for v in group], dtype=np.int64)
        c = crt_counts(rows, primes)
        assert c.compact == compact and c == group and list(c) == group
        assert all(type(x) is int for x in c) and len(c) == 3
        idx = np.array([2, 0, 2])
        assert c.take(idx) == [group[2], group[0], group[2]]
        assert c.total() == sum(group) and c.total([True, False, True]) == group[0] + group[2]
    assert ExactCounts(np.array([1, 2])) != (1, 3)
    # an index into the values (the per-arrival counts: their sources'), in both forms
    for values in (np.array([7, 2**62, 0]), (7, 2**80, 0)):
        c = ExactCounts(values, index=np.array([1, 1, 0, 2, 1]))
        big = int(values[1])
        want = [big, big, 7, 0, big]
        assert list(c) == want and c == want and len(c) == 5 and c[3] == 0
        assert c[1:4] == want[1:4] and c.take(np.array([4, 2])) == [big, 7]
        assert c.take(np.array([2, 0])).take(np.array([1])) == [big]
        assert c.total() == 3 * big + 7 and c.total([1, 0, 1, 1, 0]) == big + 7
        with pytest.raises(ValueError, match="a mask of 2 for 5 counts"):
            c.total([True, False])
        with pytest.raises(TypeError, match="needs integer indices, not bool"):
            c.take(np.array([True, False, True, False, True]))
    failures, tries = doctest.testmod(counts)
    assert tries > 0 and failures == 0
