"""The layered BFS oracle against an independent brute force (tests/bruteforce.py).

Exact mode must agree with the brute force on every small random track: m*,
the total count, the count per final state, reachability, and even which
states and moves lie on optimal trajectories. Editor mode (the phase-less key)
may disagree only on tracks with an opening rule, and then the brute force
must exhibit why: a state on an optimal trajectory at time t2 that is also
reachable at an earlier time t1 < K, so the key without the phase shadows the
later visit (see docs/rules.md, "The editor's key").
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, event, given, settings

from racecert.model.parse import load_track
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, layered_bfs
from tests.bruteforce import (
    BruteResult,
    WorkCapExceeded,
    can_arrive,
    enumerate_optimal,
    shadow_witnesses,
)
from tests.strategies import GeneratedTrack, small_tracks

DEPTH_CAP = 14
MAX_NODES = 300_000
# 250 random tracks per property (2.5x that under HYPOTHESIS_PROFILE=thorough).
PROPERTY = settings(max_examples=max(250, settings.default.max_examples * 5 // 2),
                    deadline=None, suppress_health_check=[HealthCheck.too_slow])


def finals(r: BfsResult) -> dict[tuple[int, int, int, int, int], int]:
    """The BFS's per-final-state counts as a dict."""
    return dict(r.final_state_list())


def brute(track: Track) -> BruteResult | None:
    """The brute force, or None when it exceeds its work cap."""
    try:
        return enumerate_optimal(track, depth_cap=DEPTH_CAP, max_nodes=MAX_NODES)
    except WorkCapExceeded:
        return None


def dag_states(r: BfsResult, k: int) -> set[tuple[tuple[int, ...], int]]:
    """(state without phase, t) for every optimal-DAG state; checks each phase is min(t, K)."""
    out = set()
    assert r.dag is not None
    for t, layer in enumerate(r.dag.layers):
        for i in range(len(layer)):
            s = layer.state(i)
            assert s.phase == min(t, k), (s, t)
            out.add(((s.x, s.y, s.vx, s.vy, s.layer, s.progress), t))
    return out


def dag_moves(r: BfsResult) -> set[tuple[tuple[int, ...], int, tuple[int, ...]]]:
    """(state at t, t, state at t + 1) for every optimal-DAG edge (phase left out)."""
    assert r.dag is not None

    def row(t: int, i: int) -> tuple[int, ...]:
        s = r.dag.layers[t].state(int(i))
        return (s.x, s.y, s.vx, s.vy, s.layer, s.progress)

    return {(row(t, a), t, row(t + 1, b)) for t, (src, dst) in enumerate(r.dag.edges)
            for a, b in zip(src, dst, strict=True)}


def check_exact(g: GeneratedTrack, b: BruteResult | None, stats: Counter[str]) -> None:
    """Exact-mode BFS == brute force `b` (None: over its work cap) on one track."""
    track = g.track
    if b is None:
        stats["skipped (work cap)"] += 1
        event("skipped: brute force over its work cap")
        return
    r = layered_bfs(track, "exact")
    if b.m_star is None:
        arrives = can_arrive(track)
        assert r.reachable == arrives
        if arrives:  # deeper than the enumeration goes: only m* > cap can be checked
            assert r.m_star is not None and r.m_star > DEPTH_CAP
            stats["deeper than the cap"] += 1
        else:
            assert r.m_star is None and r.optimal_count == 0
            stats["unreachable"] += 1
        return
    stats["reachable"] += 1
    stats[f"m*={b.m_star}"] += 1
    assert r.reachable and r.m_star == b.m_star
    assert r.optimal_count == b.total
    assert finals(r) == b.per_final
    k = track.opening.moves if track.opening else 0
    assert dag_states(r, k) == set(b.optimal_visits)
    assert dag_moves(r) == set(b.optimal_moves)
    if len(b.per_final) > 1:
        stats["several final states"] += 1
    if track.elevated is not None:
        stats["two layers"] += 1
    if track.opening is not None:
        stats["opening rule"] += 1


def check_editor(g: GeneratedTrack, b: BruteResult | None, stats: Counter[str]) -> None:
    """Editor mode equals the brute force `b`, or a shadowing witness explains why not."""
    track = g.track
    if b is None:
        stats["skipped (work cap)"] += 1
        return
    r = layered_bfs(track, "editor")
    if b.m_star is None:
        # every editor trajectory is a real one: it cannot arrive where nothing can
        assert not r.reachable or (r.m_star is not None and r.m_star > DEPTH_CAP)
        return
    if (r.m_star, r.optimal_count, finals(r)) == (b.m_star, b.total, b.per_final):
        stats["agrees"] += 1
        return
    stats["differs"] += 1
    event("editor key differs from the brute force")
    # The editor only loses trajectories: never fewer moves, never more trajectories.
    assert r.m_star is None or r.m_star >= b.m_star
    if r.m_star == b.m_star:
        assert r.optimal_count < b.total
        assert all(c <= b.per_final.get(f, 0) for f, c in finals(r).items())
    assert track.opening is not None, "the editor key can only be wrong with an opening rule"
    witness = next(shadow_witnesses(track, b), None)
    assert witness is not None, "a difference needs a state reachable at t1 < K and at t2 > t1"
    state, t1, t2 = witness
    assert t1 < t2 and t1 < track.opening.moves


