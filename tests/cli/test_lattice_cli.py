"""The command line on lattice tracks: analyze (with --best-start), certify, validate,
import bekos, and the grid-only subcommands' one-line refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from racecert.certification.lattice.checks import CPSAT, SEARCH
from racecert.cli import main
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import load_track
from tests.certification.test_lattice_certificate import SMALL

ROOT = Path(__file__).resolve().parents[2]
RIDDLER = str(ROOT / "tracks" / "lattice" / "riddler.toml")
BEKOS = ROOT.parent / "shared" / "external" / "bekos-racetrack"
needs_bekos = pytest.mark.skipif(not (BEKOS / "oTrack.xml").is_file(),
                                 reason=f"the Bekos XML files are not in {BEKOS} (external "
                                        "test data, not part of the repository)")


def test_analyze_riddler_table_json_svg(tmp_path: Path, capsys) -> None:
    out, svg = tmp_path / "r.json", tmp_path / "r.svg"
    assert main(["analyze", RIDDLER, "-o", str(out), "-o", str(svg)]) == 0
    table = capsys.readouterr().out
    assert "m* (minimum moves)     12" in table and "322" in table
    assert "coverage (skipped)" in table and "yellow (skipped)" in table
    data = json.loads(out.read_text())
    assert data["rules"] == "lattice" and data["m_star"] == 12
    assert data["optimal_count"] == "322" and data["starts_considered"] == [[0, 5]]
    assert set(data["skipped"]) == {"yellow", "bound", "kind", "continuity", "coverage",
                                    "score"}
    assert data["green"]["positions"][0] == [0, 5]  # file coordinates
    assert data["green"]["moves"] == 12 and data["green"]["ties"] == "2"
    text = svg.read_text()
    assert text.startswith("<svg") and "m* = 12" in text and text.count("<polyline") == 2


def test_analyze_names_the_acceleration_set(tmp_path: Path, capsys) -> None:
    assert main(["analyze", "riddler_von_neumann"]) == 0
    table = capsys.readouterr().out
    assert "accelerations          von-neumann" in table and "m* (minimum moves)     14" in table
    assert main(["analyze", RIDDLER, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accelerations"] == "moore"
    bad = tmp_path / "bad.toml"
    bad.write_text(Path(RIDDLER).read_text().replace('rules = "lattice"',
                                                     'rules = "lattice"\naccelerations = "king"'))
    assert main(["validate", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert (out + err).strip().count("\n") == 0, out + err
    assert 'accelerations: must be "moore" (the default) or "von-neumann", got \'king\'' in err


@needs_bekos
def test_import_then_analyze_with_best_start(tmp_path: Path, capsys) -> None:
    toml = tmp_path / "o.toml"
    assert main(["import", "bekos", str(BEKOS / "oTrack.xml"), "-o", str(toml)]) == 0
    t = load_track(toml)
    assert isinstance(t, LatticeTrack) and len(t.starts) == 5
    assert main(["analyze", str(toml), "--best-start", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["best_start"] is True and len(data["starts_considered"]) == 5
    per_start = sum(int(s["optimal_count"]) for s in data["optimal_starts"])
    assert per_start == int(data["optimal_count"])
    assert main(["validate", str(toml)]) == 0
    assert "lattice rules" in capsys.readouterr().out


def test_import_to_stdout_and_bad_xml(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text('<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY e "x">]>\n<Track/>\n')
    assert main(["import", "bekos", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refused" in err and f"{bad}:2" in err
    bad.write_text("<Track name='x' type='Sprint'><Dimension")
    assert main(["import", "bekos", str(bad), "-o", str(tmp_path / "x.toml")]) == 2
    assert "malformed XML" in capsys.readouterr().err
    assert not (tmp_path / "x.toml").exists()
    assert main(["import", "bekos", str(bad), "-o", str(tmp_path / "no" / "x.toml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_import_refuses_an_invalid_track(tmp_path: Path, capsys) -> None:
    xml = tmp_path / "t.xml"
    xml.write_text('<Track name="t" type="Sprint"><OuterBoundaries><Point id="0" x="1" y="1"/>'
                   '<Point id="1" x="9" y="1"/></OuterBoundaries><InnerBoundaries>'
                   '<Point id="0" x="1" y="5"/><Point id="1" x="9" y="5"/></InnerBoundaries>'
                   '<Dimension width="12" height="8"/><StartingPositions>'
                   '<Point x="3" y="1"/></StartingPositions></Track>')
    assert main(["import", "bekos", str(xml)]) == 2
    err = capsys.readouterr().err
    assert "the imported track is not valid" in err and "lies on the wall" in err


def test_grid_options_are_refused_on_lattice_tracks(capsys) -> None:
    assert main(["analyze", RIDDLER, "--mode", "editor"]) == 2
    assert "no opening phase" in capsys.readouterr().err
    assert main(["analyze", RIDDLER, "--all-slots"]) == 2
    assert "--best-start" in capsys.readouterr().err
    assert main(["analyze", "tracks/tiny_straight.toml", "--best-start"]) == 2
    assert "one car" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["library", RIDDLER], ["race", RIDDLER],
                                  ["crosscheck", RIDDLER, RIDDLER]])
def test_grid_only_subcommands_refuse_lattice_tracks(argv: list[str], capsys) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a lattice track" in err


def test_a_search_past_its_state_limit_is_exit_4(monkeypatch, capsys) -> None:
    from racecert.analysis.lattice import pipeline as lattice_pipeline

    monkeypatch.setattr(lattice_pipeline, "MAX_STATES", 500)
    assert main(["analyze", RIDDLER]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "more than the limit of 500" in err


def test_the_grid_pipeline_refuses_a_lattice_track() -> None:
    from racecert.analysis import analyze

    with pytest.raises(TypeError, match="analyze_lattice"):
        analyze(load_track(RIDDLER))  # type: ignore[arg-type]


def test_certify_a_lattice_track(tmp_path: Path, capsys) -> None:
    """`certify` of a lattice track file, with its table and certificate file: the small
    ring of tests/certification/test_lattice_certificate.py (a tenth of a second; the
    riddler's certificate, seconds, is tested there and in tests/test_public_tracks.py)."""
    track, out = tmp_path / "small.toml", tmp_path / "c.json"
    track.write_text(SMALL)
    assert main(["certify", str(track), "-o", str(out)]) == 0
    assert "CERTIFIED" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["rules"] == "lattice" and data["status"] == "certified"
    assert data["figures"]["m_star"]["value"] == 8
    assert {r["method"] for r in data["figures"]["m_star"]["checks"]} == {CPSAT, SEARCH}


@pytest.mark.parametrize("command", ["analyze", "certify"])
def test_max_states_bounds_a_lattice_track(command: str, tmp_path: Path, capsys) -> None:
    """--max-states applies to lattice tracks as to grid tracks: the riddler's BFS holds 9
    states after one move, so a budget of 1 stops it with exit 4 and one line, and no
    output is written (it used to explore all 8,153 states and exit 0)."""
    out = tmp_path / "out.json"
    assert main([command, RIDDLER, "--max-states", "1", "-o", str(out)]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "error: state limit reached: the BFS stored 9 states at depth 1 (--max-states 1)")
    assert not out.exists()


def test_a_budget_the_lattice_search_fits_in_changes_nothing(capsys) -> None:
    assert main(["analyze", RIDDLER, "--json"]) == 0
    free = json.loads(capsys.readouterr().out)
    assert main(["analyze", RIDDLER, "--json", "--max-states", "8153"]) == 0
    bounded = json.loads(capsys.readouterr().out)
    for data in (free, bounded):
        data.pop("seconds", None)
        data.pop("timings", None)
    assert bounded == free
