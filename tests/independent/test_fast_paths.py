"""The fast paths of the independent search and the move re-check give the same figures.

`FastGeometry.valid_moves` (cheap tests and walk fused in one compiled pass) must list
exactly `classify`'s valid rows; the search's packed-sort dedup (`search_kernel`) must
give the same DAG as its `np.unique` fallback, in the documented order; and on generated
open areas and corridors the whole chain (search, count certificate, move re-check) must
reproduce the BFS oracle's m*, exact count, final states and explored states (tests may
import both sides).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from benchmarks.generate import corridor, open_area
from racecert.certification.fast_geometry_check import crosscheck_fast_geometry
from racecert.independent import search
from racecert.independent.countcheck import check_count_certificate
from racecert.independent.fastgeom import OK, FastGeometry
from racecert.independent.search import StateKey, explore
from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs
from tests.strategies import TRACKS

BUNDLED = sorted(TRACKS.glob("*.toml"))
FIELDS = ("src", "accel", "x", "y", "vx", "vy", "layer", "progress", "arrives")


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_valid_moves_are_classifys_valid_rows(path: Path) -> None:
    track = load_track(path)
    g = FastGeometry(track)
    rng = np.random.default_rng(7)
    n = 3000
    states = (rng.integers(0, track.width, n), rng.integers(0, track.height, n),
              rng.integers(-6, 7, n), rng.integers(-6, 7, n),
              rng.integers(0, 2 if track.elevated else 1, n), rng.integers(0, 2, n),
              rng.integers(0, g.k + 1, n))
    every = g.classify(*states)
    ok = every.code == OK
    fast = g.valid_moves(*states)
    assert ok.sum() > 0
    for f in FIELDS:
        assert np.array_equal(getattr(every, f)[ok], getattr(fast, f)), f
    assert np.all(fast.code == OK)


def _dag_arrays(r: search.SearchResult) -> list[np.ndarray]:
    d = r.dag
    assert d is not None
    out = [getattr(layer, f) for layer in d.layers for f in layer.__dataclass_fields__]
    out += [a for pair in d.edges for a in pair]
    out += [getattr(d, f) for f in ("arrive_src", "arrive_final", "arrive_x", "arrive_y",
                                    "arrive_vx", "arrive_vy", "arrive_layer",
                                    "arrive_progress")]
    out += [getattr(d.finals, f) for f in d.finals.__dataclass_fields__]
    return out + [np.array(c, dtype=object) for c in d.counts]


@pytest.mark.parametrize("name", ["4_esquinas.toml", "ocho.toml", "apertura.toml",
                                  "tiny_circuit_nocont.toml"])
def test_packed_dedup_equals_the_unique_fallback(name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    track = load_track(TRACKS / name)
    fast = explore(track, "exact")
    real = search._new_states

    def fallback(succ, src, visited, rows, bound):  # type: ignore[no-untyped-def]
        return real(succ, src, visited, rows, 2**62)  # too wide to pack: np.unique

    monkeypatch.setattr(search, "_new_states", fallback)
    slow = explore(track, "exact")
    assert (fast.m_star, fast.optimal_count, fast.final_counts) == (
        slow.m_star, slow.optimal_count, slow.final_counts)
    a, b = _dag_arrays(fast), _dag_arrays(slow)
    assert len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("name", ["4_esquinas.toml", "ocho.toml", "llanura.toml"])
def test_dag_order_is_the_documented_one(name: str) -> None:
    track = load_track(TRACKS / name)
    d = explore(track, "exact").dag
    assert d is not None
    key = StateKey(track.width, track.height, (track.opening.moves if track.opening else 0)
                   + 1)
    for layer in d.layers:  # states in ascending key order, distinct
        k = key.encode(layer.x, layer.y, layer.vx, layer.vy, layer.layer, layer.progress,
                       layer.phase)
        assert np.all(k[1:] > k[:-1])
    for t, (src, dst) in enumerate(d.edges):  # moves in (src, dst) order, distinct
        pair = src * len(d.layers[t + 1]) + dst
        assert len(pair) and np.all(pair[1:] > pair[:-1])
    f = d.finals
    rows = [f.row(i) for i in range(len(f))]
    assert rows == sorted(set(rows))


GENERATED = {
    "open 40": open_area(40, 20, 34),
    "open 61": open_area(61, 30, 55),
    "corridor 300x5": corridor(300, 5),
    "corridor 120x6": corridor(120, 6),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_tracks_match_the_oracle(name: str) -> None:
    track = parse_track(GENERATED[name])
    b = layered_bfs(track, "exact")
    r = explore(track, "exact")
    assert b.reachable and r.status == "arrived"
    assert (r.m_star, r.optimal_count, r.states_explored) == (
        b.m_star, b.optimal_count, b.states_explored)
    assert r.dag is not None
    assert {r.dag.finals.row(i): c for i, c in enumerate(r.final_counts)} == dict(
        b.final_state_list())
    cert = check_count_certificate(track, r.dag)
    assert cert.ok, cert.reason
    moves = crosscheck_fast_geometry(track, b.m_star)
    assert moves.agree and moves.complete
    assert moves.states == b.states_explored
    assert moves.moves == 9 * moves.states


def test_packed_arrival_comparison_names_the_same_failures() -> None:
    track = load_track(TRACKS / "ocho.toml")
    d = explore(track, "exact").dag
    assert d is not None and check_count_certificate(track, d).ok
    off = d.arrive_x.copy()
    off[0] = -5  # beyond the grid: no packed key, compared as row tuples
    c = check_count_certificate(track, dataclasses.replace(d, arrive_x=off))
    assert not c.ok and "not a valid arriving move" in c.reason
    fields = ("arrive_src", "arrive_final", "arrive_x", "arrive_y", "arrive_vx", "arrive_vy",
              "arrive_layer", "arrive_progress", "arrival_counts")
    twice = np.concatenate([np.arange(len(d.arrive_src)), [0]])
    c = check_count_certificate(track, dataclasses.replace(
        d, **{f: getattr(d, f)[twice] for f in fields}))
    assert not c.ok and "recorded twice" in c.reason
