"""The tracks of a batch: files, folders and glob patterns expanded to a list of files.

A file is taken as given (any name); a folder contributes every `*.toml` file and
every `*.track` map (the cell-path profile) below it (recursively, hidden files and
folders left out); anything else is a glob pattern (`**` spans folders). Each file
appears once, in the order given (a folder's and a pattern's files sorted by path).
Something that names no file is bad input: a `TrackError` whose one-line message names
the argument.
"""

from __future__ import annotations

import glob
from pathlib import Path

from racecert.model.errors import TrackError


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") for part in path.relative_to(root).parts)


def _folder_tracks(arg: str) -> list[str]:
    root = Path(arg)
    found = sorted(p for pattern in ("*.toml", "*.track") for p in root.rglob(pattern)
                   if p.is_file() and _visible(p, root))
    if not found:
        raise TrackError(arg, "", "the folder holds no .toml or .track track file")
    return [str(p) for p in found]


def expand_tracks(args: list[str]) -> list[str]:
    """Every track file the arguments name (module docstring), each once."""
    out: list[str] = []
    seen: set[Path] = set()
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            paths = _folder_tracks(arg)
        elif p.exists():
            paths = [arg]
        elif glob.has_magic(arg):
            paths = sorted(f for f in glob.glob(arg, recursive=True) if Path(f).is_file())
            if not paths:
                raise TrackError(arg, "", "no file matches this pattern")
        else:
            raise TrackError(arg, "", "no such file or folder")
        for path in paths:
            key = Path(path).resolve()
            if key not in seen:
                seen.add(key)
                out.append(path)
    return out
