"""Issue #22 item 2: the bundled tracks by name.

`racecert tracks` lists every `.toml` under racecert/tracks/ (the list is rebuilt here
from the folder itself, not from `racecert.model.bundled`); every track argument takes a
bundled track's name; a file of that name wins; an unknown name is one line with the
closest names and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from racecert.cli import main
from racecert.model.bundled import (
    bundled_folder,
    bundled_tracks,
    is_bare_name,
    track_inputs,
    track_path,
)

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "racecert" / "tracks"
FILES = sorted(p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*.toml"))


def test_the_root_tracks_folder_is_the_package_data() -> None:
    assert (ROOT / "tracks").resolve() == FOLDER.resolve()
    assert bundled_folder() is not None and bundled_folder().resolve() == FOLDER.resolve()
    assert "ocho.toml" in FILES and "lattice/riddler.toml" in FILES and len(FILES) >= 20


def test_every_bundled_track_is_found_once_by_a_unique_name() -> None:
    found = bundled_tracks()
    assert sorted(t.relative for t in found) == FILES
    assert len({t.name for t in found}) == len(found)  # a name never stands for two files
    assert all(t.name == Path(t.relative).stem and t.path.is_file() for t in found)


def test_tracks_lists_each_bundled_track_on_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tracks"]) == 0
    out, err = capsys.readouterr()
    header, *lines = out.splitlines()
    assert header.split()[:3] == ["name", "size", "layers"] and err == ""
    assert sorted(line.split()[0] for line in lines) == sorted(Path(f).stem for f in FILES)
    rows = {line.split()[0]: line.split() for line in lines}
    assert rows["tiny_straight"][1:6] == ["10x3", "1", "grid", "stage", "no"]
    assert rows["ocho"][1:5] == ["29x31", "2", "grid", "circuit"]
    assert rows["riddler"][1:5] == ["15x15", "1", "lattice", "-"]
    assert rows["apertura"][5] == "yes"  # its opening rule


def test_tracks_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tracks", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(d["file"] for d in data) == FILES
    by_name = {d["name"]: d for d in data}
    assert by_name["tiny_straight"] == {
        "name": "tiny_straight", "file": "tiny_straight.toml", "title": "Tiny straight",
        "width": 10, "height": 3, "layers": 1, "rules": "grid", "kind": "stage",
        "opening": False}
    assert by_name["riddler"]["rules"] == "lattice" and by_name["riddler"]["kind"] is None


@pytest.mark.parametrize(("arg", "bare"), [
    ("ocho", True), ("lattice/riddler", True), ("4_esquinas", True),
    ("ocho.toml", False), ("tracks/ocho.toml", False), ("/abs/ocho", False),
    ("../ocho", False), ("", False), ("a\\b", False),
])
def test_is_bare_name(arg: str, bare: bool) -> None:
    assert is_bare_name(arg) is bare


def test_analyze_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "tiny_straight", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["track"] == "Tiny straight" and data["m_star"] == 3
    assert data["optimal_count"] == "1"  # exact counts are decimal strings in the JSON


def test_certify_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "tiny_straight", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "certified"


def test_validate_by_name_and_by_relative_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "ocho", "lattice/riddler", "tracks/tiny_straight.toml"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("ocho: ok — 'Ocho', 29x31, 2 layer(s)")
    assert out[1].startswith("lattice/riddler: ok — 'Riddler racetrack'")
    assert out[2].startswith("tracks/tiny_straight.toml: ok — 'Tiny straight'")


def test_export_and_library_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "ascii", "tiny_straight"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "##########"
    assert main(["library", "tiny_straight", "mini_arcen"]) == 0
    names = [t["track"] for t in json.loads(capsys.readouterr().out)["tracks"]]
    assert names == ["Tiny straight", "Mini arcen"]


def test_batch_inputs_by_name_and_pattern(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine").mkdir()
    monkeypatch.chdir(tmp_path)
    got = track_inputs(["ocho", "lattice/riddler", "mine", "*.toml", "x/y.toml"])
    assert [Path(g).resolve() for g in got[:2]] == [(FOLDER / "ocho.toml").resolve(),
                                                    (FOLDER / "lattice/riddler.toml").resolve()]
    assert got[2:] == ["mine", "*.toml", "x/y.toml"]  # a folder, a pattern, a path: as given


def test_studio_opens_a_bundled_track_by_name(tmp_path: Path) -> None:
    from racecert.cli.studio import _folders
    from racecert.studio.files import Roots
    from racecert.studio.files import bundled_tracks as studio_bundled

    args = argparse.Namespace(track="ocho", folder=[str(tmp_path)])
    assert _folders(args) == [tmp_path, FOLDER.resolve()]
    roots = Roots.of(_folders(args), studio_bundled())  # as cmd_studio builds them
    assert [(f.path, f.writable) for f in roots.folders] == [
        (FOLDER.resolve(), False), (tmp_path.resolve(), True)]  # the bundled stay read only


def test_a_file_of_that_name_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ocho").write_text((FOLDER / "tiny_straight.toml").read_text())
    monkeypatch.chdir(tmp_path)
    assert track_path("ocho") == "ocho"
    assert main(["validate", "ocho"]) == 0
    assert capsys.readouterr().out.startswith("ocho: ok — 'Tiny straight', 10x3")


@pytest.mark.parametrize(("argv", "hint"), [
    (["analyze", "ocha"], "did you mean 'ocho'?"),
    (["certify", "tiny_stright"], "did you mean 'tiny_straight'?"),
    (["validate", "lattice/ridler"], "did you mean 'riddler'?"),
    (["race", "duell"], "did you mean 'duel'?"),
    (["crosscheck", "ocha", "result.json"], "did you mean 'ocho'?"),
    (["batch", "ocha", "--db", "x.duckdb"], "did you mean 'ocho'?"),
    (["studio", "ocha"], "did you mean 'ocho'?"),
    (["analyze", "frobnicate"], ""),
])
def test_an_unknown_name_is_one_line_with_the_closest_names(
        argv: list[str], hint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    name = argv[1]
    assert out == ""
    assert err == (f"error: {name}: no such file, and no bundled track of that name"
                   + (f"; {hint}" if hint else "")
                   + " (`racecert tracks` lists the bundled tracks)\n")
    assert not list(tmp_path.iterdir())  # nothing written (batch's database included)


def test_a_missing_path_with_a_suffix_keeps_the_readers_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "no/such/ocho.toml"]) == 2
    assert capsys.readouterr().err == ("error: no/such/ocho.toml: cannot read file: "
                                       "No such file or directory\n")
