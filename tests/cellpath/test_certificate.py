"""Cell-path certificates: every figure confirmed on the bundled maps, and each check
fails when the oracle's figure (or its expand) is corrupted."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from racecert.analysis.lattice.pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification.cellpath import checks as cellpath_checks
from racecert.certification.cellpath.checks import check_geometry, check_search
from racecert.certification.context import CertifyContext, CheckResult
from racecert.certification.lattice.certificate import certify_lattice
from racecert.certification.lattice.checks import lattice_context
from racecert.model.cellpath.rules import CellPathRules
from racecert.model.cellpath.track import CellPathTrack
from racecert.model.parse import load_track
from racecert.model.radicals import RadicalSum
from racecert.model.rules import Expansion, StateArrays
from tests.corruptions import dropping_a_move

ROOT = Path(__file__).resolve().parents[2]
MAPS = ROOT / "tracks" / "cellpath"
LIMITS: dict[str, object] = {}

def run(check: Callable[[CertifyContext], list[CheckResult]], track: object,
        a: LatticeAnalysis, **limits: object) -> list[CheckResult]:
    """`check` on analysis `a` of `track` under this module's limits (and `limits`)."""
    assert a.track == track
    return check(lattice_context(a, **{**LIMITS, **limits}))


@pytest.fixture(scope="module", params=["hairpin", "chicane"])
def track(request: pytest.FixtureRequest) -> CellPathTrack:
    t = load_track(MAPS / f"{request.param}.toml")
    assert isinstance(t, CellPathTrack)
    return t


def _corrupt(a: LatticeAnalysis, **changes) -> LatticeAnalysis:
    return dataclasses.replace(a, bfs=dataclasses.replace(a.bfs, **changes))


@pytest.mark.parametrize("best_start", [False, True])
def test_the_bundled_maps_are_certified(track: CellPathTrack, best_start: bool) -> None:
    # the CP-SAT model of m* runs from every start on chicane (its speed cap and A = 2; 2
    # deterministic time units, against hairpin's 3.6), and from its first start in the
    # API's certificate (tests/conftest.py's chicane_certificate, certified with m* 11 by
    # CP-SAT in tests/test_api.py and tests/test_api_reprs.py), and random maps' models
    # from one start (tests/cellpath/test_cpsat.py); hairpin's, the one docs/certificate.md
    # quotes, is certified from every start by `make bench` (benchmarks/bench_profiles.py)
    with_cpsat = best_start and track.name == "chicane"
    checks = cellpath_checks.CHECKS if with_cpsat else tuple(
        c for c in cellpath_checks.CHECKS if c.run is not cellpath_checks.check_m_star_cpsat)
    c = certify_lattice(track, best_start=best_start, checks=checks, **LIMITS)
    assert c.status == "certified", c.headline
    assert c.to_json()["rules"] == "cell-path"
    assert c.analysis.best_start == best_start
    assert len(c.analysis.considered) == (len(track.starts) if best_start else 1)
    if not with_cpsat:
        return
    # m* has a solver model (CP-SAT); the counts rest on the second implementation alone,
    # and the headline says so
    only = c.to_json()["second_implementation_only"]
    assert "m_star" not in only and "optimal_count" in only
    assert "by the second implementation only" in c.headline
    (m,) = [r for r in c.results if r.method == cellpath_checks.CPSAT]
    assert m.verdict == "agree" and m.kind == "solver-model" and m.method_value == m.bfs_value


def test_the_search_disagrees_with_wrong_figures(track: CellPathTrack) -> None:
    a = analyze_lattice(track, best_start=True)
    assert all(r.verdict == "agree" for r in run(check_search, track, a))
    for changes in ({"optimal_count": a.bfs.optimal_count + 1}, {"m_star": a.bfs.m_star + 1}):
        verdicts = {r.figure: r.verdict for r in run(check_search, track, _corrupt(a, **changes))}
        assert "disagree" in verdicts.values(), changes
    assert a.green is not None and a.blue is not None
    for name, ext in (("green", a.green), ("blue", a.blue)):
        off = dataclasses.replace(ext, length=ext.length + RadicalSum.sqrt_of(2))
        verdicts = {r.figure: r.verdict for r in run(check_search,
            track, dataclasses.replace(a, **{name: off}))}
        assert verdicts[f"{name}_length"] == "disagree"
        tied = dataclasses.replace(ext, ties=ext.ties + 1)
        verdicts = {r.figure: r.verdict for r in run(check_search,
            track, dataclasses.replace(a, **{name: tied}))}
        assert verdicts[f"{name}_ties"] == "disagree"
    moved = dataclasses.replace(a.starts[0], optimal_count=a.starts[0].optimal_count + 1)
    verdicts = {r.figure: r.verdict for r in run(check_search, track, dataclasses.replace(
        a, starts=(moved, *a.starts[1:])))}
    assert verdicts["optimal_starts"] == "disagree"


_DropsAMove = dropping_a_move(CellPathRules)


class _ArrivesLate(CellPathRules):
    """An expand whose arrivals end at p + v' instead of the goal cell they reach."""

    def expand(self, batch: StateArrays) -> Expansion:
        e = super().expand(batch)
        st = e.arrive_state
        if not len(st):
            return e
        src = e.arrive_src
        moved = StateArrays(batch.x[src] + st.vx, batch.y[src] + st.vy, st.vx, st.vy,
                            st.layer, st.progress, st.phase)
        return Expansion(e.src, e.succ, src, moved)


@pytest.mark.parametrize("corrupted", [_DropsAMove, _ArrivesLate])
def test_the_geometry_check_catches_a_corrupted_expand(
        track: CellPathTrack, corrupted: type, monkeypatch: pytest.MonkeyPatch) -> None:
    a = analyze_lattice(track, best_start=True)
    (good,) = run(check_geometry, track, a)
    assert good.verdict == "agree"
    monkeypatch.setattr(cellpath_checks, "CellPathRules", corrupted)
    (bad,) = run(check_geometry, track, a)
    assert bad.verdict == "disagree" and bad.artefacts


def test_a_capped_search_is_a_timeout_not_an_agreement(track: CellPathTrack) -> None:
    a = analyze_lattice(track)
    results = run(check_search, track, a, max_states=5)
    assert results and {r.verdict for r in results} == {"timeout"}


def test_a_capped_geometry_check_says_so(track: CellPathTrack) -> None:
    a = analyze_lattice(track)
    (r,) = run(check_geometry, track, a, geometry_max_states=20)
    assert r.verdict == "agree" and "capped" in r.reason


def test_the_search_results_name_the_cell_path_search(track: CellPathTrack) -> None:
    results = run(check_search, track, analyze_lattice(track))
    assert results and {r.method for r in results} == {cellpath_checks.SEARCH}


def test_an_extreme_on_one_side_only_disagrees(track: CellPathTrack) -> None:
    """The oracle losing its green trajectory is a disagreement, never a silent skip."""
    a = analyze_lattice(track)
    verdicts = {r.figure: r.verdict for r in run(check_search, track,
                                                   dataclasses.replace(a, green=None))}
    assert verdicts["green_length"] == verdicts["green_ties"] == "disagree"
    assert verdicts["blue_length"] == "agree"
