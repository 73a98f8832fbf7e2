"""Small helpers shared by the race tests: scripted drivers and hand-made tracks."""

from __future__ import annotations

from racecert.model.parse import parse_track
from racecert.model.track import Track
from racecert.race.driver import CarView


class Scripted:
    """A driver playing a fixed list of accelerations (None: wait), then waiting.

    `calls` counts how often the race asked it.
    """

    def __init__(self, *moves: tuple[int, int] | None, name: str = "scripted") -> None:
        self.moves = list(moves)
        self.name = name
        self.calls = 0

    def __call__(self, view: CarView) -> tuple[int, int] | None:
        self.calls += 1
        return self.moves.pop(0) if self.moves else None


def track_of(rows: str, car: tuple[int, int], slots: list[tuple[int, int]], start_x: int,
             finish_x: int, ys: tuple[int, int], name: str = "hand-made") -> Track:
    """A ground-only stage driven in +x, with vertical lines S and F spanning rows ys."""
    text = f'''
name = "{name}"
kind = "stage"

[car]
position = [{car[0]}, {car[1]}]
direction = "+x"
slots = {[list(s) for s in slots]}

[start]
x = {start_x}
y = [{ys[0]}, {ys[1]}]
dir = "+x"

[finish]
x = {finish_x}
y = [{ys[0]}, {ys[1]}]
dir = "+x"

[map]
ground = """
{rows.strip()}
"""
'''
    return parse_track(text.encode(), f"<{name}>")


# Two lanes merge into one: car 0 on the upper lane (row 1), car 1 on the lower lane
# (row 2), which ends at x = 2; both need the cell (2, 1) to go fast.
MERGE = """
##############
#............#
#..###########
##############
"""


def merge_track() -> Track:
    return track_of(MERGE, (1, 1), [(1, 2)], start_x=2, finish_x=9, ys=(1, 2), name="merge")


# A one-lane corridor: car 0 at x = 1 right behind car 1 at x = 2.
CORRIDOR = """
##############
#............#
##############
"""


def corridor_track() -> Track:
    return track_of(CORRIDOR, (1, 1), [(2, 1)], start_x=2, finish_x=9, ys=(1, 1),
                    name="corridor")
