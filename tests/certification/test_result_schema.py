"""The RESULT.json schema: types, ranges, unknown and ignored keys (docs/crosscheck.md)."""

from __future__ import annotations

import doctest
from fractions import Fraction

import pytest

from racecert.certification import result_schema
from racecert.certification.radical_text import RadicalText
from racecert.certification.result_file import ResultError
from racecert.certification.result_schema import MAX_MOVES, parse_result


def test_doctests() -> None:
    assert doctest.testmod(result_schema).failed == 0


def test_typed_values_by_dotted_path() -> None:
    r = parse_result({
        "m_star": "4", "optimal_count": 3, "kind": "stage", "reachable": True,
        "continuable_fraction_exact": "1/3", "continuable_percent": 33.33,
        "green": {"length_exact": "5 + sqrt(8)", "ties": "2", "moves": 4,
                  "positions": [[1, 1], [2, 1]], "accelerations": [[1, 0]]},
        "blue": 7, "score": 55.5, "coverage": {"red": "1", "red_float": 1},
    })
    f = r.figures
    assert f["m_star"] == 4 and f["optimal_count"] == 3 and f["kind"] == "stage"
    assert f["reachable"] is True and f["continuable_fraction_exact"] == Fraction(1, 3)
    assert isinstance(f["green.length_exact"], RadicalText) and f["green.ties"] == 2
    assert f["green.positions"] == ((1, 1), (2, 1)) and f["green.accelerations"] == ((1, 0),)
    assert f["blue.length"] == 7.0 and isinstance(f["blue.length"], float)
    assert f["score.total"] == 55.5
    assert f["coverage.red"] == 1 and f["coverage.red_float"] == 1.0
    assert r.skipped == ()


def test_null_is_not_given() -> None:
    assert parse_result({"m_star": None, "green": None, "score": {"total": None}}).figures == {}


def test_unknown_keys_are_reported_not_fatal() -> None:
    r = parse_result({"m_star": 4, "colour": "red", "green": {"hue": 1},
                      "score": {"components": {"style": {}}}, "odd\nkey": 1})
    assert r.figures == {"m_star": 4}
    unknown = [(s.key, s.unknown) for s in r.skipped]
    assert unknown == [("colour", True), ("green.hue", True),
                       ("score.components.style", True), ("'odd\\nkey'", True)]


def test_the_files_tolerance_is_ignored() -> None:
    r = parse_result({"tolerance": 1e308, "blue": 7.5})
    assert r.figures == {"blue.length": 7.5}
    (s,) = r.skipped
    assert s.key == "tolerance" and not s.unknown and "checker's" in s.reason


@pytest.mark.parametrize("data, words", [
    ([1, 2], "the top level must be a JSON object"),
    ({"m_star": "four"}, "m_star: expected a non-negative integer"),
    ({"m_star": 4.0}, "m_star: expected a non-negative integer"),
    ({"m_star": True}, "m_star: expected a non-negative integer"),
    ({"optimal_count": -3}, "optimal_count: expected a non-negative integer"),
    ({"optimal_count": "\u00b3"}, "optimal_count: expected"),  # a superscript digit
    ({"optimal_count": " 3"}, "optimal_count: expected"),
    ({"optimal_count": "9" * 1001}, "at most 1000 ASCII digits"),
    ({"green": {"length": True}}, "green.length: expected a number"),
    ({"green": True}, "green.length: expected a number"),
    ({"green": [5]}, "green.length: expected a number"),
    ({"green": {"length_exact": 5}}, "green.length_exact: expected an exact length"),
    ({"green": {"length_exact": "5 + sqrt(x)"}}, "green.length_exact: not an exact length"),
    ({"green": "7 - sqrt(2)"}, "green.length: a length is a sum of non-negative terms"),
    ({"blue": -7.0}, "blue.length: -7.0 is out of range"),
    ({"blue": 10**400}, "blue.length: .* is out of range"),
    ({"continuable_percent": 100.5}, "continuable_percent: 100.5 is out of range"),
    ({"coverage": {"red": "3/2"}}, "coverage.red: '3/2' is out of range"),
    ({"coverage": {"red": "1/0"}}, "coverage.red: zero denominator"),
    ({"coverage": {"red": 0.5}}, "coverage.red: expected an exact fraction"),
    ({"coverage": 0.5}, "coverage: expected an object"),
    ({"kind": "loop"}, "kind: expected one of stage, circuit"),
    ({"reachable": 1}, "reachable: expected true or false"),
    ({"sha256": "abc"}, "sha256: expected 64 hexadecimal digits"),
    ({"trai": {"positions": [[1, 1]]}}, "trai.positions: expected a list of 2 to"),
    ({"trai": {"positions": [[1, 1], [1, True]]}}, r"trai.positions\[1\]: expected"),
    ({"trai": {"positions": [[1, 1], [2**31, 1]]}}, r"trai.positions\[1\]: expected"),
    ({"trai": {"accelerations": [[2, 0]]}}, r"trai.accelerations\[0\]: expected acceleration"),
    ({"trai": {"accelerations": [[0, 0]] * (MAX_MOVES + 1)}}, "trai.accelerations: expected"),
    ({"score": "55"}, "score.total: expected a number"),
    ({"score": {"components": {"coverage": {"exact": "2"}}}},
     "score.components.coverage.exact: '2' is out of range"),
])
def test_malformed_values_name_the_key(data, words) -> None:
    with pytest.raises(ResultError, match=words) as info:
        parse_result(data)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_yellow_has_no_ties_but_green_has() -> None:
    r = parse_result({"yellow": {"ties": 1}, "green": {"ties": 1}})
    assert r.figures == {"green.ties": 1}
    assert [(s.key, s.unknown) for s in r.skipped] == [("yellow.ties", True)]
