"""The time-indexed CP-SAT model against the BFS oracle on whole small tracks.

A corrupted move table (a missing or an extra row) must change the answer:
the model depends on its table and nothing else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.independent.cpsat import count_solutions, race_model, solve
from racecert.independent.geometry import Geometry
from racecert.independent.movetable import MoveTable, move_table
from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_geometry_crosscheck import RAMP_TRACK, RING_TRACK

ROOT = Path(__file__).resolve().parents[2]
SMALL = [parse_track(RING_TRACK.encode()), parse_track(RAMP_TRACK.encode()),
         load_track(ROOT / "tracks" / "tiny_straight.toml")]


@pytest.mark.parametrize("track", SMALL, ids=lambda t: t.name)
def test_m_star_count_and_witness_match_the_bfs(track) -> None:
    b = layered_bfs(track, "exact")
    m = b.m_star
    table = move_table(track, m)
    assert solve(race_model(track, table, m - 1, "within")).status == "infeasible"
    r = solve(race_model(track, table, m, "exact"))
    assert r.status == "feasible" and len(r.positions) == m + 1
    assert Geometry(track).replay(list(r.positions)) == (True, "ok")
    c = count_solutions(race_model(track, table, m, "exact"))
    assert c.complete and c.count == b.optimal_count


def test_within_mode_accepts_shorter_arrivals() -> None:
    track = SMALL[0]
    m = layered_bfs(track, "exact").m_star
    table = move_table(track, m + 3)
    r = solve(race_model(track, table, m + 3, "within"))
    assert r.status == "feasible" and len(r.positions) - 1 <= m + 3
    assert Geometry(track).replay(list(r.positions)) == (True, "ok")


def test_count_limit_is_reported() -> None:
    track = SMALL[0]
    b = layered_bfs(track, "exact")
    assert b.optimal_count > 1
    c = count_solutions(race_model(track, move_table(track, b.m_star), b.m_star, "exact"),
                        limit=1)
    assert c.count is None and not c.complete and "more than 1" in c.reason


def _without(table: MoveTable, row: tuple[int, ...]) -> MoveTable:
    return MoveTable(tuple(r for r in table.rows if r != row), table.vmax, table.endable,
                     table.scope, 0.0)


def test_a_missing_table_row_changes_the_answer() -> None:
    """Remove one move of the only optimal trajectory: m* at T fails."""
    track = SMALL[2]  # tiny straight: m* = 3, one optimal trajectory
    b = layered_bfs(track, "exact")
    table = move_table(track, b.m_star)
    r = solve(race_model(track, table, b.m_star, "exact"))
    (x0, y0), (x1, y1) = r.positions[0], r.positions[1]
    row = next(t for t in table.rows if t[:4] == (x0, y0, x1, y1))
    broken = _without(table, row)
    assert solve(race_model(track, broken, b.m_star, "exact")).status == "infeasible"


def test_an_extra_table_row_changes_the_answer() -> None:
    """A teleport over the finish line: the model arrives earlier than the BFS's m*."""
    track = SMALL[2]
    table = move_table(track, 3)
    x, y = track.car.position
    bogus = (x, y, x + 1, y, 0, 0, 1, 1, 1)  # claims to cross both lines in one step
    t2 = MoveTable(table.rows + (bogus,), table.vmax, table.endable, table.scope, 0.0)
    assert solve(race_model(track, t2, 1, "within")).status == "feasible"
    assert solve(race_model(track, table, 1, "within")).status == "infeasible"


def test_the_opening_rule_is_time_indexed() -> None:
    """Under the opening rule the witness's first two moves are straight, at most 2 cells."""
    track = SMALL[1]  # straight, max speed 2 for 2 moves
    b = layered_bfs(track, "exact")
    table = move_table(track, b.m_star)
    with_rule = race_model(track, table, b.m_star, "exact")
    r = solve(with_rule)
    steps = [(q[0] - p[0], q[1] - p[1]) for p, q in zip(r.positions, r.positions[1:],
                                                          strict=False)]
    assert all(dy == 0 and abs(dx) <= 2 for dx, dy in steps[:2])
