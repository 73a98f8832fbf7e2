"""Lattice certificates: every figure confirmed on small tracks, and each check fails when
the oracle's figure (or its expand) is corrupted."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from racecert.analysis.lattice.pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification.context import CertifyContext, CheckResult, NamedCheck
from racecert.certification.lattice import checks as lattice_checks
from racecert.certification.lattice.certificate import certify_lattice
from racecert.certification.lattice.checks import (
    check_geometry,
    check_m_star_cpsat,
    check_search,
    lattice_context,
)
from racecert.independent.radical_forms import compare, length, text
from racecert.model.lattice.rules import LatticeRules
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from tests.corruptions import dropping_a_move

ROOT = Path(__file__).resolve().parents[2]
RIDDLER = ROOT / "tracks" / "lattice" / "riddler.toml"
RIDDLER_VN = ROOT / "tracks" / "lattice" / "riddler_von_neumann.toml"
LIMITS: dict[str, object] = {"cpsat_budget": 120.0}

def run(check: Callable[[CertifyContext], list[CheckResult]], track: object,
        a: LatticeAnalysis, **limits: object) -> list[CheckResult]:
    """`check` on analysis `a` of `track` under this module's limits (and `limits`)."""
    assert a.track == track
    return check(lattice_context(a, **{**LIMITS, **limits}))

SMALL = """rules = "lattice"
name = "small ring"
[bounds]
x = [0, 11]
y = [0, 8]
[[walls]]
points = [[1, 1], [10, 1], [10, 7], [1, 7], [1, 1]]
[[walls]]
points = [[4, 4], [7, 4]]
[start]
positions = [[2, 3], [3, 3], [2, 2]]
[finish]
from = [1, 4]
to = [4, 4]
direction = [0, -1]
laps = 1
"""


@pytest.fixture(scope="module")
def riddler() -> LatticeTrack:
    t = load_track(RIDDLER)
    assert isinstance(t, LatticeTrack)
    return t


SMALL_VN = SMALL.replace('name = "small ring"\n', 'name = "small ring, von Neumann moves"\n'
                         'accelerations = "von-neumann"\n')


@pytest.fixture(scope="module")
def small() -> LatticeTrack:
    t = parse_track(SMALL.encode(), "small.toml")
    assert isinstance(t, LatticeTrack)
    return t


@pytest.fixture(scope="module")
def small_vn() -> LatticeTrack:
    """The small ring with the von Neumann set: m* 10 from its first start (8 with nine
    accelerations)."""
    t = parse_track(SMALL_VN.encode(), "small_vn.toml")
    assert isinstance(t, LatticeTrack) and t.accelerations == "von-neumann"
    return t


def test_the_riddler_is_certified(riddler: LatticeTrack, riddler_certificate) -> None:
    """From its every start (one), as docs/public-tracks.md certifies it: the session's
    certificate (tests/conftest.py), which the public table's cell reads too."""
    c = riddler_certificate
    assert c.track == riddler and c.analysis.best_start
    assert c.status == "certified", c.to_json()["figures"]
    figs = {f.name: f for f in c.figures}
    assert figs["m_star"].value == 12
    assert {r.method for r in figs["m_star"].checks} == {lattice_checks.CPSAT,
                                                         lattice_checks.SEARCH}
    assert c.to_json()["rules"] == "lattice"


def test_best_start_is_certified_with_every_start(small: LatticeTrack) -> None:
    c = certify_lattice(small, best_start=True, **LIMITS)
    assert c.status == "certified", c.to_json()["figures"]
    assert c.analysis.best_start and len(c.analysis.considered) == 3
    assert c.to_json()["track"]["starts_considered"] == [[2, 3], [3, 3], [2, 2]]


# -- corruption: each check must fail ---------------------------------------------------


def corrupt_bfs(a: LatticeAnalysis, **changes) -> LatticeAnalysis:
    return dataclasses.replace(a, bfs=dataclasses.replace(a.bfs, **changes))


