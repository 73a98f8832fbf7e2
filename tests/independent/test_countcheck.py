"""The count certificate check: it accepts the search's DAGs and rejects corrupted ones."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from racecert.independent.countcheck import check_count_certificate
from racecert.independent.search import LayeredDag, explore
from racecert.model.parse import load_track
from racecert.model.track import Track
from tests.strategies import TRACKS, GeneratedTrack, small_tracks

BUNDLED = sorted(TRACKS.glob("*.toml"))


def _dag(name: str, mode: str = "exact") -> tuple[Track, LayeredDag]:
    track = load_track(str(TRACKS / name))
    dag = explore(track, mode).dag  # type: ignore[arg-type]
    assert dag is not None
    return track, dag


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_bundled_dag_passes(path: Path) -> None:
    track = load_track(str(path))
    for mode in ("exact", "editor") if track.opening else ("exact",):
        dag = explore(track, mode).dag  # type: ignore[arg-type]
        if dag is None:
            continue
        c = check_count_certificate(track, dag)
        assert c.ok, c.reason
        assert c.states == dag.size and c.moves_derived == 9 * dag.size


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tracks())
def test_random_dags_pass(g: GeneratedTrack) -> None:
    # the editor DAG only where it differs: without an opening rule it is the exact one
    for mode in ("exact", "editor") if g.track.opening else ("exact",):
        dag = explore(g.track, mode).dag  # type: ignore[arg-type]
        if dag is not None:
            assert check_count_certificate(g.track, dag).ok


def _recount(dag: LayeredDag, edges: tuple[tuple[np.ndarray, np.ndarray], ...]) -> LayeredDag:
    """The DAG with `edges` and every count recomputed consistently (plain Python ints)."""
    counts = [np.array([1], dtype=object)]
    for t, (src, dst) in enumerate(edges):
        nxt = [0] * len(dag.layers[t + 1])
        for a, b in zip(src.tolist(), dst.tolist(), strict=True):
            nxt[b] += counts[t][a]
        counts.append(np.array(nxt, dtype=object))
    arr = counts[-1][dag.arrive_src]
    finals = [0] * len(dag.finals)
    for f, c in zip(dag.arrive_final.tolist(), arr.tolist(), strict=True):
        finals[f] += c
    return dataclasses.replace(dag, edges=edges, counts=tuple(counts), arrival_counts=arr,
                               final_counts=tuple(finals), total=sum(finals))


def test_the_recount_helper_reproduces_the_search() -> None:
    _, dag = _dag("llanura.toml")
    again = _recount(dag, dag.edges)
    assert again.total == dag.total and again.final_counts == dag.final_counts


def test_a_wrong_count_fails() -> None:
    track, dag = _dag("llanura.toml")
    counts = list(dag.counts)
    counts[30] = counts[30].copy()
    counts[30][5] += 1
    c = check_count_certificate(track, dataclasses.replace(dag, counts=tuple(counts)))
    assert not c.ok and "layer 30 state" in c.reason and "predecessors sum" in c.reason


def test_a_wrong_final_count_or_total_fails() -> None:
    track, dag = _dag("4_esquinas.toml")
    finals = list(dag.final_counts)
    finals[0] += 1
    bad = dataclasses.replace(dag, final_counts=tuple(finals), total=dag.total + 1)
    assert "its arrivals sum" in check_count_certificate(track, bad).reason
    bad = dataclasses.replace(dag, total=dag.total - 1)
    assert "not the sum of the final counts" in check_count_certificate(track, bad).reason


def test_a_dropped_move_fails_even_with_consistent_counts() -> None:
    """Dropping one move and recounting keeps every sum right: the move check must catch it."""
    track, dag = _dag("llanura.toml")
    edges = list(dag.edges)
    src, dst = edges[40]
    edges[40] = (np.delete(src, 3), np.delete(dst, 3))
    c = check_count_certificate(track, _recount(dag, tuple(edges)))
    assert not c.ok and "is not recorded" in c.reason
    inconsistent = dataclasses.replace(dag, edges=tuple(edges))  # counts left as they were
    assert not check_count_certificate(track, inconsistent).ok


def test_an_invented_move_fails() -> None:
    track, dag = _dag("4_esquinas.toml")
    edges = list(dag.edges)
    src, dst = edges[5]
    other = next(d for d in range(len(dag.layers[6]))
                 if not np.any((src == src[0]) & (dst == d)))
    edges[5] = (np.append(src, src[0]), np.append(dst, other))
    c = check_count_certificate(track, _recount(dag, tuple(edges)))
    assert not c.ok and "is not a valid move to that state" in c.reason


def test_a_dropped_or_misdirected_arrival_fails() -> None:
    track, dag = _dag("ocho.toml")
    keep = np.arange(1, len(dag.arrive_src))
    fields = ("arrive_src", "arrive_final", "arrive_x", "arrive_y", "arrive_vx", "arrive_vy",
              "arrive_layer", "arrive_progress", "arrival_counts")
    dropped = dataclasses.replace(dag, **{f: getattr(dag, f)[keep] for f in fields})
    assert "not recorded" in check_count_certificate(track, dropped).reason
    wrong = dag.arrive_final.copy()
    wrong[0] = (wrong[0] + 1) % len(dag.finals)
    c = check_count_certificate(track, dataclasses.replace(dag, arrive_final=wrong))
    assert not c.ok and "final state other than its own" in c.reason


def test_a_wrong_initial_state_or_phase_fails() -> None:
    track, dag = _dag("tiny_opening_shadow.toml")
    first = dataclasses.replace(dag.layers[0], vx=np.array([1]))
    bad = dataclasses.replace(dag, layers=(first, *dag.layers[1:]))
    assert "is not the initial state" in check_count_certificate(track, bad).reason
    two = dataclasses.replace(dag.layers[2], phase=dag.layers[2].phase + 1)
    bad = dataclasses.replace(dag, layers=(*dag.layers[:2], two, *dag.layers[3:]))
    assert "phase" in check_count_certificate(track, bad).reason


def test_a_shortened_dag_fails() -> None:
    """A DAG claiming m* one less (its last layer dropped) has no arrivals where it says."""
    track, dag = _dag("espiral.toml")
    short = dataclasses.replace(dag, m_star=dag.m_star - 1, layers=dag.layers[:-1],
                                edges=dag.edges[:-1], counts=dag.counts[:-1])
    c = check_count_certificate(track, short)
    assert not c.ok and "not a valid arriving move" in c.reason
