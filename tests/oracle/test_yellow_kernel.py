"""The compiled yellow search (`racecert.oracle.yellow_kernel`, driven by `yellow_search`).

Against an independent method: the independent least-length search
(`racecert.independent.yellow`, written apart from the oracle; tests may import both) on
small random tracks with layers, ramps and opening rules. And its parts: the state table
against a dict, the interned exact forms against `RadicalSum`, every settled state's
distance, moves and exact form against its predecessor path, the bucket order, and
Ctrl-C during a long yellow search.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import serpentine
from racecert.independent.successors import geometry_classifier
from racecert.independent.yellow import SearchBudget, shortest_arrival
from racecert.model.parse import load_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import VectorRaceRules
from racecert.oracle import yellow_kernel as yk
from racecert.oracle import yellow_tables as yt
from racecert.oracle.dijkstra import shortest_trajectory
from racecert.oracle.yellow_search import Search
from tests.interrupting import assert_interrupted, ctrl_c_at
from tests.strategies import small_tracks

ROOT = Path(__file__).resolve().parents[2]


def yellow(track, selection="exact", **kw):
    return shortest_trajectory(track, selection, length_of=RadicalSum.of_vector,
                               zero=RadicalSum.zero(), **kw)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tracks())
def test_the_kernel_matches_the_independent_search(g) -> None:
    """Least length, then fewest moves, then the smallest accelerations: the same
    trajectory as the independent search, pruned or not; the editor's within 1e-6."""
    try:
        ref = shortest_arrival(g.track, geometry_classifier(g.track), max_states=200_000)
    except SearchBudget:
        return
    y = yellow(g.track)
    assert y.reachable == ref.reachable
    if not ref.reachable:
        return
    assert ref.length.same_as(str(y.length))
    assert (y.moves, y.accelerations, y.positions) == (ref.moves, ref.accelerations,
                                                       ref.positions)
    free = yellow(g.track, prune=False)
    assert (free.moves, free.accelerations, free.length) == (y.moves, y.accelerations,
                                                             y.length)
    e = yellow(g.track, "editor")
    assert e.reachable and abs(e.length.to_float() - y.length.to_float()) <= 1e-6


@given(st.lists(st.integers(0, 10**15), max_size=300), st.integers(1, 40))
def test_the_state_index_matches_a_dict(keys: list[int], wh: int) -> None:
    """The per-cell chains (`yellow_tables.state_find`) against a dict, the heads doubled
    and the ids chained again whenever a walk was long, as `Search._grow` does."""
    cap = 8 * max(len(keys), 1) + wh
    head = np.full(wh, -1, dtype=np.int32)
    nxt = np.zeros(max(len(keys), 1), dtype=np.int32)
    skey = np.zeros(max(len(keys), 1), dtype=np.int64)
    cnt = np.zeros(yt.N_COUNTERS, dtype=np.int64)
    cnt[yt.C_HCAP] = cap
    ref: dict[int, int] = {}
    for k in keys:
        assert yt.state_find(head, nxt, skey, k, wh, cnt) == ref.get(k, -1)
        if cnt[yt.C_LONG]:
            cnt[yt.C_LONG] = 0
            head = np.full(2 * len(head), -1, dtype=np.int32)
            yt.state_reindex(head, nxt, skey, len(ref), wh)
        if k not in ref:
            ref[k] = len(ref)
            yt.state_put(head, nxt, skey, k, ref[k], wh)
    assert len(head) <= cap
    assert [yt.state_find(head, nxt, skey, k, wh, cnt) for k in ref] == list(ref.values())


@given(st.lists(st.lists(st.tuples(st.integers(-12, 12), st.integers(-12, 12)), max_size=12),
                min_size=1, max_size=8))
