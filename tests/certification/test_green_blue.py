"""Green and blue by CP-SAT optimisation: exact against a brute force, agreeing with the
analysis, and disagreeing when the analysis or the move table is corrupted."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import HealthCheck, given, settings

from racecert.analysis.pipeline import analyze
from racecert.certification import green_blue_checks
from racecert.certification.context import CertifyContext
from racecert.independent.cpsat import race_model
from racecert.independent.cpsat_lengths import SCALE, exact_length, extreme_length, move_weight
from racecert.independent.movetable import MoveTable, move_table, race_table
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.oracle.bfs import layered_bfs
from tests import bruteforce
from tests.certification.test_geometry_crosscheck import RING_TRACK
from tests.strategies import small_tracks

ROOT = Path(__file__).resolve().parents[2]
STRAIGHT = """name = "straight 14x3"
[car]
position = [1, 2]
direction = "+x"
[start]
x = 2
y = [1, 3]
dir = "+x"
[finish]
x = 12
y = [1, 3]
dir = "+x"
[map]
ground = \"\"\"
##############
..............
..............
..............
##############
\"\"\"
"""


def brute_lengths(track) -> tuple[int, list[sympy.Expr]]:
    """m* and the exact length of every optimal trajectory, by the brute-force enumerator."""
    res = bruteforce.enumerate_optimal(track, depth_cap=12)
    assert res.m_star is not None
    moves = bruteforce._Moves(track)
    lengths: list[sympy.Expr] = []

    def walk(path: list[bruteforce.State]) -> None:
        t = len(path) - 1
        for o in moves.after(path[-1], t):
            if o.arrives and t + 1 == res.m_star:
                lengths.append(exact_length(tuple((s[0], s[1]) for s in [*path, o.state])))
            elif not o.arrives and t + 1 < res.m_star:
                walk([*path, o.state])

    walk([bruteforce.initial_state(track)])
    assert len(lengths) == res.total
    return res.m_star, lengths


def _ctx(track) -> CertifyContext:
    a = analyze(track)
    return CertifyContext(track, a.bfs, layered_bfs(track, "editor"), cpsat_budget=30,
                          analysis=a)


def test_move_weights_are_rounded_within_half_a_unit() -> None:
    for dx in range(-12, 13):
        for dy in range(-12, 13):
            w = move_weight(dx, dy)
            if (dx, dy) == (0, 0):
                assert w == 0
                continue
            # |w - SCALE*sqrt(n)| <= 1/2  <=>  (w - 1/2)^2 <= SCALE^2 n <= (w + 1/2)^2
            n = (dx * dx + dy * dy) * SCALE * SCALE
            assert Fraction(2 * w - 1, 2) ** 2 <= n <= Fraction(2 * w + 1, 2) ** 2


def assert_extremes(model: object, lengths: list) -> tuple:
    """Green and blue of `model` by `extreme_length` equal the brute force's least and
    greatest `lengths` with their exact tie counts; returns (green, blue)."""
    least = min(lengths, key=lambda e: float(e))
    most = max(lengths, key=lambda e: float(e))
    green = extreme_length(model, "green", budget=30)
    blue = extreme_length(model, "blue", budget=30)
    assert green.status == blue.status == "optimal"
    assert green.length == least and green.ties == sum(x == least for x in lengths)
    assert blue.length == most and blue.ties == sum(x == most for x in lengths)
    return green, blue


@pytest.mark.parametrize("text", [STRAIGHT, RING_TRACK])
def test_extremes_equal_the_brute_force(text: str) -> None:
    track = parse_track(text.encode())
    m, lengths = brute_lengths(track)
    assert_extremes(race_model(track, move_table(track, m), m, "exact"), lengths)


@settings(max_examples=12, suppress_health_check=list(HealthCheck))
@given(small_tracks(elevated=False))
def test_extremes_equal_the_brute_force_on_random_tracks(g) -> None:
    try:
        m, lengths = brute_lengths(g.track)
    except (AssertionError, bruteforce.WorkCapExceeded):
        return  # no arrival within the cap, or too many trajectories to enumerate here
    model = race_model(g.track, move_table(g.track, m), m, "exact")
    green = extreme_length(model, "green", budget=30)
    assert green.status == "optimal"
    least = min(lengths, key=lambda e: float(e))
    assert green.length == least and green.ties == sum(x == least for x in lengths)


@pytest.mark.parametrize("path", ["tracks/tiny_straight.toml", "tracks/4_esquinas.toml"])
def test_check_agrees_with_the_analysis(path: str) -> None:
    res = green_blue_checks.check_green_blue(_ctx(load_track(ROOT / path)))
    assert [r.verdict for r in res] == ["agree", "agree"]
    assert all(r.work for r in res)


def _with_green(ctx: CertifyContext, **change) -> CertifyContext:
    a = ctx.analysis
    assert a is not None and a.representatives is not None
    green = dataclasses.replace(a.representatives.green, **change)
    reps = dataclasses.replace(a.representatives, green=green)
    return dataclasses.replace(ctx, analysis=dataclasses.replace(a, representatives=reps))


def test_a_wrong_length_or_tie_count_disagrees() -> None:
    ctx = _ctx(parse_track(STRAIGHT.encode()))
    a = ctx.analysis
    assert a is not None and a.representatives is not None
    g = a.representatives.green
    wrong_length = _with_green(ctx, length=g.length + RadicalSum.parse("sqrt(2)"))
    res = green_blue_checks.check_green_blue(wrong_length)
    assert res[0].verdict == "disagree" and "lengths differ" in res[0].reason
    wrong_ties = _with_green(ctx, ties=g.ties + 1)
    res = green_blue_checks.check_green_blue(wrong_ties)
    assert res[0].verdict == "disagree" and "tie counts differ" in res[0].reason
    assert res[1].verdict == "agree"


def test_a_dropped_move_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the move green's trajectories start with, CP-SAT finds another length."""
    track = parse_track(STRAIGHT.encode())
    real = race_table(track)
    rows = tuple(r for r in real.rows if not (r[:2] == (1, 2) and r[2:4] == (2, 2)))
    assert len(rows) < len(real.rows)
    monkeypatch.setattr(green_blue_checks, "race_table",
                        lambda t, *floor: dataclasses.replace(real, rows=rows))
    res = green_blue_checks.check_green_blue(_ctx(track))
    assert "disagree" in [r.verdict for r in res]
    assert isinstance(real, MoveTable)


def test_a_table_over_the_size_budget_is_skipped_not_a_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing ran out of time: the check says `skipped`, with the budget and the size."""
    track = parse_track(STRAIGHT.encode())
    monkeypatch.setattr(green_blue_checks, "MAX_TABLE_ROWS", 3)
    res = green_blue_checks.check_green_blue(_ctx(track))
    assert [r.verdict for r in res] == ["skipped", "skipped"]
    assert all("rows, over the optimisation's size budget of 3 rows" in r.reason
               for r in res)
