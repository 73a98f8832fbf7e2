"""crosscheck: another engine's figures against racecert's, on a hand-worked track."""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.analysis import analyze
from racecert.analysis.library import library_entry
from racecert.certification.crosscheck import ResultError, crosscheck, parse_result
from racecert.model.parse import load_track

TRACK = Path(__file__).resolve().parents[2] / "tracks" / "mini_arcen.toml"


@pytest.fixture(scope="module")
def ours():
    track = load_track(TRACK)
    a = analyze(track)
    return track, a.to_json(), library_entry(a)


def _verdicts(ours, data):
    track, report, lib = ours
    return {c.figure: c.verdict for c in crosscheck(track, parse_result(data), report, lib)}


def test_hand_worked_values_agree(ours) -> None:
    # mini_arcen: m* = 4, 3 optimal trajectories (speeds 1, 1, 2 then 1/2/3), green 5, blue 7
    v = _verdicts(ours, {
        "m_star": 4, "optimal_count": "3", "green": {"length_exact": "5", "ties": 1},
        "blue": 7.0000000001, "trai": {"positions": [[1, 1], [2, 1], [3, 1], [5, 1], [8, 1]]},
    })
    assert set(v.values()) == {"agree"}
    assert "trai.positions" in v and "blue.length" in v


def test_racecert_report_crosschecks_with_itself(ours) -> None:
    track, report, lib = ours
    rows = crosscheck(track, parse_result(report), report, lib)
    assert len(rows) > 8
    assert all(r.verdict in ("agree", "not-comparable") for r in rows)


def test_wrong_count_and_length_disagree(ours) -> None:
    v = _verdicts(ours, {"optimal_count": 4, "green": "4 + sqrt(2)", "blue": 7.01})
    assert v == {"optimal_count": "disagree", "green.length": "disagree",
                 "blue.length": "disagree"}


def test_invalid_trajectory_is_rejected_by_the_geometry(ours) -> None:
    # (3,1) -> (4,1) ends on the shoulder
    v = _verdicts(ours, {"troi": {"positions": [[1, 1], [2, 1], [3, 1], [4, 1], [6, 1]]}})
    assert v["troi.positions"] == "disagree"


@pytest.mark.parametrize("data, words", [
    ({"m_star": "four"}, "m_star"),
    ({"green": {"length_exact": "5 + sqrt(x)"}}, "green.length_exact"),
    ({"trai": {"positions": [[1, 1]]}}, "trai"),
    ({"m_sta": 4}, "unknown key"),
    ([1, 2], "top level"),
])
def test_malformed_input_names_the_key(data, words) -> None:
    with pytest.raises(ResultError, match=words):
        parse_result(data)
