"""The cell-path CP-SAT model of m* (`racecert.independent.cellpath.cpsat`) and its
certificate check (`cellpath_checks.check_m_star_cpsat`).

The model is compared with the brute force and the independent search on the seeded
random maps of `tests.cellpath.test_bruteforce`, and with a hand-worked map where the
half-up rounding of a diagonal tick decides m*; the check must disagree with a wrong m*
(one less, one more) and say `skipped` past its size budget, never `agree`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from racecert.analysis.lattice.pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification.cellpath.checks import CPSAT, check_m_star_cpsat
from racecert.certification.lattice.checks import lattice_context
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.cellpath import cpsat
from racecert.independent.cellpath.cpsat import build_table, replay, solve, speed_bound
from racecert.independent.cellpath.search import count_trajectories
from racecert.independent.cellpath.walk import accelerations
from racecert.independent.cpsat_core import Accelerations
from racecert.model.cellpath.track import CellPathTrack, start_cells
from racecert.model.parse import load_track
from tests.cellpath.test_bruteforce import SEEDS, map_and_brute

ROOT = Path(__file__).resolve().parents[2]


def _track(*rows: str, a: int = 1, cap: int | None = None) -> CellPathTrack:
    return CellPathTrack("t", len(rows[0]), len(rows), rows, start_cells(rows),
                         max_acceleration=a, speed_cap=cap)


def _m_star_by_model(t: CellPathTrack, m: int) -> tuple[str, str]:
    """(the status within m - 1 moves, the status at exactly m), the witness replayed."""
    table = build_table(t, speed_bound(t, m))
    below = solve(t, table, m - 1, t.starts, "within").status if m >= 2 else "infeasible"
    at = solve(t, table, m, t.starts, "exact")
    if at.status == "feasible":
        assert replay(t, at.positions[0], at.velocities) == (True, "ok", m)
        assert len(at.positions) == m + 1 and at.positions[0] in t.starts
    return below, at.status


@pytest.mark.parametrize("seed", SEEDS)
def test_the_model_agrees_with_the_brute_force_and_the_search(seed: int) -> None:
    t, b = map_and_brute(seed)
    assert count_trajectories(t, list(t.starts)).m_star == b.m_star
    if b.m_star is None:  # no proof of unreachability here: no arrival in a few moves
        table = build_table(t, speed_bound(t, 6))
        assert solve(t, table, 6, t.starts, "within").status == "infeasible"
        return
    assert _m_star_by_model(t, b.m_star) == ("infeasible", "feasible")


def test_the_acceleration_set_is_the_walks() -> None:
    for a in (1, 2, 3):
        t = _track("s..g", a=a)
        assert set(Accelerations(reach=a).members()) == set(accelerations(t))


def test_a_hand_worked_map_where_the_half_up_tick_decides() -> None:
    """From (0, 0) at rest with A = 2, the move of velocity (2, 1) ticks at
    (1, floor(1/2 + 1/2)) = (1, 1), then (2, 1), the goal: m* = 1 when (1, 1) is free, and
    the only arriving first move. Block (1, 1) and that move crashes; the car needs two
    moves, e.g. (1, 0) then (1, 1), whose one tick is the goal (2, 1)."""
    free = _track("s..", "x.g", a=2)
    assert _m_star_by_model(free, 1) == ("infeasible", "feasible")
    r = solve(free, build_table(free, 2), 1, free.starts, "exact")
    assert r.positions == ((0, 0), (2, 1)) and r.velocities == ((2, 1),)
    blocked = _track("s..", "xxg", a=2)
    assert solve(blocked, build_table(blocked, 2), 1, blocked.starts, "within").status \
        == "infeasible"
    assert _m_star_by_model(blocked, 2) == ("infeasible", "feasible")
    capped = _track("s...g", cap=1)  # one cell a move: four moves, where A = 1 needs three
    assert _m_star_by_model(capped, 4) == ("infeasible", "feasible")
    assert _m_star_by_model(_track("s...g"), 3) == ("infeasible", "feasible")


def test_the_table_is_refused_past_its_size_budget() -> None:
    t = _track("s...g")
    with pytest.raises(SizeBudgetExceeded, match="candidate moves"):
        build_table(t, 3, max_candidates=10)


def test_few_candidates_at_a_great_speed_are_refused_by_their_walks() -> None:
    """A tiny map at a huge speed: few candidates, but each a walk of vmax ticks (the
    review's case: 9 cells at vmax 80 took 8.8 s to tabulate under the candidate budget)."""
    t = _track("s...g")
    assert 4 * (2 * 80 + 1) ** 2 <= cpsat.MAX_TABLE_CANDIDATES  # the candidates fit
    with pytest.raises(SizeBudgetExceeded, match=r"ticks \(.* of up to 80 ticks\)"):
        build_table(t, 80)


def _small() -> CellPathTrack:
    """The first seeded map with m* >= 3 (so m* - 2 >= 1 is a real horizon)."""
    return next(t for t, b in map(map_and_brute, SEEDS) if b.m_star and b.m_star >= 3)


def _check(a: LatticeAnalysis, **limits: object) -> tuple:
    (r,) = check_m_star_cpsat(lattice_context(a, **limits))
    assert r.figure == "m_star" and r.method == CPSAT
    return r


def test_the_check_catches_a_wrong_m_star() -> None:
    a = analyze_lattice(_small())
    m = a.bfs.m_star
    assert _check(a).verdict == "agree"
    for wrong in (m - 1, m + 1):
        bad = dataclasses.replace(a, bfs=dataclasses.replace(a.bfs, m_star=wrong))
        r = _check(bad)
        assert r.verdict == "disagree", (wrong, r.reason)


def test_past_the_size_limit_the_check_is_skipped_not_agreed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    a = analyze_lattice(_small())
    monkeypatch.setattr(cpsat, "MAX_TABLE_CANDIDATES", 10)
    r = _check(a)
    assert r.verdict == "skipped" and "over the size limit" in r.reason
    assert "candidate moves" in r.reason and r.method_value is None


def test_out_of_budget_the_check_is_a_timeout_not_an_agreement() -> None:
    # chicane, the smaller bundled map (3,671 table rows, not hairpin's 11,002): the
    # solver loads the whole model before its budget is counted
    t = load_track(ROOT / "tracks" / "cellpath" / "chicane.toml")
    r = _check(analyze_lattice(t), cpsat_budget=0.001)
    assert r.verdict == "timeout" and "deterministic time" in r.reason
