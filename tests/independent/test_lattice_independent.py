"""The independent lattice machinery against the test suite's own brute force (which shares
code with neither side): the second geometry, the independent search with its exact
counts and lengths, and the CP-SAT model's m*."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from racecert.independent.lattice.cpsat import build_table, solve
from racecert.independent.lattice.geometry import (
    LatticeGeometry,
    segment_in_disc,
    segments_meet,
)
from racecert.independent.lattice.search import count_trajectories
from racecert.independent.race_rules import lattice_accels
from racecert.independent.radical_forms import add, compare, length
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import parse_track
from tests import lattice_bruteforce as bf
from tests.model.test_lattice_rules import polygon_tracks

ROOT = Path(__file__).resolve().parents[2]


def test_the_second_geometry_agrees_with_the_brute_force_exhaustively() -> None:
    pts = [(x, y) for x in range(-1, 4) for y in range(-1, 4)]
    segs = [(p, q) for p in pts for q in pts if max(abs(p[0] - q[0]), abs(p[1] - q[1])) <= 3]
    walls = [((0, 0), (2, 2)), ((0, 1), (3, 1)), ((1, 2), (1, 2)), ((0, 3), (3, 0)),
             ((2, -1), (2, 4))]
    for p, q in segs:
        for a, b in walls:
            assert segments_meet(p, q, a, b) == bf.meet(p, q, a, b), (p, q, a, b)
        for c, r in (((1, 1), 1), ((0, 0), 2), ((2, 1), 1)):
            assert segment_in_disc(p, q, c, r) == bf.inside_disc(p, q, c, r), (p, q, c, r)


def test_vectorised_and_scalar_second_geometry_agree() -> None:
    t = parse_track((ROOT / "tracks/lattice/riddler.toml").read_bytes())
    assert isinstance(t, LatticeTrack)
    geo = LatticeGeometry(t)
    rng = np.random.default_rng(3)
    px, py = rng.integers(0, 15, 3000), rng.integers(0, 15, 3000)
    qx, qy = px + rng.integers(-5, 6, 3000), py + rng.integers(-5, 6, 3000)
    ok = geo.valid_moves(px, py, qx, qy)
    codes = geo.finish_codes(px, py, qx, qy)
    for i in range(3000):
        p, q = (int(px[i]), int(py[i])), (int(qx[i]), int(qy[i]))
        assert bool(ok[i]) == geo.move(p, q)[0]
        assert int(codes[i]) == geo.finish_code(p, q)


PROPERTY = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@PROPERTY
@given(polygon_tracks())
def test_the_independent_search_matches_the_brute_force(t: LatticeTrack) -> None:
    _search_matches_brute_force(t, 5)


@PROPERTY
@given(polygon_tracks("von-neumann"))
def test_the_independent_search_matches_the_brute_force_von_neumann(t: LatticeTrack) -> None:
    """The same with the five accelerations (depth 6: the brute force branches 5 ways)."""
    _search_matches_brute_force(t, 6)


def _search_matches_brute_force(t: LatticeTrack, depth: int) -> None:
    try:
        b = bf.enumerate_optimal(t, list(t.starts), depth)
    except bf.WorkCap:
        assume(False)
        return
    r = count_trajectories(t, t.starts, extremes=True)
    if b.m_star is None:
        assert r.m_star is None or r.m_star > depth
        return
    assert (r.m_star, r.total) == (b.m_star, b.count)
    assert r.finals == dict(b.finals)
    assert r.shortest is not None and r.shortest[1] >= 1 and r.longest is not None
    assert compare(r.shortest[0], r.longest[0]) <= 0


def test_extremes_by_hand() -> None:
    """The finish-endpoint track of test_lattice_rules (m* = 2, 5 trajectories): first move
    v = (1,-1) or (1,0), then one of 5 second moves. Lengths: sqrt2+sqrt2 (to (2,0)),
    sqrt2+1 (to (2,1)), sqrt2+sqrt5 (to (3,0)), sqrt2+2 (to (3,1)), 1+sqrt2 (to (2,1))."""
    t = parse_track(b'rules = "lattice"\nname = "t"\n[bounds]\nx = [0, 4]\ny = [0, 3]\n'
                    b"[start]\npositions = [[0, 2]]\n[finish]\nfrom = [2, 0]\nto = [2, 1]\n")
    r = count_trajectories(t, t.starts, extremes=True)
    assert (r.m_star, r.total) == (2, 5)
    assert r.shortest == ({1: 1, 2: 1}, 2)
    assert r.longest == (add(length(1, 1), length(2, -1)), 1)


def test_cpsat_m_star_on_a_small_track() -> None:
    t = parse_track(b'rules = "lattice"\nname = "t"\n[bounds]\nx = [0, 4]\ny = [0, 3]\n'
                    b"[start]\npositions = [[0, 2]]\n[finish]\nfrom = [2, 0]\nto = [2, 1]\n")
    table = build_table(t, 2)
    assert solve(t, table, 1, t.starts, "within", budget=30).status == "infeasible"
    at = solve(t, table, 2, t.starts, "exact", budget=30)
    assert at.status == "feasible" and len(at.positions) == 3
    ok, _, first = LatticeGeometry(t).replay(list(at.positions))
    assert ok and first == 2


CORNER = (b'rules = "lattice"\nname = "corner"\n%s[bounds]\nx = [0, 1]\ny = [0, 1]\n'
          b"[start]\npositions = [[0, 0]]\n[finish]\nfrom = [1, 1]\nto = [2, 2]\n")


def corner(accelerations: bytes = b"") -> LatticeTrack:
    """The 2x2 corner of tests/model/test_lattice_rules.py: the finish meets the lattice
    at (1,1) only; one diagonal move (Moore), or three moves with a stop (von Neumann:
    (0,0) -> (1,0) -> (1,0) -> (1,1) and its mirror image)."""
    t = parse_track(CORNER % accelerations)
    assert isinstance(t, LatticeTrack)
    return t


def test_the_independent_side_reads_the_acceleration_set() -> None:
    moore, vn = corner(), corner(b'accelerations = "von-neumann"\n')
    r = count_trajectories(moore, moore.starts)
    assert (r.m_star, r.total) == (1, 1)
    r = count_trajectories(vn, vn.starts, extremes=True)
    assert (r.m_star, r.total) == (3, 2)
    assert r.finals == {(1, 1, 0, 1): 1, (1, 1, 1, 0): 1}
    assert r.shortest == ({1: 2}, 2)  # 1 + 0 + 1 both ways
    # the CP-SAT model: the diagonal is feasible at T = 1 with Moore only
    for t, m in ((moore, 1), (vn, 3)):
        table = build_table(t, 2)
        if m > 1:
            assert solve(t, table, m - 1, t.starts, "within", budget=30).status == "infeasible"
        at = solve(t, table, m, t.starts, "exact", budget=30)
        assert at.status == "feasible" and len(at.positions) == m + 1
        assert LatticeGeometry(t).replay(list(at.positions))[2] == m
    # the replay refuses the diagonal under von Neumann, accepts it under Moore
    assert LatticeGeometry(moore).replay([(0, 0), (1, 1)]) == (True, "valid; finishes at move 1",
                                                               1)
    ok, why, _ = LatticeGeometry(vn).replay([(0, 0), (1, 1)])
    assert not ok and "not in the von-neumann set" in why


def test_the_independent_sets() -> None:
    """Stated on the independent side: the nine, and the five with a zero component."""
    assert len(lattice_accels("moore")) == 9
    assert sorted(lattice_accels("von-neumann")) == [(-1, 0), (0, -1), (0, 0), (0, 1), (1, 0)]
    with pytest.raises(ValueError, match="knows moore, von-neumann"):
        lattice_accels("hexagonal")
