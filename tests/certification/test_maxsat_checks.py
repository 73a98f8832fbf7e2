"""MaxSAT green/blue check: agrees on small tracks, disagrees on corrupted input, skips big ones."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import racecert.certification.maxsat_checks as mc
from racecert.analysis import analyze
from racecert.certification.certificate import CertifyContext
from racecert.certification.checks_cpsat import move_table
from racecert.certification.sat_checks import table_successors
from racecert.model.parse import load_track
from racecert.oracle.bfs import layered_bfs

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
SMALL = ["mini_arcen.toml", "tiny_opening_shadow.toml", "apertura.toml"]


def _ctx(name: str) -> CertifyContext:
    track = load_track(TRACKS / name)
    bfs = layered_bfs(track, "exact")
    return CertifyContext(track, bfs, bfs)


@pytest.mark.parametrize("name", SMALL)
def test_agrees_on_small_tracks_and_matches_the_pipeline(name: str) -> None:
    ctx = _ctx(name)
    results = mc.check_green_blue(ctx)
    assert [r.figure for r in results] == ["green length and ties", "blue length and ties"]
    assert [r.verdict for r in results] == ["agree", "agree"], [r.reason for r in results]
    report = analyze(ctx.track).to_json()
    for which, r in zip(("green", "blue"), results, strict=True):
        arte = dict(r.artefacts)
        assert arte["bfs length"] == arte["maxsat length"] == report[which]["length_exact"]
        assert arte["bfs ties"] == arte["maxsat ties"] == str(report[which]["ties"])
        assert r.bfs_value == r.method_value


def test_dag_dp_counts_ties() -> None:
    """tiny_opening_shadow: 4 of its 5 optimal trajectories tie for green at 3 + sqrt(2)."""
    ext = mc.dag_extremes(_ctx("tiny_opening_shadow.toml").exact.dag)
    assert (str(ext["green"].length), ext["green"].ties) == ("3 + sqrt(2)", 4)
    assert (str(ext["blue"].length), ext["blue"].ties) == ("5", 1)


def test_a_missing_table_row_makes_blue_disagree() -> None:
    """Without the move (5,1)->(8,1), MaxSAT cannot reach mini_arcen's blue (length 7)."""
    ctx = _ctx("mini_arcen.toml")
    table = move_table(ctx.track, 4)
    bad = replace(table, rows=tuple(r for r in table.rows if r[:4] != (5, 1, 8, 1)))
    green, blue = mc.maxsat_checks(ctx, table_successors(bad, ctx.track))
    assert blue.verdict == "disagree" and "length" in blue.reason


def test_a_wrong_dag_tie_count_disagrees(monkeypatch: pytest.MonkeyPatch) -> None:
    real = mc.dag_extremes

    def off_by_one(dag):
        ext = real(dag)
        return {**ext, "green": replace(ext["green"], ties=ext["green"].ties + 1)}

    monkeypatch.setattr(mc, "dag_extremes", off_by_one)
    green, blue = mc.check_green_blue(_ctx("tiny_opening_shadow.toml"))
    assert green.verdict == "disagree" and "ties 4 != DAG's 5" in green.reason
    assert blue.verdict == "agree"


def test_not_applicable_on_a_large_track_without_solving(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    def boom(*args, **kwargs):
        raise AssertionError("MaxSAT must not run")

    monkeypatch.setattr(mc, "extreme_trajectories", boom)
    results = mc.check_green_blue(_ctx("llanura.toml"))
    assert [r.verdict for r in results] == ["not-applicable"] * 2
    assert all("m* <= 12 and optimal_count <= 200" in r.reason for r in results)
