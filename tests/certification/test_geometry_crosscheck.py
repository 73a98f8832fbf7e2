"""The independent geometry (racecert.independent.geometry) against the model's rules.

Whole small tracks are cross-checked move by move (all 9 accelerations from
every reachable state); bundled tracks up to a state cap. A deliberately wrong
geometry must make the cross-check fail and name the move.
"""

from __future__ import annotations

import ast
import random
from fractions import Fraction
from pathlib import Path

import pytest

from racecert.certification.geometry_check import crosscheck_geometry
from racecert.independent.geometry import Geometry, Verdict, VState, touched_cells
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Car, Line, Opening, Track

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = sorted((ROOT / "tracks").glob("*.toml"))

RAMP_TRACK = '''name = "Ramp bridge"
kind = "stage"
[car]
position = [1, 2]
direction = "+x"
[start]
x = 1
y = [1, 3]
dir = "+x"
[finish]
x = 10
y = [1, 3]
dir = "+x"
[opening]
moves = 2
max_speed = 2
straight = true
[map]
ground = """
##############
#...:/##/....#
#.....##.:...#
#...../#/....#
##############
"""
elevated = """

     /==/
      ==
      /=/

"""
'''

RING_TRACK = '''name = "Ring"
kind = "circuit"
[car]
position = [2, 1]
direction = "+x"
[start]
x = 2
y = [1, 1]
dir = "+x"
[finish]
x = 1
y = [1, 1]
dir = "+x"
[map]
ground = """
##########
#........#
#.######.#
#.#....#:#
#.######.#
#........#
##########
"""
'''


def random_track(seed: int) -> Track:
    """A random two-layer grid built directly (no validation: geometry needs none).

    Ramps, shoulders, overpasses, lines on either layer, crossing bridges and an
    optional opening rule all occur; the car sits on ground asphalt.
    """
    rng = random.Random(seed)
    w, h = rng.randint(5, 9), rng.randint(4, 7)
    ground = [[rng.choice("....:#/") for _ in range(w)] for _ in range(h)]
    elev = [[rng.choice("  ==:") for _ in range(w)] for _ in range(h)]
    for y in range(h):
        for x in range(w):
            if ground[y][x] == "/" or (elev[y][x] != " " and rng.random() < 0.1):
                ground[y][x] = elev[y][x] = "/"
    cx, cy = rng.randrange(w), rng.randrange(h)
    ground[cy][cx] = "."
    elev[cy][cx] = " " if elev[cy][cx] == "/" else elev[cy][cx]

    def line() -> Line:
        axis = rng.choice("xy")
        n_fixed, n_span = (w, h) if axis == "x" else (h, w)
        lo = rng.randrange(n_span)
        hi = rng.randrange(lo, n_span)
        return Line(axis, rng.randrange(n_fixed - 1), lo, hi,  # type: ignore[arg-type]
                    rng.choice(("+", "-")) + axis, rng.choice((0, 1)))

    def box(ln: Line) -> tuple[tuple[int, int], tuple[int, int]]:
        f, span = (2 * ln.k + 1, 2 * ln.k + 1), (2 * ln.lo - 1, 2 * ln.hi + 1)
        return (f, span) if ln.axis == "x" else (span, f)

    start = line()
    while True:  # : S and F must not intersect (a tie in t would be undefined)
        finish = line()
        (ax, ay), (bx, by) = box(start), box(finish)
        if not (ax[0] <= bx[1] and bx[0] <= ax[1] and ay[0] <= by[1] and by[0] <= ay[1]):
            break
    opening = None
    if rng.random() < 0.5:
        opening = Opening(rng.randint(1, 3), rng.choice((None, 1, 2)), rng.random() < 0.5)
    return Track(
        name=f"random {seed}", width=w, height=h,
        ground=tuple("".join(r) for r in ground), elevated=tuple("".join(r) for r in elev),
        car=Car((cx, cy), rng.choice(("+x", "-x", "+y", "-y"))),  # type: ignore[arg-type]
        start=start, finish=finish, opening=opening)


# -- the geometry itself, on hand-worked cases ----------------------------------------


def test_touched_cells_hand_worked() -> None:
    assert [c[:2] for c in touched_cells(2, 1)] == [(0, 0), (1, 0), (1, 1), (2, 1)]
    # exactly through corners: only the diagonal cells
    assert [c[:2] for c in touched_cells(2, 2)] == [(0, 0), (1, 1), (2, 2)]
    assert [c[2] for c in touched_cells(3, 0)] == [0, Fraction(1, 6), Fraction(1, 2),
                                                   Fraction(5, 6)]
    assert [c[:2] for c in touched_cells(-1, 3)] == [(0, 0), (0, 1), (-1, 2), (-1, 3)]
    # (3, 1) passes exactly through the corner (1.5, 0.5): (1, 1) and (2, 0) untouched
    assert [c[:2] for c in touched_cells(3, 1)] == [(0, 0), (1, 0), (2, 1), (3, 1)]
    assert [c[2] for c in touched_cells(3, 1)] == [0, Fraction(1, 6), Fraction(1, 2),
                                                   Fraction(5, 6)]


