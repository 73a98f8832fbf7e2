"""The Python API: the README's example and the module doctests run as tests."""

from __future__ import annotations

import dataclasses
import doctest
import re
from pathlib import Path

import pytest

import racecert
import racecert.api

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
    with pytest.raises(TypeError, match="a Track, a path or TOML text"):
        racecert.load_track(42)  # type: ignore[arg-type]


def test_reprs_are_short_and_the_version_is_known() -> None:
    a = racecert.analyze("tracks/4_esquinas.toml")
    assert len(repr(a)) < 200 and len(repr(a.track)) < 200
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", racecert.__version__)
    assert "load_track" in dir(racecert)
    with pytest.raises(AttributeError):
        racecert.no_such_thing  # noqa: B018
