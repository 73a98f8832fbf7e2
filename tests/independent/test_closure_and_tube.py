"""The reachable-move table and the per-step narrowing of the time-indexed models.

Both only shrink a model: the closure table must hold exactly the rows of the full
table a car can use from its start (a brute-force closure over the full table says
which), and a narrowed model must have exactly the solutions of the unnarrowed one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.independent.cpsat import count_solutions, race_model, solve
from racecert.independent.movetable import (
    MoveTable,
    TableBudget,
    build_move_table,
    reachable_move_table,
)
from racecert.independent.race_rules import initial_state
from racecert.independent.tube import step_rows
from racecert.model.parse import load_track, parse_track
from racecert.oracle.bfs import layered_bfs
from tests.certification.test_geometry_crosscheck import RAMP_TRACK, RING_TRACK

ROOT = Path(__file__).resolve().parents[2]
SMALL = [parse_track(RING_TRACK.encode()), parse_track(RAMP_TRACK.encode()),
         load_track(ROOT / "tracks" / "tiny_straight.toml"),
         load_track(ROOT / "tracks" / "mini_apertura.toml"),
         load_track(ROOT / "tracks" / "tiny_opening_shadow.toml")]


def _brute_closure(table: MoveTable, start: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Rows of `table` usable from `start` and from every state they reach (plain loops)."""
    seen, stack, used = {start}, [start], set()
    while stack:
        x, y, vx, vy, lay = stack.pop()
        for r in table.rows:
            dx, dy = r[2] - r[0], r[3] - r[1]
            if (r[0], r[1], r[4]) == (x, y, lay) and abs(dx - vx) <= 1 and abs(dy - vy) <= 1:
                used.add(r)
                nxt = (r[2], r[3], dx, dy, r[5])
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return used


@pytest.mark.parametrize("track", SMALL, ids=lambda t: t.name)
def test_closure_table_is_the_brute_force_closure(track) -> None:
    start = initial_state(track)[:5]
    closure = reachable_move_table(track, [start], "the car at rest")
    full = build_move_table(track, max(track.width, track.height))
    assert set(closure.rows) == _brute_closure(full, start)
    assert list(closure.rows) == sorted(closure.rows)  # deterministic order
    assert "superset" in closure.scope


def test_closure_budget_is_a_named_error() -> None:
    track = SMALL[3]
    with pytest.raises(TableBudget, match="budget of 3 states"):
        reachable_move_table(track, [initial_state(track)[:5]], "rest", max_states=3)


@pytest.mark.parametrize("track", SMALL, ids=lambda t: t.name)
def test_narrowed_models_have_the_same_solutions(track) -> None:
    b = layered_bfs(track, "exact")
    m = b.m_star
    table = reachable_move_table(track, [initial_state(track)[:5]], "rest")
    for narrow in (True, False):
        assert solve(race_model(track, table, m - 1, "within", narrow=narrow)).status \
            == "infeasible"
        assert solve(race_model(track, table, m, "exact", narrow=narrow)).status == "feasible"
    wide = count_solutions(race_model(track, table, m, "exact", narrow=False))
    narrow = count_solutions(race_model(track, table, m, "exact"))
    assert wide.complete and narrow.complete
    assert narrow.count == wide.count == b.optimal_count
    steps = race_model(track, table, m, "exact").step_rows
    assert steps is not None and len(steps) == m
    assert sum(map(len, steps)) < m * len(table)  # it does narrow


def test_tube_keeps_only_rows_on_the_way_to_a_finish_crossing() -> None:
    # (0,0) -> (1,0) -> (3,0) crosses the finish; (1,0) -> (1,1) leads nowhere
    rows = [(0, 0, 1, 0, 0, 0, 0, 0, 0), (1, 0, 3, 0, 0, 0, 0, 1, 0),
            (1, 0, 1, 1, 0, 0, 0, 0, 0)]
    steps = step_rows(rows, (0, 0, 0, 0, 0), 2)
    assert steps == ((rows[0],), (rows[1],))
    # a horizon too short to reach the crossing keeps nothing at step 0
    assert step_rows(rows, (0, 0, 0, 0, 0), 1) == ((),)


def test_a_closure_over_budget_is_remembered_and_every_check_says_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the closure's size budget, every table-based check says `skipped` (never
    `timeout`: nothing ran out of time) naming the budget and the size, and the closure is
    not rebuilt by each of them."""
    from racecert.analysis.pipeline import analyze
    from racecert.certification import checks_cpsat, green_blue_checks, sat_checks
    from racecert.certification.context import CertifyContext
    from racecert.independent import movetable

    calls = []

    def over(track, starts, what, **_):
        calls.append(what)
        raise TableBudget("the reachable-move closure", 2, 1, "states", at_least=True)

    movetable.clear_closure_cache()
    monkeypatch.setattr(movetable, "reachable_move_table", over)
    track = SMALL[2]
    a = analyze(track, "exact")
    ctx = CertifyContext(track, a.bfs, a.bfs, analysis=a)
    try:
        results = (checks_cpsat.check_m_star(ctx) + checks_cpsat.check_count(ctx)
                   + green_blue_checks.check_green_blue(ctx) + sat_checks.check_sat(ctx))
    finally:
        movetable.clear_closure_cache()
    assert {r.verdict for r in results} == {"skipped"}
    assert all("at least 2 states, over its size budget of 1 states" in r.reason
               for r in results)
    assert calls == ["the car's initial state"]
