"""The reachable-move closure refused from a known floor instead of built past its budget.

`evidence.closure_floor` bounds the closure's states (x, y, vx, vy, layer) from below by
the independent search's stored states; `movetable.race_table(track, floor)` refuses a
closure whose floor is over the budget without building it (on corridor 5000 x 5 that
saved ~2 s of the certificate), and every check that reads the table says `skipped`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from racecert.certification.checks_cpsat import check_m_star
from racecert.certification.context import CertifyContext, Verdict
from racecert.certification.evidence import closure_floor, independent_search
from racecert.independent import movetable
from racecert.independent.movetable import DEFAULT_CLOSURE_STATES, TableBudget, race_table
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def ctx_of(name: str) -> CertifyContext:
    track = load_track(TRACKS / f"{name}.toml")
    return CertifyContext(track, layered_bfs(track, "exact"), None)


def closure_states(table: movetable.MoveTable) -> int:
    """The states the closure visited, as its scope states them."""
    found = re.search(r"\(([\d,]+) states \(x, y, vx, vy, layer\)", table.scope)
    assert found, table.scope
    return int(found.group(1).replace(",", ""))


@pytest.mark.parametrize("name", ["tiny_straight", "apertura", "tiny_opening_shadow",
                                  "tiny_circuit_race_vs_editor", "espiral", "ocho"])
def test_the_floor_never_exceeds_the_closure(name: str) -> None:
    """On tracks with and without an opening rule, bridges, circuits and stages."""
    ctx = ctx_of(name)
    movetable.clear_closure_cache()
    n = closure_states(race_table(ctx.track))
    floor = closure_floor(ctx)
    assert 0 < floor <= n
    # the floor is the search's states shared out over progress and opening phase
    k = ctx.track.opening.moves if ctx.track.opening else 0
    assert floor == -(-independent_search(ctx.track, ctx.max_states).states_explored
                      // (2 * (k + 1)))


def test_a_floor_over_the_budget_refuses_the_closure_without_building_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the closure was built")

    track = load_track(TRACKS / "tiny_straight.toml")
    movetable.clear_closure_cache()
    monkeypatch.setattr(movetable, "reachable_move_table", never)
    try:
        with pytest.raises(TableBudget) as info:
            race_table(track, DEFAULT_CLOSURE_STATES + 1)
        assert str(info.value) == (
            f"the reachable-move closure holds at least {DEFAULT_CLOSURE_STATES + 1:,} "
            f"states, over its size budget of {DEFAULT_CLOSURE_STATES:,} states (counted "
            "from the states a search already reached)")
        with pytest.raises(TableBudget):  # the next check gets the same verdict
            race_table(track)
    finally:
        movetable.clear_closure_cache()


def test_a_floor_within_the_budget_builds_the_closure() -> None:
    track = load_track(TRACKS / "tiny_straight.toml")
    movetable.clear_closure_cache()
    try:
        assert len(race_table(track, DEFAULT_CLOSURE_STATES)) > 0
    finally:
        movetable.clear_closure_cache()


def test_the_cpsat_check_is_skipped_from_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a budget below the search's states, CP-SAT's m* check is `skipped` (never
    `timeout`) with the floor as the measured size, and nothing is built."""
    ctx = ctx_of("espiral")
    floor = closure_floor(ctx)
    monkeypatch.setattr(movetable, "DEFAULT_CLOSURE_STATES", floor - 1)
    monkeypatch.setattr(movetable, "reachable_move_table",
                        lambda *a, **k: pytest.fail("the closure was built"))
    movetable.clear_closure_cache()
    try:
        (r,) = check_m_star(ctx)
    finally:
        movetable.clear_closure_cache()
    assert r.verdict == Verdict.SKIPPED
    assert f"at least {floor:,} states" in r.reason and "counted from" in r.reason
