"""The folders the studio may read and write, and the track files in them.

The server is given folders (`Roots`): the bundled tracks (read only, the
package's own) and the folders named on the command line (the current
folder by default, and the folder of the TRACK argument). The page names a file
by a folder's index and a path relative to it; `resolve` refuses anything that
leaves the folder (`..`, absolute paths, symbolic links pointing out) and
anything but a `.toml` file name (or, to read, a `.track` cell-path map). Writes
are atomic: a temp file in the target folder, fsynced, renamed over the target,
removed on any failure, so a failed save leaves the previous file as it was.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import racecert
from racecert import atomic

MAX_LISTED = 500
"""Most files listed per folder (the page is a picker, not a file manager)."""
MAX_FILE_BYTES = 2 * 2**20
"""Largest track file the studio reads (a 400x400 two-layer grid is about 330 kB)."""


MAX_PATH = 1024
"""Longest path, in characters, a request may name inside a folder."""


class FileAccessError(Exception):
    """A path the studio refuses or cannot use; the message is one line."""


def bundled_tracks() -> Path | None:
    """The bundled tracks' folder (package data, `racecert/tracks/`; `tracks/` in the
    source tree points at it), if this racecert was installed with it."""
    folder = Path(racecert.__file__).resolve().parent / "tracks"
    return folder if folder.is_dir() else None


@dataclass(frozen=True)
class Folder:
    """One folder the studio was given."""

    path: Path
    label: str
    writable: bool

    def to_json(self, index: int) -> dict[str, Any]:
        return {"index": index, "label": self.label, "path": str(self.path),
                "writable": self.writable}


@dataclass(frozen=True)
class Roots:
    """The folders the studio was given, in the order the page lists them."""

    folders: tuple[Folder, ...]

    @staticmethod
    def of(writable: list[Path], bundled: Path | None) -> Roots:
        """Bundled tracks first (read only), then each writable folder once."""
        out: list[Folder] = []
        if bundled is not None:
            out.append(Folder(bundled.resolve(), "bundled tracks", False))
        for p in writable:
            r = p.resolve()
            if all(f.path != r for f in out):
                out.append(Folder(r, str(p), True))
        return Roots(tuple(out))

    def folder(self, index: Any) -> Folder:
        if not isinstance(index, int) or isinstance(index, bool) \
                or not 0 <= index < len(self.folders):
            raise FileAccessError(f"no folder number {index!r}")
        return self.folders[index]

    def resolve(self, index: Any, relative: Any, *, write: bool = False) -> Path:
        """The file `relative` inside folder `index`, or `FileAccessError`."""
        folder = self.folder(index)
        if write and not folder.writable:
            raise FileAccessError(f"{folder.label}: read only in the studio (save into "
                                  "another folder)")
        if not isinstance(relative, str) or not relative.strip():
            raise FileAccessError("a file name is required")
        if any(ord(c) < 32 or ord(c) == 127 or 0xD800 <= ord(c) < 0xE000 for c in relative) \
                or len(relative) > MAX_PATH:
            # NUL would make the system calls below raise ValueError (a 500), and no track
            # name needs a control character, a lone surrogate or thousands of characters
            raise FileAccessError(f"{ascii(relative[:80])}: not a file name (control "
                                  f"characters, or longer than {MAX_PATH} characters)")
        rel = Path(relative)
        if rel.is_absolute() or ".." in rel.parts:
            raise FileAccessError(f"{relative}: give a path inside {folder.label}")
        if rel.suffix != ".toml" and (write or rel.suffix != ".track"):
            raise FileAccessError(f"{relative}: a track file name ends in .toml"
                                  + ("" if write else " (or .track, a cell-path map)"))
        try:
            target = (folder.path / rel).resolve()
        except (OSError, ValueError) as exc:
            raise FileAccessError(f"{ascii(relative[:80])}: not a usable path: {exc}") from None
        if not target.is_relative_to(folder.path):
            raise FileAccessError(f"{relative}: leads outside {folder.label}")
        return target

    def home(self) -> int | None:
        """The folder Save proposes for a track that has no writable file of its own (a
        bundled track, a blank grid, an imported file): the folder the studio was started
        in when it is one of the writable folders, else the first writable one; None when
        every folder is read only. Never the bundled tracks' (package data)."""
        cwd = Path.cwd().resolve()
        writable = [i for i, f in enumerate(self.folders) if f.writable]
        return next((i for i in writable if self.folders[i].path == cwd),
                    writable[0] if writable else None)

    def locate(self, path: Path) -> dict[str, Any] | None:
        """`{folder, path}` of the file `path` in the first writable folder holding it, or
        None (a file in the bundled tracks, or in no folder the studio was given)."""
        resolved = path.resolve()
        for i, f in enumerate(self.folders):
            if f.writable and resolved.is_relative_to(f.path):
                return {"folder": i, "path": str(resolved.relative_to(f.path))}
        return None

    def listing(self) -> list[dict[str, Any]]:
        """Every folder with its track files, .toml and .track (two levels deep, at most
        MAX_LISTED)."""
        out = []
        for i, f in enumerate(self.folders):
            files = sorted(p for pattern in ("*.toml", "*/*.toml", "*.track", "*/*.track")
                           for p in f.path.glob(pattern)
                           if p.is_file() and p.resolve().is_relative_to(f.path))
            out.append({**f.to_json(i),
                        "files": [str(p.relative_to(f.path)) for p in files[:MAX_LISTED]]})
        return out


def is_new_track(path: Path) -> bool:
    """Whether `path` names a track file still to be written (`racecert studio
    my_tracks/ring.toml` starts a blank grid that Save writes there): nothing of that
    name exists, it ends in .toml, and its folder exists. A missing folder is a one-line
    `FileAccessError` (no folder is created behind the user's back); any other missing
    path is left to `read_track_bytes`, which says "no such file"."""
    if os.path.lexists(path) or path.suffix != ".toml":
        return False
    if not path.parent.is_dir():
        raise FileAccessError(f"{path}: no such file, and its folder {path.parent} does not "
                              "exist (a new track is started only in an existing folder)")
    return True


def read_track_bytes(path: Path) -> bytes:
    """The file's bytes, refusing what is not a regular file or is too large."""
    try:
        if not path.is_file():
            raise FileAccessError(f"{path}: no such file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise FileAccessError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB")
        return path.read_bytes()
    except OSError as exc:
        raise FileAccessError(f"{path}: cannot read: {exc.strerror or exc}") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically; one-line `FileAccessError` on failure."""
    if not path.parent.is_dir():
        raise FileAccessError(f"{path.parent}: the folder does not exist")
    if path.exists() and not path.is_file():
        raise FileAccessError(f"{path.name}: exists and is not a regular file")
    try:
        atomic.write_bytes_atomic(path, data)
    except OSError as exc:
        raise FileAccessError(f"{path.name}: cannot write: {exc.strerror or exc}; the "
                              "previous file, if any, is unchanged") from None
