"""The vectorised flood (racecert.model.reach) against the cell-by-cell reference flood.

Independent truth: `tests/model/flood_reference.py` is a plain breadth-first
search over the per-cell step rules (`unit_step`, `step_crosses`). On random
tracks with bridges, random sources, random lines (on and off the grid, on
either layer, either direction) and random targets, both floods must reach
the same cells and report the same hit, for both blocking rules.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from racecert.model import topology
from racecert.model.reach import _union, reach
from racecert.model.track import Car, Line, Track
from tests.model import flood_reference as ref
from tests.model.test_rules import RAMPS
from tests.strategies import make_track, small_tracks


@st.composite
def _lines(draw: st.DrawFn, t: Track) -> Line:
    axis = draw(st.sampled_from("xy"))
    n_fixed, n_span = (t.width, t.height) if axis == "x" else (t.height, t.width)
    k = draw(st.integers(-1, n_fixed - 1))
    lo = draw(st.integers(-1, n_span))
    hi = draw(st.integers(lo, n_span + 1))
    return Line(axis, k, lo, hi, draw(st.sampled_from("+-")) + axis,  # type: ignore[arg-type]
                draw(st.integers(0, t.layers - 1)))


def _drivable(t: Track) -> list[tuple[int, int, int]]:
    d = t.surface_arrays.drivable
    return [(x, y, layer) for layer in range(t.layers) for y in range(t.height)
            for x in range(t.width) if d[layer, y, x]]


@given(st.data())
def test_reach_matches_the_reference_flood(data: st.DataObject) -> None:
    t = data.draw(small_tracks()).track
    nodes = _drivable(t)
    sources = data.draw(st.lists(st.sampled_from(nodes), max_size=3))
    lines = tuple(data.draw(st.lists(_lines(t), max_size=3)))
    target = data.draw(st.one_of(st.none(), _lines(t)))
    assert topology.flood(t, sources, lines, target) == ref.flood(t, sources, lines, target)
    if target is not None:
        assert (topology.flood_directed(t, sources, lines, target)
                == ref.flood_directed(t, sources, lines, target))


@given(small_tracks())
def test_validator_and_lap_questions_match_the_reference(g) -> None:  # noqa: ANN001
    t = g.track
    car = [(t.car.position[0], t.car.position[1], t.car.layer)]
    lines = (t.start, t.finish)
    assert topology.reaches_finish_before_start(t) is False  # the track was accepted
    assert ref.flood(t, car, lines, t.finish)[1] is False
    expect = all(ref.flood_directed(t, topology.exit_cells(t, a), lines, b)[1]
                 for a, b in ((t.finish, t.start), (t.start, t.finish)))
    assert topology.lap_precondition(t) is expect


def test_a_ramp_step_is_one_way() -> None:
    # RAMPS: from the ramp (2,2) on the ground a step right lands on the bridge (3,2,1);
    # the step back from (3,2,1) stays on layer 1 at the ramp, (2,2,1).
    seen, _ = topology.flood(RAMPS, [(2, 2, 0)], ())
    assert (3, 2, 1) in seen and (2, 2, 1) in seen
    assert seen == ref.flood(RAMPS, [(2, 2, 0)], ())[0]
    # a start on the far side of the start line, everything blocked: one column only
    seen, hit = topology.flood(RAMPS, [(1, 1, 0)], (RAMPS.start, RAMPS.finish), RAMPS.finish)
    assert seen == {(1, 1, 0), (1, 2, 0), (1, 3, 0)} and not hit


def _serpentine(n: int) -> Track:
    """Corridors on every odd row of an n x n grid, joined alternately at the right and
    the left end: one path of about n * n / 2 cells."""
    rows = [["#"] * n for _ in range(n)]
    for y in range(1, n - 1, 2):
        rows[y][1:n - 1] = ["."] * (n - 2)
        if y + 2 < n - 1:
            rows[y + 1][n - 2 if y % 4 == 1 else 1] = "."
    grid = "\n" + "\n".join("".join(r) for r in rows) + "\n"
    return make_track(grid, car=(1, 1), start={"x": 1, "y": [1, 1], "dir": "+x"},
                      finish={"x": 3, "y": [1, 1], "dir": "+x"})


def test_a_long_serpentine_matches_the_reference() -> None:
    t = _serpentine(61)
    for blocked, target in (((), t.finish), ((t.start,), None), ((t.finish,), t.start)):
        got = topology.flood(t, [(5, 1, 0)], blocked, target)
        assert got == ref.flood(t, [(5, 1, 0)], blocked, target)
    seen, hit = topology.flood(t, [(5, 1, 0)], (), t.finish)
    assert len(seen) == 30 * 59 + 29 and hit  # the whole path; (3,1) -> (4,1) crosses F


def test_a_run_split_below_a_line_joins_through_its_only_edge() -> None:
    # Row 2 is split by the line x = 5/2 (span row 2 only) into (1..2, 2) and the single
    # cell (3, 2); the only symmetric step joining (3, 2) to the rest is the one straight
    # up to (3, 1), right beside an edge between the same upper run and the other half.
    line = Line("x", 2, 2, 2, "+x")
    t = Track("split", 6, 4, ("######", "#...##", "#...##", "######"), None,
              Car((1, 1), "+x"), line, line)  # flood() reads only the grid
    seen, _ = topology.flood(t, [(3, 2, 0)], (line,))
    assert seen == ref.flood(t, [(3, 2, 0)], (line,))[0]
    assert len(seen) == 6


def test_union_find_on_a_path_in_scrambled_order() -> None:
    rng = np.random.default_rng(7)
    n = 5000
    order = rng.permutation(n)  # vertex order[i] is joined to order[i + 1]
    roots = _union(n + 3, order[:-1], order[1:])  # three isolated vertices beyond
    assert len(set(roots[:n].tolist())) == 1 and roots[0] == 0
    assert roots[n:].tolist() == [n, n + 1, n + 2]


def test_sources_must_be_drivable() -> None:
    try:
        reach(RAMPS, [(0, 0, 0)], (), "any")
    except ValueError as exc:
        assert "not a drivable cell" in str(exc)
    else:
        raise AssertionError("an off-track source was accepted")


def test_the_reach_result_is_a_grid_of_the_track() -> None:
    r = reach(RAMPS, [(1, 1, 0)], (), "any")
    assert r.reached.shape == (2, RAMPS.height, RAMPS.width)
    assert r.nodes() == ref.flood(RAMPS, [(1, 1, 0)], ())[0]
    moved = dataclasses.replace(RAMPS, start=Line("x", 5, 1, 3, "+x"))
    assert topology.reaches_finish_before_start(moved)
