"""The rule profiles as plug-ins through every layer (issue #20): one registry per layer,
one analysis type, one certificate type, and no `lattice_*` copy of a module above the
model."""

from __future__ import annotations

from pathlib import Path

import pytest

import racecert
from racecert.analysis.base import BaseAnalysis
from racecert.analysis.profiles import ANALYSIS_PROFILES, analysis_profile
from racecert.certification.certificate import Judged
from racecert.certification.profiles import CERTIFICATION_PROFILES, certification_profile
from racecert.model.profiles import PROFILES

PACKAGE = Path(racecert.__file__).resolve().parent


def test_every_profile_is_registered_in_every_layer() -> None:
    names = [p.name for p in PROFILES]
    assert list(ANALYSIS_PROFILES) == names and list(CERTIFICATION_PROFILES) == names
    for p in PROFILES:
        assert ANALYSIS_PROFILES[p.name].model is p
        assert CERTIFICATION_PROFILES[p.name].model is p
        assert issubclass(ANALYSIS_PROFILES[p.name].analysis_type, BaseAnalysis)
        assert issubclass(CERTIFICATION_PROFILES[p.name].certificate_type, Judged)


@pytest.mark.parametrize("layer", ["analysis", "certification", "cli"])
def test_no_lattice_copy_of_a_module_remains(layer: str) -> None:
    assert sorted(p.name for p in (PACKAGE / layer).glob("lattice_*.py")) == []


@pytest.mark.parametrize("name", ["tiny_straight", "lattice/riddler", "cellpath/hairpin"])
def test_one_path_gives_the_base_types(name: str) -> None:
    track = racecert.load_track(name)
    a = racecert.analyze(track)
    assert isinstance(a, BaseAnalysis) and isinstance(a, analysis_profile(track).analysis_type)
    assert a.profile.name == certification_profile(track).model.name
    assert a._repr_svg_().startswith("<svg") and a.to_json()["m_star"] == a.bfs.m_star
    rows = dict(analysis_profile(track).report_rows(a))
    assert rows["m* (minimum moves)"] == str(a.bfs.m_star)


def test_refusals_name_the_option() -> None:
    grid, lattice = ANALYSIS_PROFILES["grid"], ANALYSIS_PROFILES["lattice"]
    assert grid.refusal() is None and lattice.refusal(best_start=True) is None
    assert grid.refusal(best_start=True)[0] == "best_start"  # type: ignore[index]
    assert lattice.refusal(mode="editor")[0] == "mode"  # type: ignore[index]
    assert lattice.refusal(all_slots=True)[0] == "all_slots"  # type: ignore[index]