def test_geometry_hand_worked_moves() -> None:
    g = Geometry(parse_track(RING_TRACK.encode()))
    v = g.move(VState(2, 1), (1, 0))
    assert v.valid and v.state == VState(3, 1, 1, 0, 0, 1, 0) and not v.arrives
    assert g.move(VState(2, 1), (-1, 0)).reason == "wrong way over the finish line"
    assert g.move(VState(2, 1), (0, 0)).reason == "zero velocity"
    assert not g.move(VState(2, 1), (0, 1)).valid  # into the wall
    assert not g.move(VState(8, 2, 0, 0), (0, 1)).valid  # ends on the shoulder (8, 3)
    assert g.move(VState(8, 2, 0, 1), (0, 1)).valid  # passes over it to (8, 4)
    v = g.move(VState(1, 2, 0, -1, 0, 1), (1, 0))  # (1,2) -> (2,1): F at its corner end
    assert v.valid and v.arrives and v.state is not None and v.state.progress == 0
    v = g.move(VState(1, 1, 1, 0, 0, 1), (1, 0))  # (1,1) -> (3,1) crosses F then S
    assert v.valid and v.arrives and v.state is not None and v.state.progress == 1


def test_geometry_layers_and_opening() -> None:
    g = Geometry(parse_track(RAMP_TRACK.encode()))
    # opening: straight, max speed 2 during moves 1..2
    assert g.move(VState(1, 2), (1, 1)).reason == "opening rule"
    assert g.move(VState(1, 2, 2, 0, 0, 1, 1), (1, 0)).reason == "opening rule"
    assert g.move(VState(1, 2, 2, 0, 0, 1, 2), (1, 0)).valid
    # up the ramp at (5, 1) onto the bridge (layer 1), down at (8, 1)
    up = g.move(VState(4, 1, 1, 0, 0, 1, 2), (0, 0))
    assert up.valid and up.state is not None and up.state.layer == 0  # (5, 1) is the ramp
    on = g.move(VState(5, 1, 1, 0, 0, 1, 2), (0, 0))
    assert on.valid and on.state is not None and on.state.layer == 1
    # without a ramp before it, the bridge cell is off-track in layer 0
    assert not g.move(VState(5, 2, 1, 0, 0, 1, 2), (0, 0)).valid


def _racecert_imports(name: str) -> set[str]:
    tree = ast.parse((ROOT / "racecert" / "independent" / name).read_text())
    mods = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    mods |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return {m for m in mods if m and m.startswith("racecert")}


def test_no_forbidden_imports() -> None:
    """The independent geometry may read Track data only (and the independent race rules,
    which read Track data only)."""
    assert _racecert_imports("geometry.py") == {"racecert.model.track",
                                                "racecert.independent.race_rules"}
    assert _racecert_imports("race_rules.py") == {"racecert.model.track"}


# -- the cross-check ------------------------------------------------------------------


@pytest.mark.parametrize("text", [RAMP_TRACK, RING_TRACK])
def test_crosscheck_agrees_on_whole_small_tracks(text: str) -> None:
    r = crosscheck_geometry(parse_track(text.encode()))
    assert r.complete and r.agree, [str(d) for d in r.disagreements[:5]]
    assert r.moves == 9 * r.states and r.valid_moves > 0 and r.arriving_moves > 0


@pytest.mark.parametrize("seed", range(40))
def test_crosscheck_agrees_on_random_tracks(seed: int) -> None:
    r = crosscheck_geometry(random_track(seed), max_states=3000)
    assert r.agree, [str(d) for d in r.disagreements[:5]]
    assert r.moves == 9 * r.states


def test_random_tracks_exercise_the_rules() -> None:
    """The random family reaches layer changes, arrivals and many moves (else it tests little)."""
    layers = arrivals = 0
    for seed in range(40):
        t = random_track(seed)
        g = Geometry(t)
        r = crosscheck_geometry(t, max_states=3000, scalar=False, verify_geometry=g)
        arrivals += r.arriving_moves
        layers += any(k[4] != res[2] for k, res in g._walk_cache.items() if res[0])
    assert arrivals > 0 and layers >= 5


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_crosscheck_agrees_on_bundled_tracks(path: Path) -> None:
    r = crosscheck_geometry(load_track(path), max_states=4000, scalar=False)
    assert r.agree, [str(d) for d in r.disagreements[:5]]
    assert r.states > 0


class _ShoulderEndable(Geometry):
    """A wrong geometry: the move's layer walk ignores the shoulder rule at the end."""

    def endable(self, layer: int, x: int, y: int) -> bool:
        return self.surface(layer, x, y) != 0


class _WrongWayIgnored(Geometry):
    """A wrong geometry: crossing a line against its direction is allowed."""

    def move(self, s: VState, accel: tuple[int, int]) -> Verdict:
        v = super().move(s, accel)
        if not v.valid and v.reason.startswith("wrong way"):
            vx, vy = s.vx + accel[0], s.vy + accel[1]
            return Verdict(True, "ok", VState(s.x + vx, s.y + vy, vx, vy, s.layer, s.progress,
                                              min(s.phase + 1, self.k)))
        return v


@pytest.mark.parametrize("wrong", [_ShoulderEndable, _WrongWayIgnored])
def test_crosscheck_fails_on_a_wrong_geometry(wrong: type[Geometry]) -> None:
    t = parse_track(RING_TRACK.encode())
    r = crosscheck_geometry(t, verify_geometry=wrong(t))
    assert not r.agree
    d = r.disagreements[0]
    assert len(d.state) == 7 and d.accel in {(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
    assert "state (x, y, vx, vy, layer, progress, phase)" in str(d) and "model says" in str(d)
