"""The tracks bundled with racecert, and a track argument that names one of them.

The bundled tracks are package data (`racecert/tracks/`, one `.toml` file each, some in
subfolders: `lattice/`, `limits/`, `races/`), so an installed racecert has them wherever
it runs; in the source tree `tracks/` at the repository root points at the same folder.
A bundled track's name is its file name without `.toml` (`ocho`, `riddler`), or its path
inside the folder without `.toml` (`lattice/riddler`).

Every subcommand that reads a track file passes its argument through `track_path`: a
path that exists is the user's file and wins; a bare name without a suffix that is no
file is looked up among the bundled tracks; an unknown name is a one-line `TrackError`
(exit status 2) that says there is no such file and names the closest bundled tracks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path, PurePosixPath

from racecert.model.errors import TrackError

SUFFIX = ".toml"


@dataclass(frozen=True)
class BundledTrack:
    """One bundled track file: its name on the command line and where it lies."""

    name: str
    """The file name without `.toml`, e.g. ``ocho``; unique among the bundled tracks."""
    relative: str
    """Its path inside the bundled folder, e.g. ``lattice/riddler.toml``."""
    path: Path
    """The file itself."""


def bundled_folder() -> Path | None:
    """The folder of the bundled tracks, or None when this racecert has none (a package
    installed without its data, or one imported from a zip file)."""
    folder = files("racecert") / "tracks"
    return folder if isinstance(folder, Path) and folder.is_dir() else None


def bundled_tracks() -> tuple[BundledTrack, ...]:
    """Every bundled track (the folder and its subfolders, one level deep), sorted by
    relative path: the top-level tracks first, then each subfolder's."""
    folder = bundled_folder()
    if folder is None:
        return ()
    paths = [p for pattern in ("*" + SUFFIX, "*/*" + SUFFIX) for p in folder.glob(pattern)
             if p.is_file()]
    return tuple(BundledTrack(p.stem, p.relative_to(folder).as_posix(), p)
                 for p in sorted(paths, key=lambda p: (len(p.relative_to(folder).parts),
                                                       p.relative_to(folder).as_posix())))


def find_bundled(name: str) -> BundledTrack | None:
    """The bundled track `name` names (its file name or relative path, without
    `.toml`), or None."""
    for track in bundled_tracks():
        if name in (track.name, track.relative.removesuffix(SUFFIX)):
            return track
    return None


def is_bare_name(arg: str) -> bool:
    """Whether `arg` could be a bundled track's name: not empty, no suffix, no absolute
    path, no `..`, no backslash (e.g. ``ocho`` or ``lattice/riddler``)."""
    if not arg or "\\" in arg:
        return False
    path = PurePosixPath(arg)
    return not path.is_absolute() and ".." not in path.parts and path.suffix == ""


def did_you_mean(name: str) -> str:
    """The hint "did you mean 'A' or 'B'?" with the closest bundled names (difflib), or
    "" when none is close."""
    from difflib import get_close_matches  # only on this error path

    names = [t.name for t in bundled_tracks()]
    close = get_close_matches(PurePosixPath(name).name, names, n=3, cutoff=0.6)
    return ("did you mean " + " or ".join(f"'{c}'" for c in close) + "?") if close else ""


def track_path(arg: str) -> str:
    """The file a track argument stands for: `arg` itself when a file (or anything) of
    that name exists or when it is a path with a suffix (the reader then says what is
    wrong with it), else the bundled track it names.

    An unknown bare name raises a one-line `TrackError` naming the closest bundled
    tracks.
    """
    if os.path.lexists(arg) or not is_bare_name(arg):
        return arg
    track = find_bundled(arg)
    if track is not None:
        return str(track.path)
    hint = did_you_mean(arg)
    raise TrackError(arg, "", "no such file, and no bundled track of that name"
                     + (f"; {hint}" if hint else "")
                     + " (`racecert tracks` lists the bundled tracks)")


def track_inputs(args: list[str]) -> list[str]:
    """`batch`'s TRACKS with each bundled track's name replaced by its file; glob
    patterns, files and folders stay as given (`track_path` for the rest)."""
    import glob

    return [a if glob.has_magic(a) else track_path(a) for a in args]