def test_exact_bfs_matches_and_editor_bfs_differs_only_by_shadowing() -> None:
    """Hundreds of random small tracks, with and without opening rules: exact mode always
    equals the brute force; editor mode equals it or a shadowing witness explains why not.
    Both modes are checked against one brute force per track (the costly part)."""
    exact: Counter[str] = Counter()
    editor: Counter[str] = Counter()

    @PROPERTY
    @given(small_tracks())
    def prop(g: GeneratedTrack) -> None:
        exact["examples"] += 1
        editor["examples"] += 1
        b = brute(g.track)
        check_exact(g, b, exact)
        check_editor(g, b, editor)

    prop()
    n = exact["examples"]
    print(dict(exact), dict(editor))
    # The generator must exercise what it claims to, and the skips stay rare.
    assert exact["skipped (work cap)"] <= n // 10
    assert exact["reachable"] >= n // 4
    assert exact["unreachable"] >= 1
    assert exact["two layers"] >= 5 and exact["opening rule"] >= 5
    assert exact["several final states"] >= 5
    assert editor["agrees"] >= editor["examples"] // 4


# -- hand-worked tracks with known answers ------------------------------------------------


def test_tiny_straight_by_hand() -> None:
    """tracks/tiny_straight.toml: car at x=1, S at 1.5, F at 6.5, a 1-row corridor.

    Only +x moves are possible (rows 0 and 2 are walls; a zero or negative vx
    either stops, which is invalid, or crosses S the wrong way). Positions
    after speeds 1, 2, 3: 2, 4, 7 — x=7 > 6.5 crosses F on move 3; two moves
    reach at most x=4. Any other 3-move sequence reaches at most 1+1+2 = 4
    or 1+2+2 = 6 < 6.5. So m* = 3, one trajectory, final state (7, 1, 3, 0, 0).
    """
    track = load_track("tracks/tiny_straight.toml")
    for mode in ("exact", "editor"):
        r = layered_bfs(track, mode)
        assert (r.m_star, r.optimal_count, finals(r)) == (3, 1, {(7, 1, 3, 0, 0): 1})
    b = brute(track)
    assert b is not None and (b.m_star, b.total, b.per_final) == (3, 1, {(7, 1, 3, 0, 0): 1})


def test_tiny_opening_shadow_by_hand() -> None:
    """tracks/tiny_opening_shadow.toml: the editor key loses 1 of 5 optimal trajectories.

    Car at (3, 5) facing -y; S is y = 4.5 (x in [0.5, 3.5], crossed upwards),
    F is y = 1.5 at column 2 only; opening: moves 1..3 at speed <= 1. Three
    slow moves rise at most to y = 2, so m* >= 4, and the 5 trajectories of 4
    moves are (positions):
      (3,5) (2,4) (2,3) (2,2) (2,1)    ends v = (0,-1)
      (3,5) (3,4) (2,3) (2,2) (2,1)    ends v = (0,-1)
      (3,5) (3,4) (3,3) (2,2) (2,1)    ends v = (0,-1)
      (3,5) (3,4) (3,3) (3,2) (2,1)    ends v = (-1,-1)
      (3,5) (3,4) (2,4) (2,3) (2,1)    ends v = (0,-2): move 4 is free of the rule
    ((1,3) is a shoulder, so nothing ends there.) The last one passes the state
    (2,3), v = (0,-1), S crossed, at t = 3; the first reaches that same state at
    t = 2 < K = 3, where move 3 is still limited to speed 1. The editor's key
    has no phase, keeps only the t = 2 visit and so never makes the free
    move (0,-2): it counts 4 trajectories and misses the final state (2,1,0,-2).
    """
    track = load_track("tracks/tiny_opening_shadow.toml")
    exact = {(2, 1, 0, -1, 0): 3, (2, 1, -1, -1, 0): 1, (2, 1, 0, -2, 0): 1}
    editor = {(2, 1, 0, -1, 0): 3, (2, 1, -1, -1, 0): 1}
    r = layered_bfs(track, "exact")
    assert (r.m_star, r.optimal_count, finals(r)) == (4, 5, exact)
    e = layered_bfs(track, "editor")
    assert (e.m_star, e.optimal_count, finals(e)) == (4, 4, editor)
    b = brute(track)
    assert b is not None and (b.m_star, b.total, b.per_final) == (4, 5, exact)
    assert list(shadow_witnesses(track, b)) == [((2, 3, 0, -1, 0, 1), 2, 3)]