@pytest.mark.parametrize("delta", [-1, 1])
def test_cpsat_disagrees_with_a_wrong_m_star(small: LatticeTrack, delta: int) -> None:
    """On the small ring (the riddler's certificate above has the same check agree: one
    less is then no witness at m* - 1, one more a finish within m*)."""
    a = analyze_lattice(small)
    bad = corrupt_bfs(a, m_star=a.bfs.m_star + delta)
    (r,) = run(check_m_star_cpsat, small, bad)
    assert r.verdict == "disagree", r


def test_the_search_disagrees_with_wrong_figures(small: LatticeTrack) -> None:
    a = analyze_lattice(small, best_start=True)
    assert all(r.verdict == "agree" for r in run(check_search, small, a))
    for changes in ({"optimal_count": a.bfs.optimal_count + 1}, {"m_star": a.bfs.m_star + 1}):
        bad = corrupt_bfs(a, **changes)
        verdicts = {r.figure: r.verdict for r in run(check_search, small, bad)}
        assert "disagree" in verdicts.values(), changes
    assert a.green is not None and a.starts
    longer = dataclasses.replace(a.green, length=a.green.length + RadicalSum.sqrt_of(2))
    verdicts = {r.figure: r.verdict for r in run(check_search, small, dataclasses.replace(
        a, green=longer))}
    assert verdicts["green_length"] == "disagree"
    moved = dataclasses.replace(a.starts[0], optimal_count=a.starts[0].optimal_count + 1)
    verdicts = {r.figure: r.verdict for r in run(check_search, small, dataclasses.replace(
        a, starts=(moved, *a.starts[1:])))}
    assert verdicts["optimal_starts"] == "disagree"


_DropsAMove = dropping_a_move(LatticeRules)


def test_the_geometry_check_catches_a_corrupted_expand(
        riddler: LatticeTrack, monkeypatch: pytest.MonkeyPatch) -> None:
    a = analyze_lattice(riddler)
    (good,) = run(check_geometry, riddler, a)
    assert good.verdict == "agree"
    monkeypatch.setattr(lattice_checks, "LatticeRules", _DropsAMove)
    (bad,) = run(check_geometry, riddler, a)
    assert bad.verdict == "disagree" and bad.artefacts


def test_an_unconfirmed_figure_makes_the_certificate_partial(small: LatticeTrack) -> None:
    only_geometry = (NamedCheck("geometry", check_geometry),)
    c = certify_lattice(small, **LIMITS, checks=only_geometry)
    assert c.status == "partial" and "m_star" in c.unconfirmed


