"""Loading the track a subcommand is given: a file, or a bundled track's name
(`racecert.model.bundled`); and the check for the subcommands that read only one rule
profile's tracks."""

from __future__ import annotations

from racecert.model.bundled import track_path
from racecert.model.errors import TrackError
from racecert.model.parse import load_track
from racecert.model.profiles import GRID, AnyTrack, profile_of
from racecert.model.track import Track

EVERY_PROFILE_COMMANDS = "validate, analyze, certify, batch and the studio (read only)"


def load_named_track(arg: str) -> AnyTrack:
    """The track file `arg` names, or the bundled track of that name when no such file
    exists, read and validated (a one-line `TrackError` otherwise, exit status 2)."""
    return load_track(track_path(arg))


def load_grid_track(path: str, command: str) -> Track:
    """A grid track (a file or a bundled track's name), or a one-line `TrackError` for a
    track of another profile (exit status 2)."""
    track = load_named_track(path)
    profile = profile_of(track)
    if profile is not GRID:
        raise TrackError(path, "rules", f"a {profile.name} track: `racecert {command}` reads "
                         f"grid tracks only ({EVERY_PROFILE_COMMANDS} read it)")
    return track