def test_interned_forms_are_exact_lengths(paths: list[list[tuple[int, int]]]) -> None:
    """Each path's interned form is its exact length; equal forms exactly for equal lengths."""
    t = load_track("tracks/tiny_straight.toml")
    s = Search(VectorRaceRules(t).kernel_args(), t, yk.EXACT)
    seen: dict[tuple[int, int], RadicalSum] = {}
    for path in paths:
        moves = [v for v in path if v != (0, 0)]
        form = s.length_of_moves(moves)
        exact = sum((RadicalSum.of_vector(*v) for v in moves), RadicalSum.zero())
        assert s.value(*form) == exact
        for other, value in seen.items():
            assert (other == form) == (value == exact)
        seen[form] = exact


def test_every_settled_state_lies_on_its_predecessor_path() -> None:
    """Distance (float sum), moves and exact form of each settled state, from its path."""
    t = load_track("tracks/espiral.toml")
    s = Search(VectorRaceRules(t).kernel_args(), t, yk.EXACT)
    s.start(VectorRaceRules(t).initial_state())
    s.run(None, "yellow search")
    settled = np.flatnonzero(s.settled[: s.n])
    assert len(settled) == s.states_settled > 1000
    for i in settled[:: max(1, len(settled) // 300)].tolist():
        path = s.path(i)
        vel = [s.velocity(j) for j in path[1:]]
        d = 0.0
        for vx, vy in vel:
            d += math.sqrt(vx * vx + vy * vy)
        assert s.dist[i] == d and s.moves[i] == len(vel)
        assert s.value(int(s.ipart[i]), int(s.irr[i])) == sum(
            (RadicalSum.of_vector(*v) for v in vel), RadicalSum.zero())


@given(st.floats(0, 1e6, allow_nan=False), st.floats(0, 1e6, allow_nan=False))
def test_buckets_follow_the_distance(a: float, b: float) -> None:
    """Bucket 2k or 2k + 1 for a distance in [k, k + 1), in the order of the distances."""
    for d in (a, b):
        assert yk.sub_bucket(d) // 2 == math.floor(d)
    if a <= b:
        assert yk.sub_bucket(a) <= yk.sub_bucket(b)
    assert yk.sub_bucket(a + 1.0) >= yk.sub_bucket(a) + 1


def test_a_budget_stops_the_search_where_it_is_crossed() -> None:
    from racecert.model.budget import StateBudget, StateLimitReached
    t = load_track("tracks/espiral.toml")
    with pytest.raises(StateLimitReached) as info:
        yellow(t, prune=False, budget=StateBudget(500))
    assert 500 < info.value.stored <= 509  # one expansion adds at most 9 states


def test_ctrl_c_stops_the_yellow_kernel(tmp_path: Path) -> None:
    """A long serpentine's yellow search takes seconds (120 plies: about 6 s here), so it
    is still running when the signal lands at its first progress line (shown at once in
    the child: `tests.interrupting`); stopped there, the size costs little."""
    track = tmp_path / "serpentine.toml"
    track.write_text(serpentine(120))
    code, stdout, err = ctrl_c_at(["analyze", str(track)], ("yellow (",), tmp_path)
    assert_interrupted(code, err)
    assert stdout == ""


def test_exact_comparisons_are_answered_by_radical_arithmetic() -> None:
    """The rare request (two lengths of different irrational parts that floats cannot
    order) is answered exactly, and the kernel finds the answer again by its four ids."""
    t = load_track("tracks/tiny_straight.toml")
    s = Search(VectorRaceRules(t).kernel_args(), t, yk.EXACT)
    a = s.length_of_moves([(1, 1), (2, 1)])  # sqrt(2) + sqrt(5)
    b = s.length_of_moves([(1, 2), (3, 0)])  # sqrt(5) + 3
    assert a[1] != b[1]
    s.req[0], s.req[1] = (1, *a, *b), (1, *b, *a)
    s.cnt[yk.C_REQ] = 2
    s._answer()
    less = s.value(*a) < s.value(*b)
    assert s.cnt[yk.C_REQ] == 0 and s.cnt[yk.C_ANS] == 2
    assert yk._answer(s.answers, 2, *a, *b) == int(less)
    assert yk._answer(s.answers, 2, *b, *a) == int(not less)
    assert yk._answer(s.answers, 2, *a, *a) == -1
