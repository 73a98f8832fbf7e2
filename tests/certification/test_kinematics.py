"""m* by CP-SAT integer kinematics with counterexample cuts (`racecert.independent.kinematics`,
`racecert.certification.kinematics_checks`): it agrees where the oracle is right, disagrees
on a wrong m* either way, and its cuts never remove a valid move."""

from __future__ import annotations

import ast
import dataclasses
from fractions import Fraction
from math import gcd
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import corridor, open_area, serpentine
from racecert.certification.context import CertifyContext, Verdict
from racecert.certification.kinematics_checks import check_m_star_kinematics
from racecert.independent.geometry import Geometry, VState
from racecert.independent.kinematics import (
    KinematicsModel,
    explaining_sample,
    layer_count,
    mid_walls,
    midpoints,
    one_way,
    rectangles,
    refine,
    sample_point,
    sample_walls,
    wrong_way,
)
from racecert.independent.race_rules import OpeningRule
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_geometry_crosscheck import RING_TRACK
from tests.strategies import GeneratedTrack, small_tracks

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
OPEN = parse_track(open_area(40, 20, 34).encode(), "open40.toml")
CORRIDOR = parse_track(corridor(200, 5).encode(), "corridor200.toml")  # m* = 20
BENDS = parse_track(serpentine(plies=2, length=10, width=3, gap=3).encode(), "bends.toml")
RING = parse_track(RING_TRACK.encode())


def ctx_of(track: Track, shift: int = 0) -> CertifyContext:
    exact = layered_bfs(track, "exact")
    if shift:
        exact = dataclasses.replace(exact, m_star=exact.m_star + shift)
    return CertifyContext(track, exact, layered_bfs(track, "editor"), cpsat_budget=30)


