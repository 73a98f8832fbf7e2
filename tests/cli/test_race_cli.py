"""`racecert race` end to end: output, exit codes, replay files, the bundled duel."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from racecert.analysis.slots import analyze_slots
from racecert.cli import main
from racecert.model.parse import load_track
from tests.race.race_check import check_race

ROOT = Path(__file__).resolve().parents[2]
ESQ = str(ROOT / "tracks" / "4_esquinas.toml")
STRAIGHT = str(ROOT / "tracks" / "tiny_straight.toml")
DUEL = ROOT / "tracks" / "races" / "duel.toml"

USER_DRIVER = '''
class Creeper:
    """Accelerates once, then keeps the slowest usable move."""

    name = "creeper"

    def __call__(self, view):
        moves = sorted(view.usable, key=lambda o: (abs(o.result.state.vx)
                                                   + abs(o.result.state.vy),
                                                   o.acceleration))
        return moves[-1].acceleration if view.state.vx == 0 else moves[0].acceleration
'''


def test_standings_and_default_drivers(capsys):
    assert main(["race", ESQ, "--laps", "2"]) == 0
    out = capsys.readouterr().out
    assert "race: 4 Esquinas, 2 lap(s), seed 0, 2 car(s): finished" in out
    assert "alonso" in out and "amateur" in out and "per lap" in out


def test_single_slot_track_defaults_to_alonso_alone(capsys):
    assert main(["race", STRAIGHT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["driver"] for c in data["cars"]] == ["alonso"]


def test_json_keys_and_same_seed_same_bytes(capsys):
    argv = ["race", ESQ, "--driver", "amateur", "--driver", "alonso", "--driver", "amateur",
            "--laps", "2", "--seed", "12", "--json"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    data = json.loads(first)
    assert list(data)[:6] == ["track", "sha256", "seed", "laps", "status", "move_limit"]
    assert {"track", "seed", "laps", "status", "order", "cars"} <= set(data)
    for car in data["cars"]:
        assert {"driver", "slot", "finished", "moves", "moves_per_lap", "trajectory",
                "events", "states_expanded"} <= set(car)
        assert all(e["kind"] in ("blocked", "replan", "wait") for e in car["events"])
        assert all(set(e) == {"turn", "kind", "detail", "cell"} for e in car["events"])
    check_race(load_track(ESQ), data)


def test_replay_files_are_written_atomically(tmp_path, capsys):
    svg, html = tmp_path / "r.svg", tmp_path / "r.html"
    assert main(["race", ESQ, "-o", str(svg), "-o", str(html)]) == 0
    assert svg.read_text().startswith("<svg") and html.read_text().startswith("<!doctype html>")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "r.svg"]  # no temp left
    umask = os.umask(0)
    os.umask(umask)
    assert svg.stat().st_mode & 0o777 == 0o666 & ~umask


@pytest.mark.parametrize(("argv", "message"), [
    (["-o", "{tmp}/replay.png"], "the replay is .svg or .html"),
    (["-o", "{tmp}/missing/replay.svg"], "does not exist"),
    (["-o", "{tmp}"], "the replay is .svg or .html"),
    (["-o", "{tmp}/dir.svg"], "is a folder, not a file"),
    (["--driver", "nobody"], "unknown driver"),
    (["--driver", "{tmp}/none.py:X"], "no such file"),
    (["--driver", "json:nothing_here"], "has no attribute"),
    (["--driver", "json:__doc__"], "not callable"),
    (["--laps", "2", "--driver", "alonso"], None),  # 4_esquinas is a circuit: fine
])
def test_bad_input_exits_2_before_work(tmp_path, capsys, argv, message):
    (tmp_path / "dir.svg").mkdir()
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code = main(["race", ESQ, *argv])
    err = capsys.readouterr().err
    if message is None:
        assert code == 0
        return
    assert code == 2 and message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir.svg"]


def test_laps_on_a_stage_and_a_bad_track(tmp_path, capsys):
    assert main(["race", STRAIGHT, "--laps", "2"]) == 2
    assert "is a stage" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n")
    assert main(["race", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err


def test_move_limit_exits_4_and_still_writes(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["race", STRAIGHT, "--move-limit", "2", "--json", "-o", str(out)]) == 4
    cap = capsys.readouterr()
    data = json.loads(cap.out)
    assert data["status"] == "move_limit" and data["order"] == [] and data["turns"] == 2
    assert "move limit (2 turns): car(s) 0 did not finish" in cap.err
    assert out.exists()


def test_user_driver_from_a_file(tmp_path, capsys):
    f = tmp_path / "my_driver.py"
    f.write_text(USER_DRIVER)
    assert main(["race", ESQ, "--driver", f"{f}:Creeper", "--driver", "alonso", "--json",
                 "--move-limit", "40"]) in (0, 4)
    data = json.loads(capsys.readouterr().out)
    assert [c["driver"] for c in data["cars"]] == ["creeper", "alonso"]
    assert data["cars"][1]["finished"]
    check_race(load_track(ESQ), data)


def test_user_driver_exception_exits_2(tmp_path, capsys):
    f = tmp_path / "crash.py"
    f.write_text("def crash(view):\n    return 1 / 0\n")
    assert main(["race", STRAIGHT, "--driver", f"{f}:crash"]) == 2
    err = capsys.readouterr().err
    assert "car 0 (crash), turn 1" in err and "ZeroDivisionError" in err


def test_bundled_duel_reproduces_its_committed_result(tmp_path, capsys):
    """tracks/races/duel.race.json and docs/img/race_duel.svg are this command's output."""
    svg = tmp_path / "race_duel.svg"
    assert main(["race", str(DUEL), "--driver", "alonso", "--driver", "alonso", "--json",
                 "-o", str(svg)]) == 0
    out = capsys.readouterr().out
    assert out == (ROOT / "tracks" / "races" / "duel.race.json").read_text()
    assert svg.read_text() == (ROOT / "docs" / "img" / "race_duel.svg").read_text()
    data = json.loads(out)
    track = load_track(DUEL)
    check_race(track, data)
    assert [s.analysis.bfs.m_star for s in analyze_slots(track)] == [5, 5]
    car0, car1 = data["cars"]
    # alone each car needs m* = 5; car 0 is blocked on turn 2 at (4, 1) and needs 6
    assert car1["moves_per_lap"] == [5] and car0["moves_per_lap"] == [6]
    assert [(e["turn"], e["kind"], e["cell"]) for e in car0["events"]] == [
        (2, "blocked", [4, 1]), (2, "replan", None)]
    assert data["order"] == [1, 0]
