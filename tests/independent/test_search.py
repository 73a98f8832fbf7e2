"""The independent search against the BFS oracle (tests may import both sides).

Every figure of `racecert.independent.search.explore` is compared with
`racecert.oracle.bfs.layered_bfs` on every bundled track (both keys where an
opening rule makes them differ), on random small tracks and on small versions
of the generated benchmark tracks: reachability, m*, the exact total, the count
per final state, the states explored, and the optimal DAG itself (its states
per layer, its moves and its arriving moves, as sets). The limb arithmetic is
checked against Python ints, and the budget and depth bounds end cleanly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import corridor, open_area
from racecert.independent.countcheck import check_count_certificate
from racecert.independent.search import (
    LIMB_BITS,
    LayeredDag,
    SearchResult,
    _sum_limbs,
    _to_ints,
    explore,
)
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, layered_bfs
from tests.bruteforce import WorkCapExceeded, enumerate_optimal
from tests.strategies import TRACKS, GeneratedTrack, small_tracks

BUNDLED = sorted(TRACKS.glob("*.toml"))
Row = tuple[int, ...]


def _modes(track: Track) -> tuple[str, ...]:
    return ("exact", "editor") if track.opening is not None else ("exact",)


def oracle_view(r: BfsResult) -> dict[str, object]:
    """The oracle's figures and DAG as plain Python sets and dicts."""
    out: dict[str, object] = {
        "reachable": r.reachable, "m_star": r.m_star, "total": r.optimal_count,
        "finals": dict(r.final_state_list()), "explored": r.states_explored,
    }
    if r.dag is None:
        return out
    d = r.dag

    def row(t: int, i: int) -> Row:
        s = d.layers[t].state(int(i))
        return (s.x, s.y, s.vx, s.vy, s.layer, s.progress, s.phase)

    out["states"] = {(t, row(t, i)) for t in range(len(d.layers)) for i in range(len(d.layers[t]))}
    out["moves"] = {(t, row(t, a), row(t + 1, b)) for t, (src, dst) in enumerate(d.edges)
                    for a, b in zip(src.tolist(), dst.tolist(), strict=True)}
    last = len(d.layers) - 1
    arr = d.arrive_state.take(slice(None))
    out["arrivals"] = {(row(last, s), (int(arr.x[i]), int(arr.y[i]), int(arr.vx[i]),
                                       int(arr.vy[i]), int(arr.layer[i]), int(arr.progress[i])))
                       for i, s in enumerate(d.arrive_src.tolist())}
    return out


def independent_view(r: SearchResult) -> dict[str, object]:
    """The same view of the independent search's result."""
    out: dict[str, object] = {"reachable": r.reachable, "m_star": r.m_star,
                              "total": r.optimal_count, "explored": r.states_explored}
    if r.dag is None:
        out["finals"] = {}
        return out
    d: LayeredDag = r.dag
    out["finals"] = {d.finals.row(i): c for i, c in enumerate(d.final_counts)}
    out["states"] = {(t, layer.row(i)) for t, layer in enumerate(d.layers)
                     for i in range(len(layer))}
    out["moves"] = {(t, d.layers[t].row(a), d.layers[t + 1].row(b))
                    for t, (src, dst) in enumerate(d.edges)
                    for a, b in zip(src.tolist(), dst.tolist(), strict=True)}
    last = d.layers[-1]
    out["arrivals"] = {(last.row(s), (int(d.arrive_x[i]), int(d.arrive_y[i]),
                                      int(d.arrive_vx[i]), int(d.arrive_vy[i]),
                                      int(d.arrive_layer[i]), int(d.arrive_progress[i])))
                       for i, s in enumerate(d.arrive_src.tolist())}
    return out


def assert_same(track: Track, mode: str) -> SearchResult:
    mine = explore(track, mode)  # type: ignore[arg-type]
    assert independent_view(mine) == oracle_view(layered_bfs(track, mode))  # type: ignore[arg-type]
    return mine


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_track_agrees_with_the_oracle(path: Path) -> None:
    track = load_track(str(path))
    for mode in _modes(track):
        r = assert_same(track, mode)
        assert r.status in ("arrived", "unreachable")
        if r.dag is not None:
            _check_dag_invariants(r.dag)


def _check_dag_invariants(d: LayeredDag) -> None:
    """The documented interface: aligned int64 arrays, moves by the destination's velocity."""
    assert len(d.layers) == d.m_star and len(d.edges) == d.m_star - 1
    for t, (src, dst) in enumerate(d.edges):
        a, b = d.layers[t], d.layers[t + 1]
        assert src.dtype == np.int64 and dst.dtype == np.int64
        assert np.array_equal(b.x[dst] - a.x[src], b.vx[dst])
        assert np.array_equal(b.y[dst] - a.y[src], b.vy[dst])
    last = d.layers[-1]
    assert np.array_equal(d.arrive_x - last.x[d.arrive_src], d.arrive_vx)
    assert np.array_equal(d.arrive_y - last.y[d.arrive_src], d.arrive_vy)
    rows = [d.finals.row(i) for i in range(len(d.finals))]
    assert rows == sorted(set(rows))
    assert sum(d.final_counts) == d.total and all(c > 0 for c in d.final_counts)


