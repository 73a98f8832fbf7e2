"""The command line on cell-path tracks: a `.track` map analysed and certified directly,
`racecert import cell-path`, the picture, and the state limit (exit 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from racecert.certification.cellpath.checks import CPSAT
from racecert.cli import main
from racecert.model.cellpath.track import CellPathTrack
from racecert.model.parse import load_track

ROOT = Path(__file__).resolve().parents[2]
HAIRPIN = str(ROOT / "tracks" / "cellpath" / "hairpin.toml")
MOMBA_MAP = """dim: 4 9
xxxxxxxxx
s.......x
s..xxx..g
xxxxxxxxx
"""
MDP_LIB_MAP = "9\n4\nXXXXXXXXX\nS       X\nS  XXX  G\nXXXXXXXXX\n"


@pytest.fixture
def maps(tmp_path: Path) -> tuple[Path, Path]:
    momba, mdp = tmp_path / "momba.track", tmp_path / "mdp.track"
    momba.write_text(MOMBA_MAP)
    mdp.write_text(MDP_LIB_MAP)
    return momba, mdp


def test_both_map_formats_analyse_alike(maps: tuple[Path, Path], capsys) -> None:
    figures = []
    for m in maps:
        assert main(["analyze", str(m), "--best-start", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["rules"] == "cell-path" and data["reachable"]
        figures.append((data["m_star"], data["optimal_count"], data["green"]["length_exact"]))
    assert figures[0] == figures[1]


def test_the_report_names_the_speed_cap(capsys) -> None:
    assert main(["analyze", "cellpath/chicane", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["accelerations"], data["speed_cap"]) == ("moore-2", 4)
    assert main(["analyze", "cellpath/hairpin", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["speed_cap"] is None


def test_import_writes_a_track_file_that_reads_back(maps: tuple[Path, Path], tmp_path: Path,
                                                     capsys) -> None:
    out = tmp_path / "m.toml"
    assert main(["import", "cell-path", str(maps[1]), "-o", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    back = load_track(out)
    assert isinstance(back, CellPathTrack)
    assert back.rows == load_track(maps[0]).rows


def test_import_of_a_bad_map_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.track"
    bad.write_text("dim: 2 3\ns.g\n.q.\n")
    assert main(["import", "cell-path", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.track" in err[0]


def test_certify_and_picture(tmp_path: Path, capsys) -> None:
    """A `.track` map certified directly (docs/examples/pocket.track, the README's: a
    fraction of a second; the bundled maps' certificates, seconds each, are tested in
    test_certificate.py), then the picture of a bundled map."""
    out, svg = tmp_path / "c.json", tmp_path / "p.svg"
    pocket = str(ROOT / "docs" / "examples" / "pocket.track")
    assert main(["certify", pocket, "--best-start", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["rules"] == "cell-path" and data["status"] == "certified"
    assert data["figures"]["m_star"]["value"] == 7
    assert {r["method"] for r in data["figures"]["m_star"]["checks"]} >= {CPSAT}
    capsys.readouterr()
    assert main(["analyze", HAIRPIN, "-o", str(svg)]) == 0
    text = svg.read_text()
    assert text.startswith("<svg") and "cell-path rules" in text


@pytest.mark.parametrize("command", ["analyze", "certify"])
def test_max_states_bounds_a_cell_path_track(command: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "out.json"
    assert main([command, HAIRPIN, "--max-states", "1", "-o", str(out)]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "state limit reached" in captured.err.splitlines()[-1]
    assert not out.exists()


def test_a_grid_only_certify_option_is_refused_not_ignored(capsys) -> None:
    """`--count-limit` bounds the grid certificate's enumeration; on a cell-path track it
    would do nothing, so it is one line and exit 2 instead of silently dropped."""
    chicane = str(ROOT / "tracks" / "cellpath" / "chicane.toml")
    assert main(["certify", chicane, "--count-limit", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: --count-limit: ")
    assert "grid tracks only" in err
