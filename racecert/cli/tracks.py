"""Loading tracks for the subcommands that read only one rule profile's tracks."""

from __future__ import annotations

from racecert.model.errors import TrackError
from racecert.model.lattice_track import is_lattice
from racecert.model.parse import load_track
from racecert.model.track import Track

LATTICE_COMMANDS = "validate, analyze and certify"


def load_grid_track(path: str, command: str) -> Track:
    """A grid track, or a one-line `TrackError` for a lattice track (exit status 2)."""
    track = load_track(path)
    if is_lattice(track):
        raise TrackError(path, "rules", f"a lattice track: `racecert {command}` reads grid "
                         f"tracks only ({LATTICE_COMMANDS} read lattice tracks)")
    return track
