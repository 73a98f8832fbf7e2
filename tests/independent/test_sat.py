"""The reachability-cut CNF and its checked certificates on tiny tracks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from racecert.certification.sat_checks import sat_certificate, sat_checks
from racecert.independent.drup import check_drup
from racecert.independent.geometry import Geometry
from racecert.independent.movetable import build_move_table
from racecert.independent.onehot import (
    build_onehot_cnf,
    cell_relaxation,
    decode_onehot,
    solve_onehot,
)
from racecert.independent.race_rules import table_successors
from racecert.independent.sat import build_reach_cnf, solve_reach, untimed_closure
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

TINY = Path(__file__).resolve().parents[2] / "tracks" / "tiny_straight.toml"


def _setup(horizon: int):
    track = load_track(TINY)
    table = build_move_table(track, 4)
    succ = table_successors(table, track)
    s0 = (1, 1, 0, 0, 0, 0)
    closure = untimed_closure(succ, s0, 0)
    return track, table, build_reach_cnf(track, succ, s0, horizon, 0, closure)


def test_horizon_below_m_star_is_unsat_with_a_checked_proof(tmp_path: Path) -> None:
    _, _, cnf = _setup(2)
    res = solve_reach(cnf, "glucose4", tmp_path / "p.drup")
    assert not res.satisfiable
    assert (tmp_path / "p.drup").exists()
    assert check_drup(cnf.clauses, list(res.proof_lines)).verified


def test_horizon_m_star_gives_the_hand_worked_trajectory() -> None:
    _, _, cnf = _setup(3)
    res = solve_reach(cnf)
    assert res.satisfiable and res.trajectory is not None
    assert [s[:2] for s in res.trajectory] == [(1, 1), (2, 1), (4, 1), (7, 1)]


def test_certificate_agrees_with_the_bfs(tmp_path: Path) -> None:
    track = load_track(TINY)
    bfs = layered_bfs(track, "exact")
    checks = sat_checks(track, bfs, tmp_path)
    assert [c.verdict for c in checks] == ["agree"] * 4
    assert dict(checks[0].artefacts)["proof check"] == "verified"
    assert checks[1].method_value == bfs.m_star


def test_dropping_the_goal_literal_check_rejects_the_proof() -> None:
    """A proof of UNSAT for a satisfiable CNF must be rejected by the checker."""
    _, _, unsat = _setup(2)
    res = solve_reach(unsat)
    _, _, sat = _setup(3)
    assert not check_drup(sat.clauses, list(res.proof_lines)).verified


def test_a_wrong_table_entry_changes_the_verdict(tmp_path: Path) -> None:
    """Making the shoulder cell (4, 1) of mini_arcen endable lets 3 moves arrive (m* = 4)."""
    track = load_track(TINY.parent / "mini_arcen.toml")
    bfs = layered_bfs(track, "exact")
    assert bfs.m_star == 4
    table = build_move_table(track, 4)
    good = sat_certificate(track, 4, tmp_path, table=table)
    assert (good.lower.verdict, good.upper.verdict) == ("agree", "agree")
    extra = ((2, 1, 4, 1, 0, 0, 0, 0, 0), (4, 1, 7, 1, 0, 0, 0, 1, 0))
    bad = replace(table, rows=table.rows + extra)
    cert = sat_certificate(track, 4, tmp_path, table=bad)
    assert cert.lower.verdict == "disagree"
    assert "3 moves arrives" in cert.lower.reason


def test_a_missing_table_entry_breaks_the_upper_bound(tmp_path: Path) -> None:
    """Without the move (4,1)->(7,1) the only 3-move trajectory of tiny_straight is gone."""
    track = load_track(TINY)
    table = build_move_table(track, 3)
    bad = replace(table, rows=tuple(r for r in table.rows if r[:4] != (4, 1, 7, 1)))
    cert = sat_certificate(track, 3, tmp_path, table=bad)
    assert cert.upper.verdict == "disagree"
    assert cert.lower.verdict == "agree"


# -- the factored one-hot CNF ------------------------------------------------------------


def test_onehot_model_at_m_star_is_the_hand_worked_trajectory() -> None:
    track = load_track(TINY)
    table = build_move_table(track, 3)
    res = solve_onehot(build_onehot_cnf(track, table.rows, 3))
    assert res.satisfiable and res.positions == ((1, 1), (2, 1), (4, 1), (7, 1))


@pytest.mark.parametrize("options", [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize(("name", "m_star"), [("tiny_straight", 3), ("mini_arcen", 4),
                                              ("tiny_opening_shadow", 4), ("mini_apertura", 5),
                                              ("apertura", 7)])
def test_onehot_is_unsat_below_m_star_and_replays_at_m_star(name: str, m_star: int,
                                                            options: tuple[bool, bool]) -> None:
    """Every domain option: UNSAT (checked proof) at m*-1, a replayable trajectory at m*."""
    track = load_track(TINY.parent / f"{name}.toml")
    table = build_move_table(track, m_star)
    backward, cells = options
    below = build_onehot_cnf(track, table.rows, m_star - 1, backward=backward, cells=cells)
    res = solve_onehot(below)
    assert not res.satisfiable
    assert check_drup(below.clauses, list(res.proof_lines)).verified
    at = solve_onehot(build_onehot_cnf(track, table.rows, m_star, backward=backward,
                                       cells=cells))
    assert at.satisfiable and at.positions is not None
    assert Geometry(track).replay(list(at.positions)) == (True, "ok")
    assert len(at.positions) - 1 == m_star


def test_cell_relaxation_holds_every_optimal_trajectory() -> None:
    """The relaxation is derived from the rules, so the BFS's optimal states lie inside it."""
    track = load_track(TINY.parent / "tiny_circuit_nocont.toml")
    bfs = layered_bfs(track, "exact")
    assert bfs.dag is not None and bfs.m_star == 17
    rel = cell_relaxation(track, build_move_table(track, 17).rows, 17)
    for t, layer in enumerate(bfs.dag.layers):
        for i in range(len(layer)):
            s = layer.state(i)
            assert ((s.x, s.y, s.layer), s.progress) in rel[t]
    # and it is a real restriction: far fewer pairs than (endable cell, progress) x time
    x0, y0 = track.car.position
    assert rel[0] == {((x0, y0, track.car.layer), 0)}
    endable = sum(track.endable(0, x, y) for x in range(track.width) for y in range(track.height))
    assert sum(map(len, rel)) < endable * 2 * 17 // 2


def test_decode_rejects_a_model_without_arrival() -> None:
    track = load_track(TINY)
    cnf = build_onehot_cnf(track, build_move_table(track, 3).rows, 3)
    with pytest.raises(ValueError, match="no cell true|arrives at no move"):
        decode_onehot(cnf, set())


def test_onehot_rejects_a_non_positive_horizon() -> None:
    track = load_track(TINY)
    with pytest.raises(ValueError, match="at least 1"):
        build_onehot_cnf(track, (), 0)
