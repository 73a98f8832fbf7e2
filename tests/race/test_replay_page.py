"""The replay page's structure: the cell grid, the car palette and its legend, the
standings revealed as cars finish, and one lap's trail at a time (issue #22, item 5).

The page's script is run under Node with the stand-in DOM of `replay_harness.js`;
`test_replay_browser.py` drives the same page in chromium.
"""

from __future__ import annotations

import colorsys
import itertools
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from racecert.analysis.svg import CELL, COLORS, TOP
from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, run_race
from racecert.race.replay import CAR_COLORS, RACING, car_color, standings_at, timeline
from racecert.race.replay_html import render_replay_html, replay_data
from racecert.race.replay_svg import FADED, HOLD_STEPS, render_replay_svg
from racecert.race.standings import HEADER, standings_rows
from tests.race.helpers import Scripted, merge_track

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
HARNESS = Path(__file__).with_name("replay_harness.js")
SVG = "{http://www.w3.org/2000/svg}"
TRAJECTORY = {name: COLORS[name] for name in ("yellow", "green", "blue")}
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.fixture(scope="module")
def race():
    """Four cars, two laps: they finish on four different steps."""
    t = load_track(TRACKS / "4_esquinas.toml")
    return run_race(t, [Alonso(), Amateur(), Alonso(), Amateur()], laps=2, seed=3)


@pytest.fixture(scope="module")
def dnf_race():
    """Car 0 finishes, car 1 never moves: the race ends at the move limit."""
    return run_race(merge_track(), [Alonso(), Scripted()], move_limit=12)


