"""The track model: grids, surfaces, lines, car and opening rule.

A `Track` is an immutable, validated description of one vector-race track
(docs/track-format.md-§4). Surfaces are exposed both per cell (for exact reference code)
and as numpy arrays (for the vectorised BFS). Coordinates: cell (x, y), x to
the right, y downward (the row index in the file); a car position is a cell
centre, i.e. an integer point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

Direction = Literal["+x", "-x", "+y", "-y"]
DIRECTIONS: tuple[str, ...] = ("+x", "-x", "+y", "-y")
DIRECTION_VECTORS: dict[str, tuple[int, int]] = {
    "+x": (1, 0),
    "-x": (-1, 0),
    "+y": (0, 1),
    "-y": (0, -1),
}

GROUND_CHARS = {"#": "off", ".": "asphalt", ":": "shoulder", "/": "ramp"}
ELEVATED_CHARS = {"#": "off", " ": "off", "=": "asphalt", ":": "shoulder", "/": "ramp"}


@dataclass(frozen=True)
class Line:
    """A start or finish line: an axis-aligned segment on cell boundaries.

    `axis == "x"` is the vertical boundary x = k + 1/2 spanning rows lo..hi
    (closed: y in [lo - 1/2, hi + 1/2]); `axis == "y"` is the horizontal
    boundary y = k + 1/2 spanning columns lo..hi. `direction` is the sign of
    the velocity component that crosses it legally; `layer` the layer on which
    it counts.

    >>> Line("x", 4, 1, 6, "+x", 0).sign
    1
    """

    axis: Literal["x", "y"]
    k: int
    lo: int
    hi: int
    direction: Direction
    layer: int = 0

    @property
    def sign(self) -> int:
        """+1 when the line is crossed towards increasing coordinate."""
        return 1 if self.direction[0] == "+" else -1

    def entry_side(self, x: int, y: int) -> bool:
        """True if the cell centre (x, y) lies on the side the line is crossed from."""
        c = x if self.axis == "x" else y
        return c <= self.k if self.sign > 0 else c >= self.k + 1


@dataclass(frozen=True)
class Opening:
    """The opening rule: during moves 1..moves the new velocity is constrained."""

    moves: int
    max_speed: int | None = None
    straight: bool = False


@dataclass(frozen=True)
class Car:
    """The configured car: initial position, facing direction, layer, extra grid slots."""

    position: tuple[int, int]
    direction: Direction
    layer: int = 0
    slots: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Track:
    """A validated track. Build one with `racecert.model.parse.load_track`."""

    name: str
    width: int
    height: int
    ground: tuple[str, ...]
    elevated: tuple[str, ...] | None
    car: Car
    start: Line
    finish: Line
    opening: Opening | None = None
    kind: Literal["stage", "circuit"] | None = None
    description: str = ""
    sha256: str = ""
    path: str = field(default="", compare=False)

    def __repr__(self) -> str:
        """Short: the grids stay out (print `track.ground` to see them)."""
        where = f", path={self.path!r}" if self.path else ""
        return (f"Track({self.name!r}, {self.width}x{self.height}, layers={self.layers}"
                f"{where}, sha256={self.sha256[:12]!r})")

    # -- per-cell surface queries (exact reference code uses these) ---------

    def char(self, layer: int, x: int, y: int) -> str:
        """The grid character at (x, y) in `layer`; off-grid and missing cells are '#'."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            return "#"
        if layer == 0:
            return self.ground[y][x]
        if self.elevated is None or y >= len(self.elevated) or x >= len(self.elevated[y]):
            return "#"
        c = self.elevated[y][x]
        return "#" if c == " " else c

    def drivable(self, layer: int, x: int, y: int) -> bool:
        """A move may pass through (x, y) in `layer`."""
        return self.char(layer, x, y) != "#"

    def is_ramp(self, x: int, y: int) -> bool:
        """A ramp: the only cells where the layer may change."""
        return self.char(0, x, y) == "/"

    def is_shoulder(self, layer: int, x: int, y: int) -> bool:
        """A shoulder: passable, but a move may not end there."""
        return self.char(layer, x, y) == ":"

    def endable(self, layer: int, x: int, y: int) -> bool:
        """A move may end at (x, y) in `layer` (asphalt or ramp)."""
        return self.char(layer, x, y) in (".", "=", "/")

    @property
    def layers(self) -> int:
        """Number of layers: 1 without an elevated grid, else 2."""
        return 1 if self.elevated is None else 2

    # -- array views (vectorised solvers use these) -------------------------

    @cached_property
    def surface_arrays(self) -> SurfaceArrays:
        """Boolean numpy views of the surfaces, indexed [layer, y, x].

        Built from the grids as byte arrays (the same answers as `drivable`,
        `endable` and `is_ramp` per cell: missing elevated cells and spaces are
        off-track, and an absent elevated grid makes layer 1 all off-track).
        """
        h, w = self.height, self.width
        chars = np.full((2, h, w), ord("#"), dtype=np.uint8)
        chars[0] = np.frombuffer("".join(self.ground).encode("ascii"),
                                 dtype=np.uint8).reshape(h, w)
        for y, row in enumerate(self.elevated or ()):
            if y < h and row:
                chars[1, y, : len(row)] = np.frombuffer(row[:w].encode("ascii"), dtype=np.uint8)
        chars[chars == ord(" ")] = ord("#")
        drivable = chars != ord("#")
        endable = (chars == ord(".")) | (chars == ord("=")) | (chars == ord("/"))
        ramp = chars[0] == ord("/")
        for a in (drivable, endable, ramp):
            a.setflags(write=False)
        return SurfaceArrays(drivable=drivable, endable=endable, ramp=ramp)


@dataclass(frozen=True)
class SurfaceArrays:
    """Surfaces as arrays: drivable[layer, y, x], endable[layer, y, x], ramp[y, x]."""

    drivable: np.ndarray
    endable: np.ndarray
    ramp: np.ndarray
