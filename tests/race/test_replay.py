"""Replays: the animated SVG and the self-contained HTML page show the race."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from racecert.analysis.svg import CELL, TOP
from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, run_race
from racecert.race.replay import timeline
from racecert.race.replay_html import render_replay_html
from racecert.race.replay_svg import render_replay_svg
from tests.race.helpers import Scripted, merge_track

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
HARNESS = Path(__file__).with_name("replay_harness.js")
SVG = "{http://www.w3.org/2000/svg}"


def center(p):
    return (p[0] * CELL + CELL / 2, TOP + p[1] * CELL + CELL / 2)


@pytest.fixture(scope="module")
def race():
    t = load_track(TRACKS / "4_esquinas.toml")
    return run_race(t, [Alonso(), Amateur(), Alonso(), Amateur()], laps=2, seed=3)


@pytest.fixture(scope="module")
def blocked_race():
    car0 = Scripted((1, 0), (1, 0))
    car1 = Scripted((1, -1), (1, -1))
    return run_race(merge_track(), [car0, car1], move_limit=3)


def test_timeline_is_the_turn_order(race):
    steps = timeline(race)
    assert len(steps) == sum(c.moves for c in race.cars)
    turns = [(s.turn, s.car) for s in steps]
    assert turns == sorted(turns)
    for s in steps:
        car = race.cars[s.car]
        assert (s.before, s.after) == (car.trajectory[s.turn - 1], car.trajectory[s.turn])


def test_svg_is_well_formed_and_animates_every_car(race):
    root = ET.fromstring(render_replay_svg(race))
    circles = [c for c in root.iter(f"{SVG}circle") if c.find(f"{SVG}animate") is not None]
    assert len(circles) == len(race.cars)
    for car, circle in zip(race.cars, circles, strict=True):
        # static attributes: the end of the race (for viewers without animation)
        assert (float(circle.get("cx")), float(circle.get("cy"))) == center(car.trajectory[-1])
        cx = next(a for a in circle.iter(f"{SVG}animate") if a.get("attributeName") == "cx")
        values = [float(v) for v in cx.get("values").split(";")]
        keys = [float(k) for k in cx.get("keyTimes").split(";")]
        assert values[0] == center(car.trajectory[0])[0] and values[-1] == center(
            car.trajectory[-1])[0]
        assert keys == sorted(keys) and keys[0] == 0 and keys[-1] <= 1
    trails = [e for e in root.iter(f"{SVG}line") if e.find(f"{SVG}animate") is not None]
    assert len(trails) == sum(1 for s in timeline(race) if s.after != s.before)


def test_svg_marks_blocked_moves(blocked_race):
    root = ET.fromstring(render_replay_svg(blocked_race))
    marks = [p for p in root.iter(f"{SVG}path") if p.find(f"{SVG}title") is not None]
    assert len(marks) == 1 and "blocked" in marks[0].find(f"{SVG}title").text
    x, y = center((2, 1))
    assert f"M{x - CELL * 0.35:.1f},{y - CELL * 0.35:.1f}" in marks[0].get("d")


def test_html_is_self_contained(race):
    page = render_replay_html(race)
    assert not re.search(r"""(src|href)\s*=|@import|url\((?!#)|https?://(?!www\.w3\.org/2000/svg)""",
                         page)
    data = re.search(r'<script type="application/json" id="race-data">(.*?)</script>', page,
                     re.S).group(1)
    parsed = json.loads(data)
    assert len(parsed["steps"]) == len(timeline(race))
    assert "</" not in data and "<" not in data


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_html_script_steps_through_the_race(race, tmp_path):
    page = tmp_path / "race.html"
    page.write_text(render_replay_html(race))
    n = len(timeline(race))
    out = subprocess.run(["node", str(HARNESS), str(page), "first", "next", "last", "prev",
                          "5"], capture_output=True, text=True, check=True)
    first, one, last, before_last, five = json.loads(out.stdout)
    assert [tuple(c[:2]) for c in first["cars"]] == [center(c.trajectory[0]) for c in race.cars]
    assert first["trails"] == 0 and first["now"].startswith("start")
    moving = [s.after != s.before for s in timeline(race)]
    assert one["trails"] == int(moving[0])
    assert [tuple(c[:2]) for c in last["cars"]] == [center(c.trajectory[-1]) for c in race.cars]
    assert last["trails"] == sum(moving) and last["now"].startswith(f"step {n} of {n}")
    assert all(c[2] == 0.3 for c in last["cars"])  # all finished: faded
    assert before_last["now"].startswith(f"step {n - 1} of {n}")
    assert five["trails"] == sum(moving[:5])


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_html_script_shows_blocked_marks(blocked_race, tmp_path):
    page = tmp_path / "blocked.html"
    page.write_text(render_replay_html(blocked_race))
    out = subprocess.run(["node", str(HARNESS), str(page), "1", "2", "last"],
                         capture_output=True, text=True, check=True)
    after_car0, after_car1, _ = json.loads(out.stdout)
    assert after_car0["marks"] == 0 and after_car1["marks"] == 1