class Elements(HTMLParser):
    """Every start tag of an HTML page with its attributes, and the text under ids."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def with_id(self, ident: str) -> tuple[str, dict[str, str]]:
        (found,) = [t for t in self.tags if t[1].get("id") == ident]
        return found


def page_svg(page: str) -> ET.Element:
    return ET.fromstring(re.search(r"<svg .*?</svg>", page, re.S).group(0))


def grid_of(root: ET.Element) -> list[tuple[float, float, float, float]]:
    (g,) = [g for g in root.iter(f"{SVG}g") if g.get("id") == "grid"]
    return [tuple(float(ln.get(a)) for a in ("x1", "y1", "x2", "y2"))
            for ln in g.iter(f"{SVG}line")]


def expected_grid(track) -> set[tuple[float, float, float, float]]:
    w, h = track.width * CELL, track.height * CELL
    return ({(x * CELL, TOP, x * CELL, TOP + h) for x in range(track.width + 1)}
            | {(0, TOP + y * CELL, w, TOP + y * CELL) for y in range(track.height + 1)})


@pytest.mark.parametrize("render", [render_replay_html, render_replay_svg])
def test_every_cell_border_is_a_grid_line(race, render):
    text = render(race)
    root = page_svg(text) if text.startswith("<!doctype") else ET.fromstring(text)
    lines = grid_of(root)
    assert len(lines) == race.track.width + race.track.height + 2
    assert set(lines) == expected_grid(race.track)
    # the grid is drawn over the track's cells, under every car and trail
    order = [e.get("id") for e in root.iter() if e.get("id") in ("grid", "trails", "cars")]
    if render is render_replay_html:
        assert order == ["grid", "trails", "cars"]


def _hls(color: str) -> tuple[float, float, float]:
    return colorsys.rgb_to_hls(*(int(color[i:i + 2], 16) / 255 for i in (1, 3, 5)))


def _linear(color: str) -> tuple[float, float, float]:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    return tuple(channel(int(color[i:i + 2], 16) / 255) for i in (1, 3, 5))


def _luminance(color: str) -> float:
    r, g, b = _linear(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _lab(color: str) -> tuple[float, float, float]:
    r, g, b = _linear(color)
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
           0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in xyz)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b), strict=True)) ** 0.5


def _hue_gap(a: str, b: str) -> float:
    d = abs(_hls(a)[0] - _hls(b)[0]) * 360
    return min(d, 360 - d)


def test_palette_avoids_the_trajectory_colours():
    assert len(set(CAR_COLORS)) == len(CAR_COLORS) >= 6
    for color in CAR_COLORS:
        assert color.lower() not in {c.lower() for c in TRAJECTORY.values()}
        for name, traj in TRAJECTORY.items():
            assert _delta_e(color, traj) > 30, (color, name)
            if _hls(color)[2] >= 0.3:  # a clear hue: far from yellow's, green's and blue's
                assert _hue_gap(color, traj) >= 45, (color, name)


def test_palette_is_readable_and_distinct():
    for color in CAR_COLORS:  # 3:1, the contrast asked of graphics, on the drivable cells
        assert _contrast(color, COLORS["asphalt"]) >= 3, color
        assert _contrast(color, COLORS["shoulder"]) >= 3, color
    for a, b in itertools.combinations(CAR_COLORS, 2):
        assert _delta_e(a, b) >= 20, (a, b)


def test_the_page_uses_the_palette_and_has_a_legend(race):
    page = render_replay_html(race)
    tags = Elements(page).tags
    items = [a for t, a in tags if t == "li" and "data-car" in a]
    assert [int(a["data-car"]) for a in items] == list(range(len(race.cars)))
    legend = re.search(r'<ul id="legend">(.*?)</ul>', page, re.S).group(1)
    for i, car in enumerate(race.cars):
        assert f"background:{car_color(i)}" in legend and f"car {i} {car.driver}" in legend
    data = replay_data(race)
    assert [c["color"] for c in data["cars"]] == [car_color(i) for i in range(len(race.cars))]
    assert not {c["color"] for c in data["cars"]} & set(TRAJECTORY.values())


def test_the_page_has_its_controls_and_an_empty_standings_table(race):
    e = Elements(render_replay_html(race))
    assert e.with_id("earlier")[0] == "select"
    assert e.with_id("standings")[0] == "table"
    # nothing in the page's markup gives the result away: the script fills the table
    assert "<tr" not in re.search(r'<table id="standings">.*?</table>',
                                  render_replay_html(race), re.S).group(0)


def _finished_by(race, played: int) -> list[int]:
    """The cars that made their last move within the first `played` steps and drove
    every lap, in the order of those moves (from the timeline alone)."""
    steps = timeline(race)
    last = {s.car: k for k, s in enumerate(steps)}
    return sorted((c for c, k in last.items() if k < played and race.cars[c].finished),
                  key=last.__getitem__)


@pytest.mark.parametrize("which", ["race", "dnf_race"])
def test_standings_per_step_list_only_finished_cars(which, request):
    race = request.getfixturevalue(which)
    n = len(timeline(race))
    seen = []
    for k in range(n):
        header, rows = standings_at(race, k)
        done = _finished_by(race, k)
        assert header == ("pos", "car", "driver", "moves")
        ranked = [r for r in rows if r[0] != RACING]
        assert [int(r[1]) for r in ranked] == done
        assert [r[0] for r in ranked] == [str(p) for p in range(1, len(done) + 1)]
        assert [r[3] for r in ranked] == [str(race.cars[c].moves) for c in done]
        racing = [r for r in rows if r[0] == RACING]
        assert [int(r[1]) for r in racing] == [c for c in range(len(race.cars))
                                               if c not in done]
        assert all(r[3] == "" for r in racing)  # nothing told before the car finishes
        seen.append(len(done))
    assert seen == sorted(seen) and seen[0] == 0
    assert standings_at(race, n) == (HEADER, tuple(standings_rows(race)))


def test_the_reveal_happens_one_car_at_a_time(race):
    counts = [len([r for r in standings_at(race, k)[1] if r[0] != RACING])
              for k in range(len(timeline(race)))]
    assert sorted(set(counts)) == [0, 1, 2, 3]  # the fourth finishes on the last step


def _lap_bounds(race):
    """car -> its turns per lap from the JSON (moves_per_lap), as cumulative ends."""
    return {i: list(itertools.accumulate(c.moves_per_lap)) for i, c in enumerate(race.cars)}


def test_each_step_knows_its_lap(race):
    ends = _lap_bounds(race)
    for s in timeline(race):
        assert s.lap == sum(1 for e in ends[s.car] if e < s.turn)
    assert {s.lap for s in timeline(race)} == {0, 1}


def _harness(race, tmp_path, *steps: str) -> list[dict]:
    page = tmp_path / "race.html"
    page.write_text(render_replay_html(race))
    out = subprocess.run(["node", str(HARNESS), str(page), *steps], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


@needs_node
@pytest.mark.parametrize("which", ["race", "dnf_race"])
def test_the_script_reveals_the_standings_step_by_step(which, request, tmp_path):
    race = request.getfixturevalue(which)
    n = len(timeline(race))
    frames = _harness(race, tmp_path, *map(str, range(n + 1)))
    for k, f in enumerate(frames):
        header, rows = standings_at(race, k)
        assert f["header"] == ["", *header]
        assert [r["cells"] for r in f["rows"]] == [list(r) for r in rows]
        assert [r["car"] for r in f["rows"]] == [int(r[1]) for r in rows]
        states = {r["state"] for r in f["rows"]}
        assert states <= ({"final"} if k == n else {"finished", "racing"})


@needs_node
def test_the_script_draws_one_lap_strong(race, tmp_path):
    steps = timeline(race)
    ks = [0, 1, 40, 80, 100, 120, len(steps) - 1, len(steps)]
    faded = _harness(race, tmp_path, *map(str, ks))
    hidden = _harness(race, tmp_path, "hidden", *map(str, ks))[1:]
    for k, f, h in zip(ks, faded, hidden, strict=True):
        lap = {}
        for s in steps[:k]:
            lap[s.car] = s.lap
        moving = [s for s in steps[:k] if s.after != s.before]
        strong = sum(1 for s in moving if s.lap == lap[s.car])
        assert f["trails"] == len(moving) and f["strong"] == strong
        assert h["trails"] == h["strong"] == strong
    assert faded[-1]["strong"] < faded[-1]["trails"]  # two laps: the first one faded


def test_the_svg_fades_a_lap_when_its_car_starts_the_next(race):
    root = ET.fromstring(render_replay_svg(race))
    steps = [s for s in timeline(race) if s.after != s.before]
    trails = [e for e in root.iter(f"{SVG}line") if e.find(f"{SVG}animate") is not None]
    assert len(trails) == len(steps)
    everything = timeline(race)
    for s, line in zip(steps, trails, strict=True):
        values = line.find(f"{SVG}animate").get("values").split(";")
        keys = [float(t) for t in line.find(f"{SVG}animate").get("keyTimes").split(";")]
        if s.lap == race.laps - 1:  # the last lap stays strong
            assert values == ["0", "1"] and line.get("opacity") is None
            continue
        assert values == ["0", "1", str(FADED)] and line.get("opacity") == str(FADED)
        first_next = next(k for k, t in enumerate(everything, start=1)
                          if t.car == s.car and t.lap == s.lap + 1)
        total = len(everything) + HOLD_STEPS  # the loop: the steps, then a hold
        assert keys[2] == pytest.approx(first_next / total, abs=1e-6) and keys[1] < keys[2]