@given(st.sets(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=60))
def test_the_rectangles_cover_the_cells_exactly(cells: set[tuple[int, int]]) -> None:
    rects = rectangles(tuple(cells))
    covered = [(x, y) for x0, x1, y0, y1 in rects
               for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    assert sorted(covered) == sorted(cells)  # each cell once: disjoint and complete


def test_one_rectangle_for_an_open_area_and_a_corridor() -> None:
    g = Geometry(OPEN)
    cells = tuple((x, y) for y in range(OPEN.height) for x in range(OPEN.width)
                  if g.endable(0, x, y))
    assert rectangles(cells) == [(1, 38, 1, 38)]


@pytest.mark.parametrize("track", [OPEN, CORRIDOR, BENDS, RING,
                                   load_track(str(TRACKS / "tiny_straight.toml")),
                                   load_track(str(TRACKS / "apertura.toml"))],
                         ids=["open40", "corridor200", "bends", "ring", "tiny", "apertura"])
def test_it_agrees_with_the_oracle(track: Track) -> None:
    ctx = ctx_of(track)
    r = check_m_star_kinematics(ctx)[0]
    assert (r.verdict, r.method_value) == (Verdict.AGREE, ctx.exact.m_star), r.reason
    witness = dict(r.artefacts)["witness"]
    assert Geometry(track).replay(list(ast.literal_eval(witness)))[0]


@pytest.mark.parametrize("shift", [1, -1])
@pytest.mark.parametrize("track", [OPEN, BENDS], ids=["open40", "bends"])
def test_a_wrong_m_star_disagrees(track: Track, shift: int) -> None:
    r = check_m_star_kinematics(ctx_of(track, shift))[0]
    assert r.verdict == Verdict.DISAGREE, r.reason
    true_m = layered_bfs(track, "exact").m_star
    expected = f"<= {true_m}" if shift == 1 else f"> {true_m - 1}"
    assert r.method_value == expected


def test_the_midpoint_keeps_the_car_from_jumping_walls() -> None:
    """Between the plies of the bends the wall is one cell thick: the midpoint condition
    alone rules out the jump, so the lower bound needs no cut there."""
    m = layered_bfs(BENDS, "exact").m_star
    lower = refine(BENDS, m - 1)
    assert (lower.status, lower.cuts) == ("infeasible", ())


@pytest.mark.parametrize("name", ["candelabro", "ocho", "4_esquinas"])
def test_every_valid_move_has_an_allowed_midpoint(name: str) -> None:
    """Soundness of the midpoint condition: every move the independent geometry allows
    from some cell and layer (|v'| <= 5) has its doubled midpoint in the allowed set."""
    track = load_track(str(TRACKS / f"{name}.toml"))
    g = Geometry(track)
    on = {(x, y) for y in range(track.height) for x in range(track.width)
          if any(g.surface(lay, x, y) for lay in range(layer_count(track)))}
    allowed = set(midpoints(on, track.width, track.height))
    layers = layer_count(track)
    ends = {(x, y) for y in range(track.height) for x in range(track.width)
            if any(g.endable(lay, x, y) for lay in range(layers))}
    checked = 0
    for y in range(track.height):
        for x in range(track.width):
            for vx in range(-5, 6):
                for vy in range(-5, 6):
                    if (vx, vy) == (0, 0) or (x + vx, y + vy) not in ends:
                        continue  # (no layer's walk could end there: skip walking it)
                    if any(g._walk(x, y, vx, vy, lay)[0] for lay in range(layers)):
                        assert (2 * x + vx, 2 * y + vy) in allowed, (x, y, vx, vy)
                        checked += 1
    assert checked > 1000


_BRIDGE_GROUND = ("#######", "#.#/..#", "#.#...#", "#.....#", "#:.#.:#", "#:#.###",
                  "#.:/.:#", "#######")
_BRIDGE_ELEVATED = tuple(" " * 7 if y in (0, 7) else "   " + "/====/"[y - 1] + "   "
                         for y in range(8))
BRIDGE_CUT = parse_track(("""name = "a bridge over a wall"
[car]
position = [5, 1]
direction = "-x"
[start]
y = 3
x = [1, 5]
dir = "+y"
[finish]
y = 5
x = [3, 3]
dir = "+y"
[map]
ground = \"\"\"
""" + "\n".join(_BRIDGE_GROUND) + '\n"""\nelevated = """\n' + "\n".join(_BRIDGE_ELEVATED)
                          + '\n"""\n').encode(), "bridge-cut.toml")


@pytest.mark.parametrize("name", ["bridge", "4_esquinas"])
def test_every_cut_is_a_move_the_geometry_refuses(name: str) -> None:
    """The walls and the families leave the bundled tracks no cut to make: on
    4_esquinas the two line walls and no standstill explain every invalid relaxed move
    (a second standstill in one solution is the same family, never a cut); on this bridge (found
    among the random small tracks) the relaxed car finds a move that touches a cell off
    the ground from the ground and another off the bridge from the bridge, each on the
    track on the other layer: no family explains it, so it is cut. Each cut is refused by
    the geometry from every layer, previous velocity, progress and phase."""
    track = BRIDGE_CUT if name == "bridge" else load_track(str(TRACKS / f"{name}.toml"))
    m = layered_bfs(track, "exact").m_star
    lower = refine(track, m - 1)
    assert lower.status == "infeasible"
    if name == "4_esquinas":
        assert (len(lower.families.lines), lower.families.moving) == (2, True)
        assert lower.cuts == ()
    else:
        assert lower.cuts
    g, rule = Geometry(track), OpeningRule.of(track)
    for cut in lower.cuts:
        for ax in (-1, 0, 1):
            for ay in (-1, 0, 1):
                for layer in (0, 1):
                    for progress in (0, 1):
                        for phase in range(rule.moves + 1):
                            s = VState(cut.x, cut.y, cut.vx - ax, cut.vy - ay, layer,
                                       progress, phase)
                            assert not g.move(s, (ax, ay)).valid, cut


def test_the_budget_ends_in_a_timeout_not_an_answer() -> None:
    r = check_m_star_kinematics(dataclasses.replace(ctx_of(BENDS), cpsat_budget=1e-9))[0]
    assert r.verdict == Verdict.TIMEOUT and "budget" in r.reason


def test_an_unreachable_finish_is_not_applicable() -> None:
    ctx = ctx_of(OPEN)
    gone = dataclasses.replace(ctx.exact, reachable=False, m_star=None)
    r = check_m_star_kinematics(dataclasses.replace(ctx, exact=gone))[0]
    assert r.verdict == Verdict.NOT_APPLICABLE


def test_a_model_over_its_size_budget_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The size budget is decided before any solve: `skipped`, with the measured size
    (open 40x40, m* = 8: 7 steps at T = m* - 1 times one end-cell and one midpoint
    rectangle)."""
    from racecert.independent import kinematics

    monkeypatch.setattr(kinematics, "MAX_STEP_RECTANGLES", 10)
    r = check_m_star_kinematics(ctx_of(OPEN))[0]
    assert r.verdict == Verdict.SKIPPED
    assert "the kinematics model holds 14 step-rectangles, over its size budget of 10" \
        in r.reason


FAMILIES = tuple((j, n) for n in (3, 5, 7, 9) for j in range(1, n) if gcd(j, n) == 1)


def _cover(rects: tuple[tuple[int, int, int, int], ...]) -> dict[int, bytearray]:
    """The integer points of the rectangles (x0, x1, y0, y1), inclusive: row y's flags by x."""
    rows: dict[int, bytearray] = {}
    width = max((x1 + 1 for _, x1, _, _ in rects), default=0)
    for x0, x1, y0, y1 in rects:
        assert 0 <= x0, (x0, x1, y0, y1)  # the scaled coordinates are not negative
        for y in range(y0, y1 + 1):
            rows.setdefault(y, bytearray(width))[x0:x1 + 1] = b"\1" * (x1 + 1 - x0)
    return rows


def _inside(point: tuple[int, int], cover: dict[int, bytearray]) -> bool:
    """`point` lies in one of the rectangles that `cover` was made of."""
    row = cover.get(point[1])
    return row is not None and 0 <= point[0] < len(row) and row[point[0]] == 1


def _crosses(wall: tuple[int, int, int], u0: int, u1: int, w0: int, w1: int) -> bool:
    c, a, b = wall
    return min(u0, u1) < c < max(u0, u1) and a <= w0 <= b and a <= w1 <= b


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(small_tracks())
def test_no_valid_move_is_excluded_by_the_point_conditions(gt: GeneratedTrack) -> None:
    """Soundness of every condition on a move's points: each move the independent geometry
    allows on some layer, from a cell a move may start on (an end cell or the car's), keeps
    every sample family up to n = 9 (its point in no `sample_walls` rectangle), the
    midpoint condition (in no `mid_walls` rectangle) and the row and column walls, and
    where it crosses no line the wrong way on some layer, the line walls; and every state
    reachable from the car has its velocity within the box speeds (and is no standstill:
    zero velocity is no move)."""
    track = gt.track
    g = Geometry(track)
    m = KinematicsModel.of(track, 1, g)
    layers = range(layer_count(track))
    ends = {(x, y) for y in range(track.height) for x in range(track.width)
            if any(g.endable(lay, x, y) for lay in layers)}
    starts = ends | {track.car.position}
    scaled = {n: _cover(sample_walls(m, n)) for n in (3, 5, 7, 9)}
    banned_mid = _cover(mid_walls(m))
    lines = [line for line in (track.start, track.finish) if one_way(line, g, len(layers))]
    for x, y in starts:
        for vx in range(-track.width + 1, track.width):
            for vy in range(-track.height + 1, track.height):
                if (vx, vy) == (0, 0) or (x + vx, y + vy) not in ends:
                    continue  # (no layer's walk could end there: skip walking it)
                if not any(g._walk(x, y, vx, vy, lay)[0] for lay in layers):
                    continue
                move = (x, y, vx, vy)
                for j, n in FAMILIES:
                    assert not _inside((n * x + j * vx, n * y + j * vy), scaled[n]), (move, j, n)
                assert not _inside((2 * x + vx, 2 * y + vy), banned_mid), move
                for wall in m.row_walls:
                    assert not _crosses(wall, y, y + vy, x, x + vx), (move, wall)
                for wall in m.col_walls:
                    assert not _crosses(wall, x, x + vx, y, y + vy), (move, wall)
                if not any(ok and all(legal for _, _, legal in events)
                           for ok, _, _, events in (g._walk(x, y, vx, vy, lay)
                                                    for lay in layers)):
                    continue  # a line crossed the wrong way on every layer
                for line in lines:
                    assert not wrong_way(line, x, y, vx, vy), (move, line)
    sx, sy = m.box_speeds
    seen, frontier = {g.initial()}, [g.initial()]
    while frontier:
        s = frontier.pop()
        assert abs(s.vx) <= sx and abs(s.vy) <= sy, s
        assert s == g.initial() or (s.vx, s.vy) != (0, 0), s
        for ax in (-1, 0, 1):
            for ay in (-1, 0, 1):
                v = g.move(s, (ax, ay))
                if v.valid and not v.arrives and v.state not in seen:
                    seen.add(v.state)
                    frontier.append(v.state)


@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-30, 30), st.integers(-30, 30),
       st.sampled_from(FAMILIES))
