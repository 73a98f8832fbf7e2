"""crosscheck: another engine's figures against racecert's typed Analysis.

Truth: hand-worked figures of small tracks (tracks/README.md, docs/continuity.md),
and racecert's own JSON report and library record, which are rendered by other
code than the typed reading `crosscheck_ours` does (each of their figures must
agree).
"""

from __future__ import annotations

import doctest
from functools import cache
from pathlib import Path

import pytest

from racecert.analysis import Analysis, analyze
from racecert.analysis.library import library_entry
from racecert.certification import crosscheck as crosscheck_module
from racecert.certification.crosscheck import crosscheck
from racecert.certification.result_schema import parse_result
from racecert.model.parse import load_track, parse_track

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
SMALL = ("mini_arcen", "tiny_circuit_nocont", "tiny_circuit_race_vs_editor",
         "tiny_spiral_stage", "tiny_straight")

BLOCKED = b'''name = "Blocked"
[car]
position = [1, 1]
direction = "+x"
[start]
x = 1
y = [1, 1]
dir = "+x"
[finish]
x = 6
y = [1, 1]
dir = "+x"
[map]
ground = """
##########
#....#...#
##########
"""
'''


@cache
def analysis_of(name: str, mode: str = "exact") -> Analysis:
    return analyze(load_track(TRACKS / f"{name}.toml"), mode)


def verdicts(a: Analysis, data: dict) -> dict[str, str]:
    return {c.figure: c.verdict for c in crosscheck(a, parse_result(data))}


def test_doctests() -> None:
    assert doctest.testmod(crosscheck_module).failed == 0


def test_hand_worked_values_agree() -> None:
    # mini_arcen: m* = 4, 3 optimal trajectories (speeds 1, 1, 2 then 1/2/3), green 5, blue 7
    v = verdicts(analysis_of("mini_arcen"), {
        "m_star": 4, "optimal_count": "3", "final_states": 3, "kind": "stage",
        "green": {"length_exact": "5", "ties": 1}, "blue": 7.0000000001,
        "trai": {"positions": [[1, 1], [2, 1], [3, 1], [5, 1], [8, 1]]},
    })
    assert set(v.values()) == {"agree"}
    assert {"trai.positions", "trai.length (from positions)", "trai.moves (from positions)",
            "blue.length", "final_states", "kind"} <= set(v)


def test_wrong_hand_worked_values_disagree() -> None:
    v = verdicts(analysis_of("mini_arcen"), {
        "optimal_count": 4, "green": "4 + sqrt(2)", "blue": 7.01, "final_states": 2,
        "kind": "circuit"})
    assert v == {"optimal_count": "disagree", "green.length": "disagree",
                 "blue.length": "disagree", "final_states": "disagree", "kind": "disagree"}


@pytest.mark.parametrize("name", SMALL)
def test_racecert_report_and_library_agree_with_the_typed_analysis(name: str) -> None:
    a = analysis_of(name)
    for document in (a.to_json(), library_entry(a)):
        rows = crosscheck(a, parse_result(document))
        compared = [r for r in rows if r.verdict in ("agree", "disagree")]
        assert [r for r in compared if r.verdict == "disagree"] == []
        assert len(compared) > 10
        assert {r.verdict for r in rows} <= {"agree", "ignored"}


def test_an_invalid_trajectory_is_rejected_by_the_geometry() -> None:
    # (3,1) -> (4,1) ends on the shoulder
    rows = crosscheck(analysis_of("mini_arcen"), parse_result(
        {"troi": {"positions": [[1, 1], [2, 1], [3, 1], [4, 1], [6, 1]]}}))
    assert [(r.figure, r.verdict) for r in rows] == [("troi.positions", "disagree")]
    assert "(4, 1)" in rows[0].note


def test_accelerations_alone_are_driven_and_replayed() -> None:
    a = analysis_of("mini_arcen")
    v = verdicts(a, {"green": {"accelerations": [[1, 0], [0, 0], [1, 0], [-1, 0]]}})
    assert v == {"green.accelerations": "agree", "green.moves (from accelerations)": "agree",
                 "green.length (from accelerations)": "agree"}
    v = verdicts(a, {"green": {"accelerations": [[1, 0], [0, 0], [1, 0], [0, 0]]}})
    assert v["green.length (from accelerations)"] == "disagree"  # that is blue's length 7