def test_a_too_large_table_is_skipped(riddler: LatticeTrack,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A size budget: `skipped` with the size and the budget (m* exists: not-applicable
    would be wrong, and nothing ran out of time)."""
    monkeypatch.setattr(lattice_checks, "MAX_TABLE_CANDIDATES", 10)
    (r,) = run(check_m_star_cpsat, riddler, analyze_lattice(riddler))
    assert r.verdict == "skipped" and "over its size budget of 10 candidate moves" in r.reason


def test_a_capped_search_is_a_timeout_not_an_agreement(small: LatticeTrack) -> None:
    a = analyze_lattice(small)
    results = run(check_search, small, a, max_states=5)
    assert results and {r.verdict for r in results} == {"timeout"}


def test_independent_sums_of_square_roots() -> None:
    """Exact order and equality of the independent side's sums of square roots."""
    a = dict(length(1, 1))  # sqrt(2)
    b = {1: 1, 2: 1}  # 1 + sqrt(2)
    assert compare(a, b) == -1 and compare(b, a) == 1 and compare(b, dict(b)) == 0
    # 2 * 38613965^2 = 54608393^2 + 1: 38613965 sqrt(2) exceeds 54608393 by about 9.2e-9,
    # below what a double resolves at that size (its spacing there is 7.5e-9)
    assert compare({2: 38613965}, {1: 54608393}) == 1
    assert compare({1: 54608393}, {2: 38613965}) == -1
    assert text({1: 5, 2: 3, 5: 6}) == "5 + 3*sqrt(2) + 6*sqrt(5)"
    assert length(6, 8) == ((1, 10),) and length(2, 2) == ((2, 2),) and length(0, 0) == ()


# -- the von Neumann acceleration set ------------------------------------------------------


@pytest.fixture(scope="module")
def riddler_vn() -> LatticeTrack:
    t = load_track(RIDDLER_VN)
    assert isinstance(t, LatticeTrack) and t.accelerations == "von-neumann"
    return t


def test_the_von_neumann_riddler_is_certified(riddler_vn: LatticeTrack) -> None:
    """Five accelerations: the lap takes 14 moves (12 with nine), by a unique route; the
    oracle, the independent search and the CP-SAT model all say so."""
    c = certify_lattice(riddler_vn, **LIMITS)
    assert c.status == "certified", c.to_json()["figures"]
    figs = {f.name: f for f in c.figures}
    assert figs["m_star"].value == 14 and figs["optimal_count"].value == "1"
    assert {r.method for r in figs["m_star"].checks} == {lattice_checks.CPSAT,
                                                         lattice_checks.SEARCH}
    data = c.to_json()
    assert data["track"]["accelerations"] == "von-neumann"
    assert "von-neumann" in figs["move_validity"].value
    (geo,) = figs["move_validity"].checks
    assert "all 5 accelerations of the von-neumann set" in geo.reason


@pytest.mark.parametrize("delta", [-1, 1])
def test_a_wrong_von_neumann_m_star_disagrees(small_vn: LatticeTrack, delta: int) -> None:
    """On the small ring with the von Neumann set (the von Neumann riddler's certificate
    above has both checks agree)."""
    a = analyze_lattice(small_vn)
    assert a.bfs.m_star == 10
    bad = corrupt_bfs(a, m_star=a.bfs.m_star + delta)
    (r,) = run(check_m_star_cpsat, small_vn, bad)
    assert r.verdict == "disagree", r
    verdicts = {r.figure: r.verdict for r in run(check_search, small_vn, bad)}
    assert verdicts["m_star"] == "disagree"


def test_a_wrong_von_neumann_count_disagrees(riddler_vn: LatticeTrack) -> None:
    a = analyze_lattice(riddler_vn)
    bad = corrupt_bfs(a, optimal_count=a.bfs.optimal_count + 1)
    verdicts = {r.figure: r.verdict for r in run(check_search, riddler_vn, bad)}
    assert verdicts["optimal_count"] == "disagree"
    assert verdicts["m_star"] == "agree"


class _AlwaysMoore(LatticeRules):
    """An oracle profile that ignores the track's set and moves with all nine."""

    def __init__(self, track: LatticeTrack, *args, **kwargs) -> None:
        super().__init__(dataclasses.replace(track, accelerations="moore"), *args, **kwargs)


def test_an_oracle_ignoring_the_set_is_caught(small_vn: LatticeTrack,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """With nine accelerations on the von Neumann track (the small ring's) the oracle's
    figures are the Moore ones (m* 8, not 10): the search and CP-SAT disagree, and the
    geometry check, whose candidates come from the independent side's own set, finds the
    diagonal moves."""
    wrong = analyze_lattice(small_vn, rules=_AlwaysMoore(small_vn))
    assert wrong.bfs.m_star == 8
    verdicts = {r.figure: r.verdict for r in run(check_search, small_vn, wrong)}
    assert verdicts["m_star"] == "disagree"
    (r,) = run(check_m_star_cpsat, small_vn, wrong)
    assert r.verdict == "disagree", r
    monkeypatch.setattr(lattice_checks, "LatticeRules", _AlwaysMoore)
    (bad,) = run(check_geometry, small_vn, analyze_lattice(small_vn))
    assert bad.verdict == "disagree" and bad.artefacts