def test_a_sample_point_is_strictly_inside_the_cell_it_names(x: int, y: int, vx: int, vy: int,
                                                             family: tuple[int, int]) -> None:
    """n odd: the point p + (j/n) v is never on a cell edge, and rounding names the cell
    whose open square holds it."""
    j, n = family
    cx, cy = sample_point(x, y, vx, vy, j, n)
    px, py = Fraction(x) + Fraction(j, n) * vx, Fraction(y) + Fraction(j, n) * vy
    assert cx - Fraction(1, 2) < px < cx + Fraction(1, 2)
    assert cy - Fraction(1, 2) < py < cy + Fraction(1, 2)


def test_the_first_family_that_explains_a_jump() -> None:
    """A jump over a one-cell row is explained by the least n, then the least j, whose
    point falls on it; a move that touches no off cell at a sample is not explained."""
    row = frozenset((x, 3) for x in range(10))
    assert explaining_sample(row, 0, 0, 1, 7) == (2, 5)  # 1/3 and 2/3 miss row 3
    assert explaining_sample(row, 0, 0, 0, 5) == (2, 3)  # 2/3 of 5 is 3.33: row 3
    assert explaining_sample(row, 0, 4, 3, 2) is None


LLANURA = load_track(str(TRACKS / "llanura.toml"))


def test_llanura_has_six_row_walls() -> None:
    """The six hedges are the row walls (each run inside the box of end cells, columns 1
    to 38; with them CP-SAT refutes T = m* - 1 = 68 at once, no cut, no family:
    tests/certification/test_kinematics_cnf.py); the box speeds are 8 across, 11 down."""
    m = KinematicsModel.of(LLANURA, 68)
    assert m.row_walls == ((11, 1, 30), (22, 9, 38), (33, 1, 30), (44, 9, 38),
                           (55, 1, 30), (66, 9, 38))
    assert m.col_walls == () and m.box == (1, 38, 1, 76) and m.box_speeds == (8, 11)
