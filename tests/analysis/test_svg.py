"""The static picture of `racecert analyze -o x.svg`: readable labels, visible coinciding
trajectories, tight bounds, and the bridge told apart from the tunnel.

Checked on the SVG's own geometry (no pixels): the S/F tags do not overlap the car,
the picture is as wide as the grid (or its minimum width) plus a margin, the three
trajectories have three different stroke widths and blue is dashed, and on Ocho the
moves on the elevated deck are drawn after the deck, with a white edge.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from racecert.analysis.layers import ReplayError, layer_runs, position_layers
from racecert.analysis.pipeline import Analysis, analyze
from racecert.analysis.svg import MIN_WIDTH, PAD, cell_size, render_svg
from racecert.analysis.trajectory import Trajectory
from racecert.model.parse import load_track

TRACKS = Path(__file__).resolve().parent.parent.parent / "tracks"

NAMES = ("tiny_straight.toml", "ocho.toml", "4_esquinas.toml", "llanura.toml")


@cache
def analysis(name: str) -> Analysis:
    return analyze(load_track(TRACKS / name))


def floats(text: str, attr: str) -> float:
    m = re.search(rf'\b{attr}="([-\d.]+)"', text)
    assert m, (attr, text)
    return float(m.group(1))


@pytest.mark.parametrize("name", NAMES)
def test_tags_do_not_overlap_the_car(name: str) -> None:
    svg = render_svg(analysis(name))
    car = re.search(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)" fill="#000"', svg)
    cx, cy, r = (float(g) for g in car.groups())
    tags = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" '
                      r'rx="3"', svg)
    assert len(tags) == 2
    for x, y, w, h in (map(float, t) for t in tags):
        nearest_x, nearest_y = min(max(cx, x), x + w), min(max(cy, y), y + h)
        assert (nearest_x - cx) ** 2 + (nearest_y - cy) ** 2 > r * r
    assert re.search(r">S [→←↑↓]</text>", svg) and re.search(r">F [→←↑↓]</text>", svg)


@pytest.mark.parametrize("name", NAMES)
def test_bounds_are_the_grid_plus_a_margin(name: str) -> None:
    a = analysis(name)
    svg = render_svg(a)
    width = floats(svg, "width")
    grid = a.track.width * cell_size(a.track)
    assert width == max(grid + 2 * PAD, MIN_WIDTH)
    assert grid / width >= 0.5  # no more than half of the picture beside the grid


def test_small_tracks_get_larger_cells() -> None:
    assert cell_size(load_track(TRACKS / "tiny_straight.toml")) == 40
    assert cell_size(load_track(TRACKS / "llanura.toml")) == 20


def test_coinciding_trajectories_stay_visible() -> None:
    svg = render_svg(analysis("tiny_straight.toml"))  # one optimal trajectory: all coincide
    widths = {}
    for name in ("yellow", "green", "blue"):
        m = re.search(rf'<polyline class="{name}" [^>]*stroke-width="([\d.]+)"([^>]*)/>', svg)
        assert m, name
        widths[name] = float(m.group(1))
        assert ("stroke-dasharray" in m.group(2)) == (name == "blue")
    assert widths["yellow"] > widths["green"] > widths["blue"]
    order = [svg.index(f'class="{n}"') for n in ("yellow", "green", "blue")]
    assert order == sorted(order)  # widest first, so each narrower one lies on top


def test_bridge_and_tunnel_are_drawn_apart_on_ocho() -> None:
    a = analysis("ocho.toml")
    svg = render_svg(a)
    deck = svg.index('fill="url(#deck)"')
    yellow = [m.start() for m in re.finditer(r'<polyline class="yellow"', svg)]
    assert min(yellow) < deck < max(yellow)  # ground parts below the deck, bridge parts above
    edged = re.findall(r'<polyline points="[^"]*" fill="none" stroke="#fff"', svg)
    assert edged and svg.index(edged[0]) > deck  # bridge parts have a white edge
    assert "elevated deck (hatched)" in svg


def test_position_layers_replays_the_bridge() -> None:
    a = analysis("ocho.toml")
    layers = position_layers(a.track, a.yellow_trajectory)
    assert layers[0] == 0 and 1 in layers and layers[-1] == 0
    runs = layer_runs(layers)
    assert runs[0][0] == 0 and runs[-1][1] == len(layers) - 1
    assert all(r1[1] == r2[0] for r1, r2 in zip(runs, runs[1:], strict=False))


def test_position_layers_refuses_a_trajectory_of_another_track() -> None:
    track = load_track(TRACKS / "tiny_straight.toml")
    with pytest.raises(ReplayError, match="not legal"):
        position_layers(track, Trajectory.replay((1, 1), ((1, 0), (1, 0), (1, 0), (1, 0))))
    with pytest.raises(ReplayError, match="starts at"):
        position_layers(track, Trajectory.replay((2, 1), ((1, 0),)))
