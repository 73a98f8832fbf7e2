"""The cell-path profile's figures against a brute force on small random maps.

The oracle (`analyze_lattice` on a `CellPathTrack`, every start at once) and the
independent search (`racecert.independent.cellpath.search`) are each compared with
`tests.cellpath.bruteforce`: m*, the count per start, the final states with their
counts, and the least and greatest lengths with their ties.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from racecert.analysis.lattice.pipeline import analyze_lattice
from racecert.independent.cellpath.search import count_trajectories
from racecert.model.cellpath.track import CellPathTrack, start_cells
from racecert.model.radicals import RadicalSum
from tests.cellpath.bruteforce import Brute, brute, value


def random_map(seed: int) -> CellPathTrack:
    """A small map: random blocked cells, 1-3 starts, 1-2 goals, A 1 or 2, maybe a cap."""
    rng = random.Random(seed)
    w, h = rng.randint(4, 9), rng.randint(2, 5)
    p_blocked = rng.choice([0.1, 0.25, 0.45])
    grid = [["x" if rng.random() < p_blocked else "." for _ in range(w)] for _ in range(h)]
    left = [(x, y) for y in range(h) for x in range(w) if x < w // 3 + 1]
    right = [(x, y) for y in range(h) for x in range(w) if x >= w - w // 3 - 1]
    for x, y in rng.sample(left, rng.randint(1, 3)):
        grid[y][x] = "s"
    for x, y in rng.sample(right, rng.randint(1, 2)):
        grid[y][x] = "g"
    if not any("s" in r for r in grid):
        grid[0][0] = "s"
    rows = tuple("".join(r) for r in grid)
    return CellPathTrack(f"random-{seed}", w, h, rows, start_cells(rows),
                         max_acceleration=1 if rng.random() < 0.7 else 2,
                         speed_cap=rng.choice([None, None, 1, 2, 3]))


def _form(length: RadicalSum) -> frozenset:
    """A racecert radical sum as the brute force's canonical form."""
    terms = {}
    for d, c in length.terms:  # (squarefree d, integer coefficient)
        terms[int(d)] = int(c)
    return frozenset(terms.items())


def _extreme(b: Brute, least: bool) -> tuple[frozenset, int]:
    forms = sorted(b.lengths, key=value)
    pick = forms[0] if least else forms[-1]
    return pick, b.lengths[pick]


SEEDS = range(60)


@cache
def map_and_brute(seed: int) -> tuple[CellPathTrack, Brute]:
    """The seed's map and its brute force (once per seed for the three tests below)."""
    t = random_map(seed)
    return t, brute(list(t.rows), list(t.starts), t.max_acceleration, t.speed_cap)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_oracle_matches_the_brute_force(seed: int) -> None:
    t, b = map_and_brute(seed)
    a = analyze_lattice(t, best_start=True)
    assert a.bfs.m_star == b.m_star
    if b.m_star is None:
        assert not a.bfs.reachable
        return
    per_start = dict(zip(t.starts, b.per_start, strict=True))
    assert {s.position: s.optimal_count for s in a.starts} == {
        p: c for p, c in per_start.items() if c}
    assert {k[:4]: c for k, c in a.bfs.final_state_list()} == b.finals
    if b.lengths is not None:
        assert a.green is not None and a.blue is not None
        assert (_form(a.green.length), a.green.ties) == _extreme(b, least=True)
        assert (_form(a.blue.length), a.blue.ties) == _extreme(b, least=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_independent_search_matches_the_brute_force(seed: int) -> None:
    t, b = map_and_brute(seed)
    r = count_trajectories(t, list(t.starts))
    assert r.complete
    assert r.m_star == b.m_star
    assert r.counts == b.per_start
    assert r.finals == b.finals
    if b.m_star is not None and b.lengths is not None:
        assert r.shortest is not None and r.longest is not None
        assert (frozenset(r.shortest[0].items()), r.shortest[1]) == _extreme(b, least=True)
        assert (frozenset(r.longest[0].items()), r.longest[1]) == _extreme(b, least=False)


def test_the_random_maps_exercise_every_case() -> None:
    """The seeds cover unreachable and reachable maps, several starts, A = 2 and caps."""
    maps = [map_and_brute(s)[0] for s in SEEDS]
    found = [map_and_brute(s)[1] for s in SEEDS]
    assert any(b.m_star is None for b in found)
    assert sum(b.m_star is not None and b.m_star >= 3 for b in found) >= 10
    assert any(len(t.starts) > 1 and b.m_star for t, b in zip(maps, found, strict=True))
    assert any(t.max_acceleration == 2 for t in maps)
    assert any(t.speed_cap is not None for t in maps)
    assert any(b.m_star and sum(b.per_start) > 1 for b in found)
