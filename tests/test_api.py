"""The Python API: the README's example and the module doctests run as tests."""

from __future__ import annotations

import dataclasses
import doctest
import re
from pathlib import Path

import pytest

import racecert
import racecert.api
from racecert.certification.cellpath import checks as cellpath_checks

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples use paths relative to the repository


def test_the_readme_example_runs() -> None:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Python API\n\n```python\n(.*?)```", text, re.S)
    assert block is not None
    test = doctest.DocTestParser().get_doctest(block.group(1), {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 5


@pytest.mark.parametrize("module", [racecert, racecert.api])
def test_module_doctests(module) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


def test_every_kind_of_source_loads_the_same_track() -> None:
    path = "tracks/tiny_straight.toml"
    text = Path(path).read_text()
    tracks = [racecert.load_track(src) for src in (path, Path(path), text, text.encode())]
    assert len({t.sha256 for t in tracks}) == 1
    assert racecert.load_track(tracks[0]) == tracks[0]


def test_a_track_built_in_code_is_validated() -> None:
    t = racecert.load_track("tracks/tiny_straight.toml")
    on_a_wall = dataclasses.replace(t, car=dataclasses.replace(t.car, position=(0, 0)))
    with pytest.raises(racecert.TrackError, match="not asphalt"):
        racecert.analyze(on_a_wall)
    with pytest.raises(TypeError, match="a Track .of any profile., a path or TOML text"):
        racecert.load_track(42)  # type: ignore[arg-type]


def test_reprs_are_short_and_the_version_is_known() -> None:
    a = racecert.analyze("tracks/4_esquinas.toml")
    assert len(repr(a)) < 200 and len(repr(a.track)) < 200
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", racecert.__version__)
    assert "load_track" in dir(racecert)
    with pytest.raises(AttributeError):
        racecert.no_such_thing  # noqa: B018


def test_every_profile_goes_through_the_same_api(chicane_certificate) -> None:
    lattice = racecert.load_track("lattice/riddler")
    cell = racecert.load_track("cellpath/hairpin")
    assert racecert.load_track(cell) is cell
    a = racecert.analyze(cell)
    assert (type(a).__name__, a.bfs.m_star, a.bfs.optimal_count) == ("LatticeAnalysis", 15,
                                                                      93640)
    best = racecert.analyze(lattice, best_start=True)
    first = racecert.analyze(lattice)
    assert best.best_start and not first.best_start
    assert best.bfs.m_star <= first.bfs.m_star
    c = chicane_certificate  # racecert.certify("cellpath/chicane"), the smaller map: its
    # CP-SAT m* is cheaper (tests/conftest.py: once for this test and test_api_reprs.py)
    assert type(c).__name__ == "LatticeCertificate" and c.status == "certified"
    assert {f.name for f in c.figures} >= {"m_star", "optimal_count"}
    # its CP-SAT model of m* (A = 2, a speed cap) agrees: tests/cellpath/test_certificate.py
    # solves it from every start on hairpin only
    (m,) = [r for r in c.results if r.method == cellpath_checks.CPSAT]
    assert (m.verdict, m.kind, m.method_value) == ("agree", "solver-model", 11)


def test_options_of_another_profile_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="only the exact key exists"):
        racecert.analyze("cellpath/hairpin", "editor")
    with pytest.raises(ValueError, match="best_start: a grid track has one car"):
        racecert.analyze("tracks/tiny_straight.toml", best_start=True)
    with pytest.raises(ValueError, match="best_start: a grid track has one car"):
        racecert.certify("tracks/tiny_straight.toml", best_start=True)
    with pytest.raises(ValueError, match="count_limit, work apply to grid tracks only"):
        racecert.certify("cellpath/hairpin", count_limit=5, work=lambda *a: None)
