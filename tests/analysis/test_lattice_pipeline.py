"""The lattice pipeline: --best-start against one search per start, the per-start part of
the multi-start DAG against that start's own DAG, green/blue over several starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.analysis.lattice.pipeline import analyze_lattice, source_dag
from racecert.analysis.lattice.svg import render_lattice_svg
from racecert.model.lattice.rules import LatticeRules
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import parse_track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_lattice_certificate import SMALL

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ring() -> LatticeTrack:
    t = parse_track(SMALL.encode(), "small.toml")
    assert isinstance(t, LatticeTrack)
    return t


def single(t: LatticeTrack, p: tuple[int, int]):
    rules = LatticeRules(t)
    return layered_bfs(t, "exact", rules=rules, initial=rules.state_at(p))  # type: ignore


def test_best_start_is_the_least_over_single_searches(ring: LatticeTrack) -> None:
    best = analyze_lattice(ring, best_start=True)
    per = {p: single(ring, p) for p in ring.starts}
    m = min(r.m_star for r in per.values())
    assert best.bfs.m_star == m
    want = {p: r.optimal_count for p, r in per.items() if r.m_star == m}
    assert {s.position: s.optimal_count for s in best.starts} == want
    assert best.bfs.optimal_count == sum(want.values())
    assert best.bfs.states_explored >= len(ring.starts)


def test_the_part_of_a_start_is_its_own_dag(ring: LatticeTrack) -> None:
    best = analyze_lattice(ring, best_start=True)
    dag = best.bfs.dag
    assert dag is not None and len(dag.layers[0]) == len(best.starts) >= 2
    for i in range(len(dag.layers[0])):
        p = (int(dag.layers[0].x[i]), int(dag.layers[0].y[i]))
        own = single(ring, p).dag
        sub = source_dag(dag, i)
        assert own is not None
        assert [len(a) for a in sub.layers] == [len(a) for a in own.layers]
        assert [len(e[0]) for e in sub.edges] == [len(e[0]) for e in own.edges]
        assert len(sub.final_states) == len(own.final_states)


def test_green_and_blue_over_several_starts(ring: LatticeTrack) -> None:
    best = analyze_lattice(ring, best_start=True)
    assert best.green is not None and best.blue is not None
    greens = [s.representatives.green for s in best.starts]
    least = min(g.length for g in greens)
    assert best.green.length == least
    assert best.green.ties == sum(g.ties for g in greens if g.length == least)
    assert best.green.trajectory.moves == best.bfs.m_star
    start = best.green.trajectory.positions[0]
    assert start in {ring.to_file(s.position) for s in best.starts}


def test_a_single_start_analysis_and_its_picture() -> None:
    t = parse_track((ROOT / "tracks/lattice/riddler.toml").read_bytes())
    a = analyze_lattice(t)
    assert a.considered == (t.start,) and len(a.starts) == 1
    svg = render_lattice_svg(a)
    assert svg == render_lattice_svg(analyze_lattice(t))  # deterministic
    assert "<circle" in svg and "red: every move of an optimal trajectory" in svg


def test_an_unreachable_track_has_no_representatives() -> None:
    t = parse_track(b'rules = "lattice"\nname = "cut"\n[bounds]\nx = [0, 4]\ny = [0, 2]\n'
                    b"[[walls]]\npoints = [[2, -1], [2, 3]]\n[start]\npositions = [[0, 1]]\n"
                    b"[finish]\nfrom = [4, 0]\nto = [4, 2]\n")
    a = analyze_lattice(t, best_start=True)
    assert not a.bfs.reachable and a.green is None and a.starts == ()
    j = a.to_json()
    assert j["m_star"] is None and j["green"] is None and j["optimal_starts"] == []
    assert "finish unreachable" in render_lattice_svg(a)


def test_the_docs_picture_is_current() -> None:
    """docs/img/lattice-riddler.svg is what `racecert analyze tracks/lattice/riddler.toml
    -o docs/img/lattice-riddler.svg` draws now."""
    t = parse_track((ROOT / "tracks/lattice/riddler.toml").read_bytes(),
                    "tracks/lattice/riddler.toml")
    svg = ROOT / "docs" / "img" / "lattice-riddler.svg"
    assert svg.read_text(encoding="utf-8") == render_lattice_svg(analyze_lattice(t)), (
        "stale: racecert analyze tracks/lattice/riddler.toml -o docs/img/lattice-riddler.svg")
