"""The cell-path track: a W x H grid of blocked, free, start and goal cells.

A `CellPathTrack` is data only, validated on construction: the oracle's rules
(`racecert.model.cellpath.rules`) and the independent side
(`racecert.independent.cellpath`) both read it and nothing else. Cells are kept as
rows of the Momba character set (`x` blocked, `.` free, `s` start, `g` goal), x the
column and y the row, y down. The limits of the profile live here, in one home.

>>> t = CellPathTrack("t", 3, 2, ("s.g", "xxx"), ((0, 0),))
>>> t.start, t.cell(2, 0), t.cell(1, 1), t
((0, 0), 'g', 'x', CellPathTrack('t', 3x2, 1 starts, 1 goal cells, A=1, sha256=''))
"""

from __future__ import annotations

from dataclasses import dataclass, field

Cell = tuple[int, int]

MAX_SIDE = 4096
"""Largest width or height: the state keys (`racecert.model.states.StateCodec`,
W·H·(2W−1)·(2H−1)·4) then stay below 2^53."""
MAX_ACCELERATION = 8
"""Largest `max_acceleration` A: (2A+1)^2 = 289 candidate moves per state."""
MAX_SPEED_CAP = MAX_SIDE
"""Largest `speed_cap` (a cap at or above the grid's side changes nothing)."""

BLOCKED, FREE, START, GOAL = "x", ".", "s", "g"
CELL_CHARS = BLOCKED + FREE + START + GOAL
"""The cell characters of the stored rows (the Momba map's own)."""


class CellPathLimitError(ValueError):
    """A cell-path track or move outside the profile's limits (one line)."""


@dataclass(frozen=True)
class CellPathTrack:
    """A validated cell-path track. Build one with `racecert.model.parse.load_track` on a
    ``.track`` map or a TOML file with ``rules = "cell-path"``, or directly.

    `rows[y][x]` is the cell at (x, y) (`CELL_CHARS`); `starts` are the start cells in
    row-major order (y, then x), the configured start first. `speed_cap` None: no cap;
    C: a move whose new velocity has a component beyond ±C is no move.
    """

    name: str
    width: int
    height: int
    rows: tuple[str, ...]
    starts: tuple[Cell, ...]
    max_acceleration: int = 1
    speed_cap: int | None = None
    description: str = ""
    sha256: str = ""
    path: str = field(default="", compare=False)

    layers = 1
    origin = (0, 0)  # file coordinates are the track's own (no shift, unlike lattice files)
    opening = None
    kind = None
    elevated = None

    def __post_init__(self) -> None:
        check_track(self)

    def __repr__(self) -> str:
        where = f", path={self.path!r}" if self.path else ""
        cap = f", cap={self.speed_cap}" if self.speed_cap is not None else ""
        goals = sum(r.count(GOAL) for r in self.rows)
        return (f"CellPathTrack({self.name!r}, {self.width}x{self.height}, "
                f"{len(self.starts)} starts, {goals} goal cells, A={self.max_acceleration}"
                f"{cap}{where}, sha256={self.sha256[:12]!r})")

    @property
    def start(self) -> Cell:
        """The configured start: the first start cell in row-major order."""
        return self.starts[0]

    def cell(self, x: int, y: int) -> str:
        """The character of cell (x, y), which must be on the grid."""
        return self.rows[y][x]

    def to_file(self, p: Cell) -> Cell:
        """A cell in the file's coordinates: the same (no shift)."""
        return p

    def bounds_in_file(self) -> tuple[Cell, Cell]:
        """((0, 0), (W-1, H-1))."""
        return (0, 0), (self.width - 1, self.height - 1)


def start_cells(rows: tuple[str, ...]) -> tuple[Cell, ...]:
    """The start cells of `rows` in row-major order (y, then x)."""
    return tuple((x, y) for y, r in enumerate(rows) for x, c in enumerate(r) if c == START)


def check_track(t: CellPathTrack) -> None:
    """Raise `CellPathLimitError` (one line) unless `t` is a well-formed track within the
    limits: sides 1..MAX_SIDE matching the rows, only `CELL_CHARS`, at least one start
    and one goal, `starts` the start cells in row-major order, 1 <= A <= 8, cap >= 1."""
    if not (1 <= t.width <= MAX_SIDE and 1 <= t.height <= MAX_SIDE):
        raise CellPathLimitError(f"grid {t.width}x{t.height}: each side must be 1..{MAX_SIDE}")
    if len(t.rows) != t.height or any(len(r) != t.width for r in t.rows):
        raise CellPathLimitError(f"the rows do not form a {t.width}x{t.height} grid")
    for y, r in enumerate(t.rows):
        bad = next((c for c in r if c not in CELL_CHARS), None)
        if bad is not None:
            raise CellPathLimitError(f"row {y}: cell {bad!r} is none of {CELL_CHARS!r}")
    if not any(GOAL in r for r in t.rows):
        raise CellPathLimitError("no goal cell")
    if not t.starts or tuple(t.starts) != start_cells(t.rows):
        raise CellPathLimitError("starts must be the grid's start cells in row-major order "
                                 "(and there must be one)")
    a = t.max_acceleration
    if not isinstance(a, int) or isinstance(a, bool) or not 1 <= a <= MAX_ACCELERATION:
        raise CellPathLimitError(f"max_acceleration {a!r}: must be 1..{MAX_ACCELERATION}")
    c = t.speed_cap
    if c is not None and (not isinstance(c, int) or isinstance(c, bool)
                          or not 1 <= c <= MAX_SPEED_CAP):
        raise CellPathLimitError(f"speed_cap {c!r}: must be 1..{MAX_SPEED_CAP} (or none)")
