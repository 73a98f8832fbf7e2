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


def serpentine(plies: int = 30, length: int = 205, width: int = 5, gap: int = 5) -> str:
    """A serpentine: `plies` corridors of `length` x `width` free cells stacked with one wall
    row between them, each joined to the next by a `gap`-wide opening at alternate ends.

    The car starts at the west end of the first ply heading +x; the finish line lies across
    the last ply near its far end (west or east by the parity of `plies`).
    """
    w = length + 2
    h = plies * width + (plies - 1) + 2
    grid = [["#"] * w for _ in range(h)]
    for p in range(plies):
        top = 1 + p * (width + 1)
        for y in range(top, top + width):
            for x in range(1, w - 1):
                grid[y][x] = "."
        if p + 1 < plies:  # the opening in the wall row below this ply
            xs = range(w - 1 - gap, w - 1) if p % 2 == 0 else range(1, 1 + gap)
            for x in xs:
                grid[top + width][x] = "."
    last_top = 1 + (plies - 1) * (width + 1)
    east = (plies - 1) % 2 == 0
    fx = w - 4 if east else 3
    fdir = "+x" if east else "-x"
    text = "\n".join("".join(r) for r in grid)
    return f'''name = "Serpentine {plies}x{length}x{width}"
kind = "stage"
description = "Generated benchmark: {plies} plies of {length}x{width}, {gap}-wide openings."

[car]
position = [1, {1 + width // 2}]
direction = "+x"

[start]
x = 1
y = [1, {width}]
dir = "+x"

[finish]
x = {fx}
y = [{last_top}, {last_top + width - 1}]
dir = "{fdir}"

[map]
ground = """
{text}
"""
'''
