"""Envelopes: the interval claim, the bound's safety, pruning changes no result, protection.

Independent truths: the interval claim is checked against an explicit set
recursion (Python-int bitsets) and, for small n, plain enumeration of every
acceleration sequence; true remaining distances come from `tests/bruteforce.py`
(its own move geometry), never from the envelope code.
"""

from __future__ import annotations

import itertools
from collections import deque
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.envelopes import (
    HORIZON,
    EnvelopePruner,
    axis_interval,
    bounded_bfs,
    braking_distance,
    interval_tables,
)
from tests import bruteforce
from tests.strategies import small_tracks

TRACKS = sorted(Path(__file__).resolve().parents[2].glob("tracks/*.toml"))
TEST_HORIZON = 160  # the benchmark checks the full 256 (benchmarks/bench_astar.py)


def reachable_sum_sets(horizon: int) -> list[dict[int, int]]:
    """sets[n][Δ] = bitset of Σ_j (n-j+1)·a_j (offset by n(n+1)/2) by the set recursion
    S_n = S_{n-1} + Δ_n: appending a move adds the new total velocity change."""
    off = horizon * (horizon + 1) // 2
    cur = {0: 1 << off}
    out = [cur]
    for _n in range(1, horizon + 1):
        nxt: dict[int, int] = {}
        for d, bits in cur.items():
            for a in (-1, 0, 1):
                nd = d + a
                shifted = bits << nd if nd >= 0 else bits >> -nd
                nxt[nd] = nxt.get(nd, 0) | shifted
        cur = nxt
        out.append(cur)
    return out


def test_interval_claim_exhaustive() -> None:
    """For every n <= TEST_HORIZON and Δ: the reachable weighted sums are exactly
    the integer interval [lo(n, Δ), hi(n, Δ)] of `axis_interval`."""
    off = TEST_HORIZON * (TEST_HORIZON + 1) // 2
    sets = reachable_sum_sets(TEST_HORIZON)
    checked = 0
    for n, by_delta in enumerate(sets):
        assert set(by_delta) == set(range(-n, n + 1))
        for d, bits in by_delta.items():
            low = (bits & -bits).bit_length() - 1
            high = bits.bit_length() - 1
            assert bits == ((1 << (high - low + 1)) - 1) << low, f"gap at n={n}, Δ={d}"
            assert axis_interval(n, d) == (low - off, high - off)
            checked += 1
    assert checked == sum(2 * n + 1 for n in range(TEST_HORIZON + 1))


def test_interval_claim_by_enumeration() -> None:
    for n in range(8):
        sums: dict[int, set[int]] = {}
        for acc in itertools.product((-1, 0, 1), repeat=n):
            s = sum((n - j) * a for j, a in enumerate(acc))
            sums.setdefault(sum(acc), set()).add(s)
        for d, s in sums.items():
            lo, hi = axis_interval(n, d)
            assert s == set(range(lo, hi + 1))


def test_interval_tables_shape_and_symmetry() -> None:
    lo, hi = interval_tables(HORIZON)
    assert lo.shape == hi.shape == (HORIZON + 1, 2 * HORIZON + 1)
    assert axis_interval(HORIZON, HORIZON) == (HORIZON * (HORIZON + 1) // 2,) * 2
    for n in (1, 17, HORIZON):
        for d in (-n, 0, n // 2, n):
            assert axis_interval(n, d) == tuple(-x for x in reversed(axis_interval(n, -d)))
    with pytest.raises(ValueError):
        axis_interval(3, 4)


def test_braking_distance() -> None:
    """Braking by one per move from speed u: velocities u-1..0, p advances u(u-1)/2,
    the single sequence with n = u, Δ = -u."""
    for u in range(0, 60):
        pos, v = 0, u
        while v > 0:
            v -= 1
            pos += v
        assert braking_distance(u) == pos == u * (u - 1) // 2
        if u:
            assert u * u + axis_interval(u, -u)[0] == pos
    with pytest.raises(ValueError):
        braking_distance(-1)


# -- the bound is safe ---------------------------------------------------------------


def true_remaining(track) -> dict[tuple, int]:
    """Exact moves-to-arrive of every (state, phase) reachable from the initial state,
    by the independent brute-force move (unreachable-to-arrive states are absent)."""
    k = track.opening.moves if track.opening else 0
    s0 = (bruteforce.initial_state(track), 0)
    seen = {s0}
    order = [s0]
    succ: dict[tuple, list[tuple]] = {}
    arrive: set[tuple] = set()
    queue = deque([s0])
    while queue:
        node = queue.popleft()
        s, ph = node
        out = []
        for a in bruteforce.ACCELS:
            o = bruteforce.move(track, s, a, ph < k)
            if o is None:
                continue
            if o.arrives:
                arrive.add(node)
                continue
            nxt = (o.state, min(ph + 1, k))
            out.append(nxt)
            if nxt not in seen:
                seen.add(nxt)
                order.append(nxt)
                queue.append(nxt)
        succ[node] = out
    pred: dict[tuple, list[tuple]] = {}
    for u, vs in succ.items():
        for v in vs:
            pred.setdefault(v, []).append(u)
    dist = {u: 1 for u in arrive}
    queue = deque(arrive)
    while queue:
        v = queue.popleft()
        for u in pred.get(v, []):
            if u not in dist:
                dist[u] = dist[v] + 1
                queue.append(u)
    return dist


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.filter_too_much])
@given(small_tracks())
def test_bound_never_exceeds_true_remaining(gen) -> None:
    track = gen.track
    dist = true_remaining(track)
    if not dist:
        return
    from racecert.model.rules import CarState, StateArrays
    nodes = list(dist)
    states = StateArrays.of([CarState(*s, phase) for s, phase in nodes])
    bound = EnvelopePruner(track).remaining_lower_bound(states)
    for node, b in zip(nodes, bound.tolist(), strict=True):
        assert 1 <= b <= dist[node], (node, b, dist[node], gen.toml)
    # ... and on the optimal DAG: bound <= m* - t
    r = layered_bfs(track, "exact")
    p = EnvelopePruner(track)
    for t, layer in enumerate(r.dag.layers):
        assert (p.remaining_lower_bound(layer) <= r.m_star - t).all()


