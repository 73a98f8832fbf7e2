"""The lattice track model: cars on lattice points, polyline walls, circles, a finish segment.

A `LatticeTrack` is the immutable, validated description of one track of the classic
lattice rules (docs/rules.md, "The lattice profile"; docs/track-format.md, "Lattice
tracks"). It holds data only — no geometry — so that both the oracle's rule profile
(`racecert.model.lattice.rules`) and the independent side
(`racecert.independent.lattice.geometry`) read the same track and nothing else.

Coordinates: every point is stored *local*, i.e. shifted so that the bounds are
0..width-1 and 0..height-1 (the state codec packs non-negative coordinates);
`origin` is the file coordinate of local (0, 0), and `to_file` maps back. Lengths,
crossings and counts do not depend on the shift; reports print file coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[int, int]

MAX_SIDE = 4096
"""Largest number of lattice points along one side of the bounds. Orientation tests on
local coordinates then stay far inside int64, and the state keys of
`racecert.model.states.StateCodec` fit in 63 bits."""
MAX_COORD = 4 * MAX_SIDE
"""Largest absolute coordinate in a file (bounds, walls, circles, starts): local
coordinates then stay within ±2 * MAX_COORD, and every product the exact predicates
form (orientations, squared distances, discriminants) stays below 2^62."""
ACCELERATION_SETS: tuple[str, ...] = ("moore", "von-neumann")
"""The acceleration sets a lattice file may name (``accelerations``), the default first:
``"moore"``, every a in {-1, 0, 1}^2 (9), and ``"von-neumann"``, those with at least one
component zero (5: stay, or change one component by 1). Names only: the oracle's profile
and the independent side each build the set itself."""


@dataclass(frozen=True)
class Circle:
    """A circular wall: the *open* disc of `radius` around `center` is forbidden; its
    boundary may be touched (the Riddler puzzle's infield)."""

    center: Point
    radius: int


@dataclass(frozen=True)
class LatticeFinish:
    """The finish segment from `a` to `b` (closed).

    `direction` None: a move finishes when its closed segment touches the finish
    segment (the Bekos game). `direction` given: the side it points to is *ahead*; a
    point on the finish line counts as ahead. A move crosses forward when it goes from
    strictly behind to ahead while touching the segment, backward the other way.
    `laps` None: the first forward crossing finishes (a directed finish). `laps` N:
    forward crossings count +1 and backward ones -1 (net crossings, a winding count);
    the move that brings the count to N finishes.
    """

    a: Point
    b: Point
    direction: Point | None = None
    laps: int | None = None


@dataclass(frozen=True)
class LatticeTrack:
    """A validated lattice track. Build one with `racecert.model.parse.load_track` on a
    file with ``rules = "lattice"``, or `racecert.model.lattice.parse.parse_lattice`."""

    name: str
    width: int
    height: int
    origin: Point
    polylines: tuple[tuple[Point, ...], ...]
    circles: tuple[Circle, ...]
    starts: tuple[Point, ...]
    finish: LatticeFinish
    accelerations: str = "moore"
    description: str = ""
    sha256: str = ""
    path: str = field(default="", compare=False)

    layers = 1
    opening = None
    kind = None
    elevated = None

    def __repr__(self) -> str:
        where = f", path={self.path!r}" if self.path else ""
        accel = (f", {self.accelerations} accelerations"
                 if self.accelerations != ACCELERATION_SETS[0] else "")
        return (f"LatticeTrack({self.name!r}, {self.width}x{self.height}, "
                f"{len(self.segments)} wall segments, {len(self.circles)} circles, "
                f"{len(self.starts)} starts{accel}{where}, sha256={self.sha256[:12]!r})")

    @property
    def segments(self) -> tuple[tuple[Point, Point], ...]:
        """Every wall segment (consecutive points of each polyline), local coordinates."""
        return tuple((line[i], line[i + 1]) for line in self.polylines
                     for i in range(len(line) - 1))

    @property
    def start(self) -> Point:
        """The configured start: the first of `starts`."""
        return self.starts[0]

    def to_file(self, p: Point) -> Point:
        """A local point in the file's coordinates."""
        return (p[0] + self.origin[0], p[1] + self.origin[1])

    def bounds_in_file(self) -> tuple[Point, Point]:
        """((x_min, y_min), (x_max, y_max)) in the file's coordinates."""
        return self.to_file((0, 0)), self.to_file((self.width - 1, self.height - 1))