def test_llanura_count_exceeds_10_to_the_27_exactly() -> None:
    r = explore(load_track(str(TRACKS / "llanura.toml")))
    assert (r.m_star, r.optimal_count, len(r.final_counts)) == (
        69, 1683766555439912446706736323, 400)
    assert isinstance(r.optimal_count, int)


@pytest.mark.parametrize("text", [corridor(1000, 5), open_area(40, 20, 34), open_area(25, 3, 20)],
                         ids=["corridor1000x5", "open40", "open25"])
def test_generated_tracks_agree_with_the_oracle(text: str) -> None:
    assert_same(parse_track(text.encode(), "<generated>"), "exact")


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(small_tracks())
def test_random_tracks_agree_with_the_oracle_in_both_keys(g: GeneratedTrack) -> None:
    """Both keys where they differ: without an opening rule the editor key is the exact
    key (no phase to drop), so the exact search alone covers it (`_modes`)."""
    for mode in _modes(g.track):
        assert_same(g.track, mode)


def test_the_state_budget_stops_cleanly_and_deterministically() -> None:
    track = load_track(str(TRACKS / "llanura.toml"))
    a = explore(track, max_states=5_000)
    b = explore(track, max_states=5_000)
    assert a == b and a.status == "budget" and a.reachable is None and a.dag is None
    assert a.states_explored <= 5_000 and "state budget of 5,000 exceeded" in a.message
    ok = explore(track, max_states=150_386)  # exactly what the search stores
    assert ok.status == "arrived" and ok.states_explored == 150_386


def test_the_depth_bound_and_unreachable() -> None:
    track = load_track(str(TRACKS / "tiny_straight.toml"))
    r = explore(track, max_depth=2)
    assert (r.status, r.reachable, r.m_star) == ("depth", None, None)
    assert explore(track, max_depth=3).m_star == 3
    u = explore(load_track(str(TRACKS / "mini_apertura.toml")), "editor")
    assert (u.status, u.reachable, u.optimal_count, u.dag) == ("unreachable", False, 0, None)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3**200), st.integers(0, 4)), min_size=1, max_size=40))
def test_limb_sums_are_exact(items: list[tuple[int, int]]) -> None:
    """_sum_limbs(values, into) == Python's grouped sum, for numbers far beyond 2^64."""
    values = [v for v, _ in items]
    into = np.array([g for _, g in items], dtype=np.int64)
    n_limbs = max(1, max(v.bit_length() for v in values) // LIMB_BITS + 1)
    limbs = np.array([[(v >> (LIMB_BITS * j)) & ((1 << LIMB_BITS) - 1) for v in values]
                      for j in range(n_limbs)], dtype=np.int64)
    assert list(_to_ints(limbs)) == values
    want = [sum(v for v, g in items if g == k) for k in range(5)]
    assert list(_to_ints(_sum_limbs(limbs, into, 5))) == want


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tracks())
def test_random_tracks_agree_with_the_brute_force(g: GeneratedTrack) -> None:
    """Exact key vs tests/bruteforce.py (plain enumeration), skipping what exceeds its cap."""
    try:
        b = enumerate_optimal(g.track, depth_cap=12, max_nodes=100_000)
    except WorkCapExceeded:
        return
    r = explore(g.track, "exact")
    if b.m_star is None:
        assert r.m_star is None or r.m_star > 12
        return
    assert (r.m_star, r.optimal_count) == (b.m_star, b.total)
    assert independent_view(r)["finals"] == b.per_final
    assert r.dag is not None
    visits = {(layer.row(i)[:6], t) for t, layer in enumerate(r.dag.layers)
              for i in range(len(layer))}
    assert visits == set(b.optimal_visits)


def test_initial_state_and_arrival_filter_agree_with_the_oracle() -> None:
    """From an optimal final state into the next lap, and with only some arrivals accepted."""
    from racecert.model.rules import CarState

    track = load_track(str(TRACKS / "ocho.toml"))
    first = explore(track)
    assert first.dag is not None
    d = first.dag
    start = (int(d.arrive_x[0]), int(d.arrive_y[0]), int(d.arrive_vx[0]), int(d.arrive_vy[0]),
             int(d.arrive_layer[0]), int(d.arrive_progress[0]), 0)
    mine = explore(track, initial=start)
    theirs = layered_bfs(track, initial=CarState(*start))
    assert independent_view(mine) == oracle_view(theirs)
    assert check_count_certificate(track, mine.dag, initial=start).ok  # type: ignore[arg-type]
    assert not check_count_certificate(track, mine.dag).ok  # type: ignore[arg-type]

    def mine_ok(x, y, vx, vy, layer, progress, phase):  # type: ignore[no-untyped-def]
        return vy == -1

    filtered = explore(track, accept=mine_ok)
    oracle = layered_bfs(track, accept_arrival=lambda s: s.vy == -1)
    assert filtered.m_star is not None and filtered.m_star > first.m_star  # type: ignore[operator]
    assert independent_view(filtered) == oracle_view(oracle)
    assert check_count_certificate(track, filtered.dag, accept=mine_ok).ok  # type: ignore[arg-type]
    assert not check_count_certificate(track, filtered.dag).ok  # type: ignore[arg-type]
