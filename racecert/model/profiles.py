"""Rule profiles: one registry through which every layer finds what a track's rules are.

A *profile* is a rule set with its own kind of track file: the grid rules
(`racecert.model.track.Track`, docs/rules.md), the classic lattice rules
(`racecert.model.lattice.track.LatticeTrack`) and the cell-path rules of the
reinforcement-learning and model-checking maps (`racecert.model.cellpath`). Each is one
`Profile` here, found from a track by its type (`profile_of`), never by a string
attribute; the layers above (the analysis, the certificate, the command line, the batch)
key their own parts by `Profile.name`, so a tool that works on one profile works on all.

What the model knows of a profile: its name and title, its track type, how to build its
`RuleProfile` for the oracle, whether its files list several start positions
(`multi_start`: `--best-start` applies) and whether it has grid slots for races.

The rules modules are imported on a profile's first `rules()` call, not with this
module: the grid's rules bring numba (about 0.1 CPU s to import), which a command that
only reads tracks (`racecert validate`, `racecert list`) never needs
(tests/model/test_profiles.py pins it).

>>> from racecert.model.bundled import track_path
>>> from racecert.model.parse import load_track
>>> [profile_of(load_track(track_path(n))).name for n in ("ocho", "lattice/riddler")]
['grid', 'lattice']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from racecert.model.cellpath.track import CellPathTrack
from racecert.model.lattice.track import LatticeTrack
from racecert.model.track import Track

if TYPE_CHECKING:
    from racecert.model.rules import RuleProfile

AnyTrack = Track | LatticeTrack | CellPathTrack
"""A track of any profile (what `racecert.model.parse.load_track` returns)."""


@dataclass(frozen=True)
class Profile:
    """One rule profile (module docstring)."""

    name: str
    title: str
    track_type: type
    make_rules: Callable[[Any], RuleProfile]
    multi_start: bool
    grid_slots: bool

    def rules(self, track: AnyTrack) -> RuleProfile:
        """The oracle's rules for `track` (a track of this profile)."""
        return self.make_rules(track)


def _grid_rules(track: Track) -> RuleProfile:
    from racecert.model.rules import VectorRaceRules
    return VectorRaceRules(track)


def _lattice_rules(track: LatticeTrack) -> RuleProfile:
    from racecert.model.lattice.rules import LatticeRules
    return LatticeRules(track)


def _cell_path_rules(track: CellPathTrack) -> RuleProfile:
    from racecert.model.cellpath.rules import CellPathRules
    return CellPathRules(track)


GRID = Profile("grid", "grid rules", Track, _grid_rules, multi_start=False,
               grid_slots=True)
LATTICE = Profile("lattice", "lattice rules", LatticeTrack, _lattice_rules,
                  multi_start=True, grid_slots=False)
CELL_PATH = Profile("cell-path", "cell-path rules", CellPathTrack, _cell_path_rules,
                    multi_start=True, grid_slots=False)
PROFILES: tuple[Profile, ...] = (GRID, LATTICE, CELL_PATH)
"""Every profile, the grid's first."""


def profile_of(track: object) -> Profile:
    """The profile `track` belongs to (by its type); `TypeError` for anything else."""
    for p in PROFILES:
        if isinstance(track, p.track_type):
            return p
    raise TypeError(f"not a track of any rule profile: {type(track).__name__}")


def acceleration_set_name(track: AnyTrack) -> str:
    """The name of the set a move on `track` picks its acceleration from, for reports: a
    lattice track's ``accelerations`` (``"moore"`` or ``"von-neumann"``); ``"moore"``
    ({-1, 0, 1}^2) for grid tracks; for cell-path tracks ``"moore"`` with A = 1 and
    ``"moore-A"`` ({-A..A}^2) above."""
    if isinstance(track, LatticeTrack):
        return track.accelerations
    if isinstance(track, CellPathTrack) and track.max_acceleration != 1:
        return f"moore-{track.max_acceleration}"
    return "moore"


def profile_named(name: str) -> Profile:
    """The profile called `name`; `KeyError` naming the known ones otherwise."""
    for p in PROFILES:
        if p.name == name:
            return p
    raise KeyError(f"no rule profile {name!r}; known: {', '.join(p.name for p in PROFILES)}")
