"""RC2 enumeration of green/blue: exact lengths and tie counts against brute force."""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.analysis import analyze
from racecert.independent.geometry import Geometry
from racecert.independent.maxsat import extreme_trajectories
from racecert.independent.movetable import build_move_table
from racecert.independent.race_rules import ACCELS, table_successors
from racecert.model.parse import load_track
from racecert.model.radicals import length_of_moves

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
SMALL = ["mini_arcen.toml", "limits/opening_speed2.toml", "limits/opening_speed1.toml",
         "tiny_straight.toml"]


def _brute(track, m_star):
    """Exact lengths of every trajectory whose first arrival is move m* (plain DFS)."""
    g = Geometry(track)
    out = []

    def dfs(s, vel):
        for a in ACCELS:
            r = g.move(s, a)
            if not r.valid:
                continue
            v = vel + [(r.state.vx, r.state.vy)]
            if r.arrives:
                if len(v) == m_star:
                    out.append(length_of_moves(v))
            elif len(v) < m_star:
                dfs(r.state, v)

    dfs(g.initial(), [])
    return out


def _run(track, m_star, which, table=None):
    table = table or build_move_table(track, m_star)
    k = track.opening.moves if track.opening else 0
    s0 = (*track.car.position, 0, 0, track.car.layer, 0)
    return extreme_trajectories(track, table_successors(table, track), s0, m_star, k, which,
                                length_of_moves)


@pytest.mark.parametrize("name", SMALL)
def test_green_and_blue_match_brute_force_and_the_pipeline(name: str) -> None:
    track = load_track(TRACKS / name)
    report = analyze(track).to_json()
    m = report["m_star"]
    lengths = _brute(track, m)
    assert len(lengths) == int(report["optimal_count"])
    for which, pick in (("green", min), ("blue", max)):
        r = _run(track, m, which)
        best = pick(lengths)
        assert r.complete
        assert r.length == best and r.ties == lengths.count(best)
        assert str(r.length) == report[which]["length_exact"]
        assert r.ties == int(report[which]["ties"])
        assert Geometry(track).replay(list(r.representative)) == (True, "ok")


def test_a_wrong_table_entry_changes_blue() -> None:
    """Without the move (5,1)->(8,1), mini_arcen's blue (length 7) is gone."""
    from dataclasses import replace

    track = load_track(TRACKS / "mini_arcen.toml")
    table = build_move_table(track, 4)
    good = _run(track, 4, "blue", table)
    bad = _run(track, 4, "blue", replace(table, rows=tuple(
        r for r in table.rows if r[:4] != (5, 1, 8, 1))))
    assert str(good.length) == "7" and str(bad.length) != "7"