def test_bound_is_tight_on_straight() -> None:
    t = load_track(TRACKS[0].parent / "tiny_straight.toml")
    r = layered_bfs(t)
    p = EnvelopePruner(t)
    got = [int(p.remaining_lower_bound(layer)[0]) for layer in r.dag.layers]
    assert got == [r.m_star - i for i in range(r.m_star)]


# -- pruning changes no result; protection ------------------------------------------------


def same_result(a, b) -> None:
    assert (a.reachable, a.m_star, a.optimal_count, a.final_counts, a.arrival_counts) == (
        b.reachable, b.m_star, b.optimal_count, b.final_counts, b.arrival_counts)
    for la, lb in zip(a.dag.layers, b.dag.layers, strict=True):
        for fa, fb in zip(la.fields(), lb.fields(), strict=True):
            assert (fa == fb).all()


@pytest.mark.parametrize("path", TRACKS, ids=[p.stem for p in TRACKS])
@pytest.mark.parametrize("mode", ["exact", "editor"])
def test_pruned_bfs_equals_unpruned_on_corpus(path: Path, mode: str) -> None:
    track = load_track(path)
    plain = layered_bfs(track, mode)
    if not plain.reachable:
        pytest.skip("no arrival")
    for slack in (0, 2):
        got, protected, bounded = bounded_bfs(track, mode, plain.m_star + slack)
        assert not protected and bounded is got
        assert got.states_explored <= plain.states_explored
        same_result(got, plain)


def test_pruning_removes_states() -> None:
    """On an open area most states cannot reach the finish in time: pruning must bite."""
    from benchmarks.generate import open_area
    track = parse_track(open_area(40, 20, 30).encode())
    plain = layered_bfs(track)
    got, protected, bounded = bounded_bfs(track, "exact", plain.m_star)
    assert not protected and bounded is got
    same_result(got, plain)
    assert got.states_explored < plain.states_explored // 2


@pytest.mark.parametrize("name", ["tiny_straight", "tiny_circuit_nocont"])
def test_protection_path(name: str) -> None:
    """A bound below m*: the bounded search finds nothing, the caller reruns unbounded."""
    track = load_track(TRACKS[0].parent / f"{name}.toml")
    plain = layered_bfs(track)
    bounded = layered_bfs(track, max_depth=plain.m_star - 1, prune=EnvelopePruner(track))
    assert not bounded.reachable
    assert bounded.bounded  # "not within the bound", whether the depth or the pruner ended it
    run = bounded_bfs(track, "exact", plain.m_star - 1)
    got, protected = run.result, run.protection_rerun
    assert protected
    assert not got.bounded
    same_result(got, plain)
    # the bounded search's own statistics come back too
    assert not run.bounded.reachable and run.bounded.bounded
    assert run.bounded.states_explored == bounded.states_explored
    _, protected, _ = bounded_bfs(track, "exact", plain.m_star)
    assert not protected
    with pytest.raises(ValueError):
        bounded_bfs(track, "exact", 0)
