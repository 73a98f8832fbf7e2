"""Red coverage and the design score recomputed on the independent side."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from racecert.independent.agreement import compare_coverage, compare_score
from racecert.independent.coverage import jaccard_distance, red_coverage, trajectory_cells
from racecert.independent.extremes import extreme_lengths
from racecert.independent.radical_forms import RadicalLength
from racecert.independent.score import EuclidSeparation, design_score, euclid_separation
from tests.independent.helpers import BUNDLED, analysis_of, layered_from_oracle


def _independent_score(a, red: Fraction, yellow_moves: int | None = None):
    dag = layered_from_oracle(a.bfs.dag)
    e = extreme_lengths(dag)
    sep = jaccard_distance(trajectory_cells(e.green.positions),
                           trajectory_cells(e.blue.positions))
    circuit = a.kind == "circuit"
    return design_score(red=red, yellow_moves=yellow_moves or a.yellow.moves,
                        m_star=dag.moves, green=e.green.length, blue=e.blue.length,
                        spatial_sep=sep, circuit=circuit,
                        continuable=a.continuity.percent if circuit else None)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_bundled_tracks_agree_with_the_analysis(path):
    a = analysis_of(path)
    cov = red_coverage(a.track, layered_from_oracle(a.bfs.dag))
    j = a.to_json()
    c = j["coverage"]
    assert compare_coverage(cov, Fraction(c["red"]), c["touched_cells"],
                            c["drivable_cells"]) == []
    s = _independent_score(a, cov.fraction)
    sj = j["score"]
    assert compare_score(s, sj["total"], sj["band"], sj["capped"]) == []
    assert str(s.corrector) == sj["corrector_exact"]
    comps = sj["components"]
    assert str(s.coverage) == comps["coverage"]["exact"]
    assert str(s.expert_advantage) == comps["expert_advantage"]["exact"]
    assert str(s.spatial_sep) == comps["diversity"]["spatial_sep_exact"]
    if s.euclid_sep.exact:
        assert str(s.euclid_sep.lo) == comps["diversity"]["euclid_sep_exact"]


def _worked(circuit: bool, continuable: Fraction | None):
    return design_score(red=Fraction(3, 10), yellow_moves=12, m_star=10,
                        green=RadicalLength(((1, 20),)), blue=RadicalLength(((1, 21),)),
                        spatial_sep=Fraction(1, 4), circuit=circuit, continuable=continuable)


def test_worked_example_of_the_docs():
    """docs/score.md: 52.725 rounds half-to-even to 52.72 (fair); 55.5 as a stage;
    capped at 19 when the continuable percentage shows 0.00."""
    s = _worked(True, Fraction(1, 2))
    assert (s.coverage, s.expert_advantage) == (Fraction(3, 5), Fraction(4, 5))
    assert s.euclid_sep.lo == s.euclid_sep.hi == Fraction(1, 2) and s.euclid_sep.exact
    assert s.raw_lo == Fraction(52725, 1000) and s.total == Fraction(5272, 100)
    assert s.band == "fair" and not s.capped
    stage = _worked(False, None)
    assert stage.total == Fraction(111, 2) and stage.continuity is None
    capped = _worked(True, Fraction(1, 10**6))
    assert capped.total == 19 and capped.capped and capped.band == "rejected"


def test_irrational_separation_is_enclosed():
    green = RadicalLength(((1, 35), (2, 4), (5, 2), (10, 2)))
    blue = RadicalLength(((1, 36), (2, 5), (5, 2), (10, 2)))  # green + 1 + sqrt(2)
    e = euclid_separation(green, blue)
    assert not e.exact and e.lo < e.hi and e.hi - e.lo < Fraction(1, 10**15)
    truth = (10 * (blue.sympy - green.sympy) / green.sympy).evalf(50)
    assert e.lo <= Fraction(str(truth)) <= e.hi


def test_exact_separation_cases():
    green = RadicalLength(((1, 40), (2, 20)))
    assert euclid_separation(green, green) == EuclidSeparation(Fraction(0), Fraction(0), True)
    assert euclid_separation(green, RadicalLength(((1, 80),))).lo == 1  # 80 >= 1.1 green
    proportional = RadicalLength(((1, 42), (2, 21)))  # green + green / 20
    assert euclid_separation(green, proportional) == EuclidSeparation(
        Fraction(1, 2), Fraction(1, 2), True)
    with pytest.raises(ValueError, match="shorter"):
        euclid_separation(proportional, green)


def test_corrupted_inputs_are_detected():
    a = analysis_of(next(p for p in BUNDLED if p.stem == "4_esquinas"))
    dag = layered_from_oracle(a.bfs.dag)
    cov = red_coverage(a.track, dag)
    c = a.to_json()["coverage"]
    assert compare_coverage(cov, Fraction(c["red"]) + Fraction(1, c["drivable_cells"]),
                            c["touched_cells"], c["drivable_cells"])
    # a DAG whose arrivals all end one cell further touches another cell
    far = dataclasses.replace(dag, arrive_x=dag.arrive_x + 1, arrive_y=dag.arrive_y)
    moved = red_coverage(a.track, far)
    assert moved.cells != cov.cells
    sj = a.to_json()["score"]
    worse = _independent_score(a, cov.fraction, yellow_moves=a.yellow.moves + 1)
    assert compare_score(worse, sj["total"], sj["band"], sj["capped"])
