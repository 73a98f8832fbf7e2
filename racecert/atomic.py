"""Atomic file writes, shared by every part of racecert that writes files.

The data goes to a hidden temp file in the target's folder, is fsynced, and is
renamed over the target; the folder is fsynced so the rename survives a crash. On
any failure (a write error, a full disk, Ctrl-C) the temp file is removed and the
target keeps its previous content; the exception propagates for the caller to word.
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import suppress
from pathlib import Path

TEMP_PREFIX = ".racecert-"


def temp_name(target: Path) -> Path:
    """The hidden temp file next to `target` (unique, never a name a user would pick)."""
    return target.with_name(f"{TEMP_PREFIX}{target.name}.{secrets.token_hex(4)}.tmp")


def _keep_mode(target: Path, fd: int) -> None:
    """Give the new file the old file's permissions (a new file keeps the umask's)."""
    with suppress(FileNotFoundError):
        os.fchmod(fd, stat.S_IMODE(target.stat().st_mode))


def sync_folder(folder: Path) -> None:
    """fsync the folder so that a rename in it survives a crash (best effort)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically; raises OSError (temp file removed) on failure."""
    target = Path(path)
    temp = temp_name(target)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            _keep_mode(target, fd)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    sync_folder(target.parent)