def test_accelerations_must_drive_to_the_positions() -> None:
    pos = [[1, 1], [2, 1], [3, 1], [5, 1], [6, 1]]
    a = analysis_of("mini_arcen")
    good = verdicts(a, {"green": {"positions": pos, "accelerations": [[1, 0], [0, 0], [1, 0],
                                                                       [-1, 0]]}})
    bad = verdicts(a, {"green": {"positions": pos, "accelerations": [[1, 0], [0, 0], [1, 0],
                                                                      [0, 0]]}})
    assert good["green.accelerations"] == "agree" and bad["green.accelerations"] == "disagree"
    assert bad["green.positions"] == "agree"


def test_figures_of_an_unreachable_track_disagree_with_a_reason() -> None:
    a = analyze(parse_track(BLOCKED, "blocked.toml"))
    rows = crosscheck(a, parse_result({"reachable": False, "optimal_count": 0, "m_star": 5,
                                       "green": "5", "continuable_count": 0}))
    v = {r.figure: (r.verdict, r.note) for r in rows}
    assert v["reachable"][0] == "agree" and v["optimal_count"][0] == "agree"
    for key in ("m_star", "green.length", "continuable_count"):
        assert v[key][0] == "disagree" and "unreachable" in v[key][1]


def test_m_cont_and_continuity_figures() -> None:
    # tiny_circuit_nocont: no optimal arrival continues; m_cont = 18 (docs/continuity.md)
    v = verdicts(analysis_of("tiny_circuit_nocont"), {
        "m_cont": 18, "continuable_count": 0, "continuable_percent": 0.0,
        "continuity_applicable": True})
    assert set(v.values()) == {"agree"}
    assert verdicts(analysis_of("tiny_circuit_nocont"), {"m_cont": 17})["m_cont"] == "disagree"
    # where an optimal arrival continues, racecert has no m_cont: giving one disagrees
    rows = crosscheck(analysis_of("tiny_circuit_race_vs_editor"), parse_result({"m_cont": 23}))
    assert rows[0].verdict == "disagree" and "continues" in rows[0].note


def test_the_editors_continuity_rule_is_compared() -> None:
    # tiny_circuit_race_vs_editor: race 72 of 72, editor certification 24 (docs/continuity.md)
    a = analysis_of("tiny_circuit_race_vs_editor")
    right = verdicts(a, {"continuable_count": 72, "continuable_count_editor": 24,
                         "continuable_percent": 100.0, "continuable_percent_editor": 33.33})
    assert set(right.values()) == {"agree"}
    wrong = verdicts(a, {"continuable_count_editor": 72, "continuable_percent_editor": 100.0})
    assert set(wrong.values()) == {"disagree"}


def test_a_stage_has_no_continuity_but_nothing_continues() -> None:
    a = analysis_of("mini_arcen")
    v = verdicts(a, {"continuity_applicable": False, "continuable_count": 0})
    assert set(v.values()) == {"agree"}
    assert verdicts(a, {"m_cont": 5})["m_cont"] == "disagree"
    assert verdicts(a, {"continuable_count": 1})["continuable_count"] == "disagree"


def test_the_mode_is_compared_and_says_what_to_do() -> None:
    rows = crosscheck(analysis_of("mini_arcen"), parse_result({"mode": "editor"}))
    assert rows[0].verdict == "disagree" and "--mode editor" in rows[0].note
    assert verdicts(analysis_of("mini_arcen", "editor"), {"mode": "editor"}) == {
        "mode": "agree"}


def test_the_files_tolerance_does_not_loosen_the_check() -> None:
    rows = crosscheck(analysis_of("mini_arcen"), parse_result({"tolerance": 1e308,
                                                                "blue": 8.0}))
    assert [(r.figure, r.verdict) for r in rows] == [("blue.length", "disagree"),
                                                      ("tolerance", "ignored")]


def test_huge_radicals_disagree_without_factoring(monkeypatch) -> None:
    from tests.certification.test_radical_text import PRIME_31, _no_factoring

    _no_factoring(monkeypatch)
    v = verdicts(analysis_of("mini_arcen"), {"blue": f"sqrt({PRIME_31})",
                                             "green": f"5 + 0*sqrt({PRIME_31 ** 2})"})
    assert v == {"blue.length": "disagree", "green.length": "agree"}  # green is exactly 5
