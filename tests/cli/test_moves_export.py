"""`racecert analyze -o F.csv / F.jsonl`: one row per move of yellow, green and blue."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from racecert.analysis.trajectory import Trajectory
from racecert.cli import main
from racecert.cli.moves_table import COLUMNS, move_rows, to_csv, to_jsonl

ROOT = Path(__file__).resolve().parents[2]


def test_rows_give_back_each_trajectory() -> None:
    t = Trajectory.replay((1, 1), ((1, 0), (0, 1), (-1, 0)))
    rows = list(move_rows([("green", t)]))
    assert [r["index"] for r in rows] == [1, 2, 3]
    assert [(r["x"], r["y"]) for r in rows] == list(t.positions[1:])
    assert [(r["vx"], r["vy"]) for r in rows] == list(t.velocities)
    assert [(r["ax"], r["ay"]) for r in rows] == list(t.accelerations)
    assert (rows[0]["x"] - rows[0]["vx"], rows[0]["y"] - rows[0]["vy"]) == t.positions[0]
    assert to_csv([("green", t)]).splitlines()[0] == ",".join(COLUMNS)
    assert [json.loads(line) for line in to_jsonl([("green", t)]).splitlines()] == rows


def test_analyze_writes_csv_and_jsonl_of_the_three_representatives(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c, j, js = tmp_path / "m.csv", tmp_path / "m.jsonl", tmp_path / "r.json"
    track = str(ROOT / "tracks" / "tiny_straight.toml")
    assert main(["analyze", track, "-o", str(c), "-o", str(j), "-o", str(js)]) == 0
    capsys.readouterr()
    report = json.loads(js.read_text())
    with c.open(newline="") as f:
        rows = list(csv.DictReader(f))
    lines = [json.loads(x) for x in j.read_text().splitlines()]
    assert [{k: str(v) for k, v in r.items()} for r in lines] == rows
    for name in ("yellow", "green", "blue"):
        mine = [r for r in lines if r["trajectory"] == name]
        assert [[r["x"], r["y"]] for r in mine] == report[name]["positions"][1:]
        assert [[r["ax"], r["ay"]] for r in mine] == report[name]["accelerations"]


def test_an_unknown_suffix_is_refused_before_any_work(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.tsv"
    assert main(["analyze", str(ROOT / "tracks" / "tiny_straight.toml"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unknown suffix '.tsv'" in err and ".jsonl for the moves as JSON Lines" in err
    assert not out.exists()


def test_a_lattice_track_has_green_and_blue_rows_and_no_ascii_map(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    track, out = str(ROOT / "tracks" / "lattice" / "riddler.toml"), tmp_path / "m.jsonl"
    assert main(["analyze", track, "-o", str(out)]) == 0
    names = [json.loads(x)["trajectory"] for x in out.read_text().splitlines()]
    assert set(names) == {"green", "blue"}
    assert names == sorted(names, key=("green", "blue").index)  # green's rows first
    capsys.readouterr()
    assert main(["export", "ascii", track]) == 2
    assert "it is a track of the lattice rules" in capsys.readouterr().err
