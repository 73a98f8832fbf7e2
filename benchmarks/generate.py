"""Generated benchmark tracks (issue #2's targets): an open square and a corridor."""

from __future__ import annotations


def open_area(size: int = 200, car_y: int = 100, finish_x: int = 180) -> str:
    """An open size x size area with walls around it; finish across the whole height."""
    inner = size - 2
    rows = ["#" * size] + ["#" + "." * inner + "#" for _ in range(inner)] + ["#" * size]
    grid = "\n".join(rows)
    return f'''name = "Open {size}x{size}"
kind = "stage"
description = "Generated benchmark: open area, car at (1, {car_y}), finish x = {finish_x}."

[car]
position = [1, {car_y}]
direction = "+x"

[start]
x = 1
y = [1, {size - 2}]
dir = "+x"

[finish]
x = {finish_x}
y = [1, {size - 2}]
dir = "+x"

[map]
ground = """
{grid}
"""
'''


def corridor(length: int = 1000, height: int = 5) -> str:
    """A length x height corridor (walls included): start at one end, finish at the other."""
    inner = height - 2
    rows = ["#" * length] + ["#" + "." * (length - 2) + "#" for _ in range(inner)] + ["#" * length]
    grid = "\n".join(rows)
    return f'''name = "Corridor {length}x{height}"
kind = "stage"
description = "Generated benchmark: a straight corridor, start at one end, finish at the other."

[car]
position = [1, {height // 2}]
direction = "+x"

[start]
x = 1
y = [1, {height - 2}]
dir = "+x"

[finish]
x = {length - 3}
y = [1, {height - 2}]
dir = "+x"

[map]
ground = """
{grid}
"""
'''
