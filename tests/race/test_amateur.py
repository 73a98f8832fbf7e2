"""The Amateur and its local search: least-length routes against a brute-force
enumeration, the 0.42 draw, the caps."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.model.parse import load_track
from racecert.model.radicals import length_of_moves
from racecert.model.rules import VectorRaceRules
from racecert.model.track import Track
from racecert.race import Amateur, run_race
from racecert.race.local_search import local_search
from tests import bruteforce as bf
from tests.race.race_check import check_race
from tests.strategies import small_tracks

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
WORK_CAP = 100_000


class TooMuch(Exception):
    pass


def _acc_index(a: tuple[int, int]) -> int:
    return (a[1] + 1) * 3 + (a[0] + 1)


def brute_best_routes(track, best: int = 3):
    """Brute force: m* from the start, and the `best` least-length routes of m* moves and
    of m* + 1 moves through states first reached at their own time (the local search's
    layered graph), ordered by (exact length, acceleration indices)."""
    k = track.opening.moves if track.opening else 0
    start = (bf.initial_state(track), 0)
    dist = {start: 0}
    layer, t, m = [start], 0, None
    while layer and m is None:  # first-visit times, up to the first arrival depth m
        nxt = []
        for s, ph in layer:
            for a in bf.ACCELS:
                o = bf.move(track, s, a, ph < k)
                if o is None:
                    continue
                if o.arrives:
                    m = t + 1
                    continue
                node = (o.state, min(ph + 1, k))
                if node not in dist:
                    dist[node] = t + 1
                    nxt.append(node)
        layer, t = nxt, t + 1
        if len(dist) > WORK_CAP:
            raise TooMuch
    if m is None:
        return None, [], []
    for s, ph in layer:  # layer m: the states first reached after m moves
        dist.setdefault((s, ph), m)
    routes: dict[int, list] = {m: [], m + 1: []}
    work = [0]

    def dfs(node, t, accs, positions):
        work[0] += 1
        if work[0] > WORK_CAP:
            raise TooMuch
        s, ph = node
        for a in bf.ACCELS:
            o = bf.move(track, s, a, ph < k)
            if o is None:
                continue
            if o.arrives:
                if t + 1 in routes:
                    routes[t + 1].append((accs + (a,), positions + (o.state[:2],)))
                continue
            nxt = (o.state, min(ph + 1, k))
            if t + 1 <= m and dist.get(nxt) == t + 1:
                dfs(nxt, t + 1, accs + (a,), positions + (o.state[:2],))

    dfs(start, 0, (), (start[0][:2],))

    def ranked(rs):
        def key(r):
            accs, pos = r
            vel = [(pos[i + 1][0] - pos[i][0], pos[i + 1][1] - pos[i][1])
                   for i in range(len(accs))]
            return (length_of_moves(vel), tuple(_acc_index(a) for a in accs))
        return [r[0] for r in sorted(rs, key=key)[:best]]

    return m, ranked(routes[m]), ranked(routes[m + 1])


def check_routes(track) -> None:
    try:
        m, optimal, longer = brute_best_routes(track)
    except TooMuch:
        return
    rules = VectorRaceRules(track)
    got = local_search(rules, rules.initial_state(), cap=10**6, max_depth=40)
    assert got.optimal_moves == m
    assert [r.accelerations for r in got.optimal] == optimal
    assert [r.accelerations for r in got.longer] == longer
    if m is not None:
        assert got.longer_searched


@pytest.mark.parametrize("name", ["tiny_straight", "mini_arcen", "tiny_opening_shadow",
                                  "mini_apertura", "tiny_spiral_stage", "apertura"])
def test_routes_match_bruteforce_on_bundled_tracks(name):
    check_routes(load_track(TRACKS / f"{name}.toml"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_tracks())
def test_routes_match_bruteforce_on_random_tracks(gen):
    check_routes(gen.track)


def test_tiny_straight_routes_by_hand():
    """m* = 3 (speeds 1, 2, 3: x = 2, 4, 7); the only optimal route. One move longer, the
    least lengths are 6 (e.g. speeds 1, 1, 2, 2 to x = 7) ..."""
    t = load_track(TRACKS / "tiny_straight.toml")
    rules = VectorRaceRules(t)
    got = local_search(rules, rules.initial_state(), cap=1000, max_depth=10)
    assert got.optimal_moves == 3
    assert [r.accelerations for r in got.optimal] == [((1, 0), (1, 0), (1, 0))]
    assert [str(r.length) for r in got.longer] == ["6", "6", "6"]
    assert all(len(r.accelerations) == 4 for r in got.longer)


def test_cap_is_respected_and_reported():
    t = load_track(TRACKS / "4_esquinas.toml")  # m* = 20, some 4,800 states
    rules = VectorRaceRules(t)
    for cap in (1, 50, 1000):
        got = local_search(rules, rules.initial_state(), cap=cap, max_depth=100)
        assert got.capped and got.states_expanded <= cap and got.optimal == ()
    full = local_search(rules, rules.initial_state(), cap=60_000, max_depth=100)
    assert not full.capped and full.optimal_moves == 20 and full.states_expanded <= 60_000


class Recording:
    """Wraps a driver and keeps its decisions."""

    def __init__(self, inner):
        self.inner, self.name, self.decisions = inner, inner.name, []

    def __call__(self, view):
        d = self.inner(view)
        self.decisions.append(d)
        return d


def test_retry_then_random_move_when_the_caps_are_too_small():
    t = load_track(TRACKS / "4_esquinas.toml")
    d = Recording(Amateur(cap=300, retry_cap=900))
    r = run_race(t, [d], move_limit=30, seed=4)
    first = d.decisions[0]
    assert 300 < first.states_expanded <= 300 + 900  # both searches ran, within their caps
    assert first.notes[-1].kind == "replan" and "a random usable move" in first.notes[-1].detail
    assert all(x.states_expanded <= 1200 for x in d.decisions)
    c = r.cars[0]
    assert c.states_expanded == sum(x.states_expanded for x in d.decisions)  # the JSON's sum
    assert c.trajectory[1] != c.trajectory[0]
    check_race(t, r.to_json())


def test_retry_finds_what_the_first_cap_missed():
    t = load_track(TRACKS / "4_esquinas.toml")
    r = run_race(t, [Amateur(cap=300, retry_cap=60_000)], seed=4)
    c = r.cars[0]
    assert c.finished and "cap 60000" in c.events[0].detail
    check_race(t, r.to_json())


@cache
def _tiny_straight() -> Track:
    """Loaded once: a Track is immutable, and the frequency test races on it 1,000 times."""
    return load_track(TRACKS / "tiny_straight.toml")


def _lap_moves(seed: int, p: float) -> int:
    return run_race(_tiny_straight(), [Amateur(p_longer=p)], seed=seed).cars[0].moves


def test_longer_route_frequency_matches_p():
    """tiny_straight: an optimal lap is 3 moves and a one-move-longer route always
    exists, so the share of 4-move laps estimates p = 0.42. Over 1,000 seeds the binomial
    standard deviation is 0.0156; the bound is 4.5 of them."""
    n = 1000
    laps = [_lap_moves(seed, 0.42) for seed in range(n)]
    assert set(laps) == {3, 4}
    share = laps.count(4) / n
    assert abs(share - 0.42) <= 4.5 * (0.42 * 0.58 / n) ** 0.5


@pytest.mark.parametrize(("p", "moves"), [(0.0, 3), (1.0, 4)])
def test_probability_extremes(p, moves):
    assert {_lap_moves(seed, p) for seed in range(20)} == {moves}


def test_counters_agree_with_laps():
    t = load_track(TRACKS / "4_esquinas.toml")
    d = Amateur()
    r = run_race(t, [d], laps=3, seed=9)
    check_race(t, r.to_json())
    assert d.plans == sum(1 for e in r.cars[0].events if e.kind == "replan")
    assert 0 <= d.longer_taken <= d.plans


@pytest.mark.parametrize("kwargs", [{"cap": 0}, {"cap": 10, "retry_cap": 5},
                                    {"p_longer": 1.5}, {"choices": 0}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        Amateur(**kwargs)


def test_select_orders_close_lengths_exactly():
    """Floats that cannot tell two lengths apart (here: given equal on purpose) leave the
    order to the exact vectors: 2 + sqrt(5) < 3 sqrt(2); equal vectors are one length,
    ordered by the route's accelerations (predecessor rank, then acceleration)."""
    from racecert.race.local_search import _Radicands, _select

    rad = _Radicands()
    rad.steps(np.array([1, 1, 2]), np.array([0, 1, 1]))  # radicands 1, 2, 5
    assert rad.values == [1, 2, 5]
    coef = np.array([[0, 3, 0],   # 3 sqrt(2) = 4.2426...
                     [2, 0, 1],   # 2 + sqrt(5) = 4.2360...
                     [2, 0, 1],   # the same length by another route
                     [9, 0, 0]])  # 9: far away, floats decide
    length = np.array([4.24, 4.24, 4.24, 9.0])
    group = np.zeros(4, dtype=np.int64)
    prank = np.array([0, 5, 1, 0])
    acc = np.array([4, 4, 7, 0])
    assert _select(group, length, coef, prank, acc, 3, rad).tolist() == [2, 1, 0]
    assert _select(group, length, coef, prank, acc, 4, rad).tolist() == [2, 1, 0, 3]
    # two groups are ordered separately, each keeps its best
    group2 = np.array([1, 0, 1, 0])
    assert _select(group2, length, coef, prank, acc, 1, rad).tolist() == [1, 2]
