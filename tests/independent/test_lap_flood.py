"""The cell flood from beyond the finish (`racecert.independent.lap_flood`).

It may only ever conclude "stage", and only soundly: wherever it does, the exhaustive
searches (the independent `first_continuable` in the exact key and the oracle's
`lap_aptitude`) must say stage too — on every bundled track and on random small tracks.
Its single steps are compared with fastgeom's unit moves, and corrupted tracks (a
corner slip, a one-cell gap) show that it does not conclude where a car can return.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.generate import open_area
from racecert.independent import lap_flood
from racecert.independent.fastgeom import NOT_ENDABLE, OK, WRONG_WAY, FastGeometry
from racecert.independent.lap_flood import finish_flood
from racecert.independent.laps import first_continuable
from racecert.model.parse import load_track, parse_track
from racecert.model.track import Track
from racecert.oracle.laps import lap_aptitude
from tests.oracle.test_laps import brute_two_laps
from tests.strategies import make_track, small_circuits, small_tracks

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
BUNDLED = sorted(str(p.relative_to(TRACKS)) for p in
                 [*TRACKS.glob("*.toml"), *TRACKS.glob("limits/*.toml")])

# the bundled stages the flood decides; the others (circuits, and the two rings that the
# opening rule makes stages, docs/continuity.md example 4) need the exhaustive search
FLOOD_DECIDES = {
    "apertura.toml", "arcenes.toml", "caleidoscopio.toml", "candelabro.toml", "espiral.toml",
    "limits/opening_speed1.toml", "limits/opening_speed2.toml", "llanura.toml",
    "mini_apertura.toml", "mini_arcen.toml", "tiny_opening_shadow.toml",
    "tiny_spiral_stage.toml", "tiny_straight.toml",
}


def _agrees_with_the_exhaustive_searches(track: Track) -> bool:
    """Check soundness on one track; return whether the flood decided."""
    v = finish_flood(track)
    if v.stage:
        assert v.witness is None and "no arrival can be followed by another" in v.reason
        exact = first_continuable(track, "exact", max_states=2_000_000)
        assert exact.kind in ("stage", None), (exact.kind, v.reason)
        assert lap_aptitude(track).kind == "stage"
    else:
        assert v.witness is not None and "does not decide" in v.reason
    return v.stage


@pytest.mark.parametrize("name", BUNDLED)
def test_the_flood_agrees_with_the_exhaustive_searches_on_bundled_tracks(name: str) -> None:
    track = load_track(TRACKS / name)
    assert _agrees_with_the_exhaustive_searches(track) == (name in FLOOD_DECIDES)
    if name in FLOOD_DECIDES:
        assert track.kind == "stage"


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_tracks())
def test_the_flood_agrees_with_brute_force_on_random_small_tracks(gen) -> None:
    """Random stages and rings with walls, shoulders, bridges (lines on either layer) and
    opening rules: where the flood says stage, the brute-force two-lap closure finds no
    second arrival and the independent search says stage."""
    track = gen.track
    if _agrees_with_the_exhaustive_searches(track):
        assert not brute_two_laps(track)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_circuits())
def test_the_flood_never_decides_a_ring(gen) -> None:
    """Rings with opening rules: the map leads back, so the flood must not decide (even
    where the opening rule makes the ring a stage: only the exhaustive search sees it)."""
    assert not finish_flood(gen.track).stage


def test_the_flood_decides_some_random_tracks() -> None:
    """The random test above is not vacuous: most drawn stages are decided by the flood."""
    decided = []

    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(small_tracks(rings=False))
    def draw(gen) -> None:  # type: ignore[no-untyped-def]
        decided.append(finish_flood(gen.track).stage)

    draw()
    assert len(decided) >= 40 and sum(decided) >= len(decided) // 2


def _unit_steps_match_fastgeom(track: Track) -> int:
    """Every unit move (v' of length 1 from rest) of every drivable node, both progress
    values: the flood's step and fastgeom's move agree on wrong-way validity, the layer
    landed in, the new progress and the arrival. Returns the moves compared."""
    g = FastGeometry(track)
    fl = lap_flood._Flood(track)
    layer, y, x = (a.astype(np.int64) for a in np.nonzero(fl.drive))
    n = len(x)
    compared = 0
    for progress in (0, 1):
        zero = np.zeros(n, dtype=np.int64)
        m = g.classify(x, y, zero, zero, layer, np.full(n, progress), np.full(n, g.k))
        for dx, dy in lap_flood.STEPS:
            rows = np.arange(n) * 9 + (dx + 1) * 3 + (dy + 1)
            code = m.code[rows]
            ok, landed, _, _, s, f = fl.steps(x, y, layer, dx, dy)
            judged = (code == OK) | (code == WRONG_WAY)
            assert (ok[judged] == (code[judged] == OK)).all()
            assert (~ok[~judged & (code != NOT_ENDABLE)]).all()  # off-track, off the grid
            good = code == OK
            arrives = f & (progress == 1)
            assert (m.arrives[rows][good] == arrives[good]).all()
            assert (m.layer[rows][good] == landed[good]).all()
            stays = good & ~arrives
            assert (m.progress[rows][stays] == np.where(s, 1, progress)[stays]).all()
            compared += int(good.sum())
    return compared


@pytest.mark.parametrize("name", ["ocho.toml", "tiny_circuit_race_vs_editor.toml",
                                  "tiny_spiral_stage.toml"])
def test_unit_steps_match_fastgeom_on_bundled_tracks(name: str) -> None:
    assert _unit_steps_match_fastgeom(load_track(TRACKS / name)) > 0


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(small_tracks(opening=False))
def test_unit_steps_match_fastgeom_on_random_tracks(gen) -> None:
    _unit_steps_match_fastgeom(gen.track)


# -- corruption: a way back through a corner or a one-cell gap --------------------------

# A ring round a wall block. The car at (3, 1) crosses S (x = 7/2) on row 1, goes round
# and crosses F (y = 5/2, upwards) in column 1, arriving at (1, 2); (1, 1) is a wall. GAP
# is (2, 1): a wall makes the finish a dead end (a stage); open, the car slips from (1, 2)
# to (2, 1) between the walls (1, 1) and (2, 2), which meet only at a corner, and goes on.
RING = """
##########
##G......#
#.######.#
#.######.#
#.######.#
#........#
##########
"""


def _ring(gap: str) -> Track:
    return make_track(RING.replace("G", gap), car=(3, 1), direction="+x",
                      start={"x": 3, "y": [1, 1], "dir": "+x"},
                      finish={"y": 2, "x": [1, 1], "dir": "-y"})


def test_a_walled_dead_end_is_a_stage_by_the_flood() -> None:
    track = _ring("#")
    assert _agrees_with_the_exhaustive_searches(track)
    assert not brute_two_laps(track)


def test_a_one_cell_gap_through_a_corner_is_not_concluded() -> None:
    """The open gap is reached only by a corner step: the flood must not decide, and the
    exhaustive searches find a circuit. A flood over side steps only would wrongly
    conclude stage here: the corruption the agreement tests catch."""
    track = _ring(".")
    v = finish_flood(track)
    assert not v.stage and "does not decide" in v.reason
    assert first_continuable(track, "exact").kind == "circuit"
    assert lap_aptitude(track).kind == "circuit" and brute_two_laps(track)


def test_a_flood_without_corner_steps_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lap_flood, "STEPS", ((1, 0), (-1, 0), (0, 1), (0, -1)))
    track = _ring(".")
    assert finish_flood(track).stage  # the unsound flood concludes ...
    with pytest.raises(AssertionError):  # ... and the agreement check refuses it
        _agrees_with_the_exhaustive_searches(track)


def test_a_gap_round_the_end_of_the_finish_leads_nothing_back_past_the_start() -> None:
    """An open area whose finish (x = 20 + 1/2) stops at row 8 against a wall cell (21, 9)
    beyond it; row 10 is open, so the car can drive back round the end of F — but never
    back before S, which spans the whole height, without crossing S the wrong way. The
    flood covers cells on both sides of F and still decides stage."""
    rows = ["#" * 30] + ["#" + "." * 28 + "#"] * 10 + ["#" * 30]
    rows[9] = rows[9][:21] + "#" + rows[9][22:]
    track = make_track("\n".join(rows), car=(1, 5), direction="+x",
                       start={"x": 1, "y": [1, 10], "dir": "+x"},
                       finish={"x": 20, "y": [1, 8], "dir": "+x"})
    v = finish_flood(track)
    assert v.stage and v.reached > 8 * 10  # more than the cells beyond F
    assert _agrees_with_the_exhaustive_searches(track)


def test_open_area_decided_by_the_flood() -> None:
    """The shape of the open 200x200 benchmark at 60x60: the flood covers the cells beyond
    the finish and concludes at once, with no state searched."""
    track = parse_track(open_area(60, 30, 50).encode(), "open 60")
    v = finish_flood(track)
    assert v.stage and v.started == 0 and v.sources == 58
    assert v.reached == 8 * 58  # the cells beyond F: x = 51..58 on rows 1..58
    assert "none past a legal start crossing" in v.reason
