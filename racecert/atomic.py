"""Atomic file writes, shared by every part of racecert that writes files.

The data goes to a hidden temp file in the target's folder, is fsynced, and is
renamed over the target; the folder is fsynced so the rename survives a crash. On
any failure (a write error, a full disk, Ctrl-C) the temp file is removed and the
target keeps its previous content; the exception propagates for the caller to word.

`pending_write` splits the two steps for a caller that writes several files: every
byte is written (where a full disk fails) before the block, the rename happens after
it, so a failure in between changes no file.

A run killed by SIGKILL cannot remove its temp files; `sweep_stale` removes those of
racecert's own patterns (`STALE_PATTERNS`, nothing else) once they are a day old, and
the next run that writes into that folder calls it (the CLI's output checks, the
batch runner for its scratch folder in the temp folder).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

TEMP_PREFIX = ".racecert-"

WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EFBIG})
"""The errors of a write that fails for want of room or a working disk (a full file
system, a quota, an I/O error, a file system turned read-only, ``ulimit -f``): reported
in one line as output that cannot be written, never as a traceback."""

STALE_AGE = 86_400
"""Seconds after which a temp file of racecert's own patterns is taken as left by a
killed run (no racecert write or staging folder lives that long without a change)."""
STALE_PATTERNS = (
    re.compile(r"\.racecert-.+\.[0-9a-f]{8}\.tmp"),  # atomic.temp_name
    re.compile(r"\.racecert-staging-(?:\d+-)?[0-9a-f]{8}"),  # staging_folder
    re.compile(r"\.racecert-probe-[0-9a-f]{8}"),  # _writable_folder
    re.compile(r"racecert-dask-(?:\d+-)?[a-z0-9_]{8}"),  # racecert.batch.runner's scratch
)
"""The names of racecert's temp files and folders (nothing else is ever removed). A name
with a process id (``-PID-``) is removed only when no process of that id is running."""


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


def _write_temp(target: Path, data: bytes) -> Path:
    """`data` in a new fsynced temp file next to `target`; removed again on failure."""
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
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    return temp


def _commit(temp: Path, target: Path) -> None:
    """Rename `temp` over `target` (the temp file removed if that fails)."""
    try:
        os.replace(temp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    sync_folder(target.parent)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically; raises OSError (temp file removed) on failure."""
    target = Path(path)
    _commit(_write_temp(target, data), target)


@contextmanager
def pending_write(path: str | Path, data: bytes) -> Iterator[None]:
    """Write `data` to a temp file next to `path` now and rename it over `path` when the
    block ends without an exception; on any exception (in the write or in the block) the
    temp file is removed and `path` is left as it was. Raises OSError as
    `write_bytes_atomic` does."""
    target = Path(path)
    temp = _write_temp(target, data)
    try:
        yield
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    _commit(temp, target)


def sweep_stale(folder: Path, now: float | None = None) -> list[str]:
    """Remove the temp files and folders of racecert's own patterns (`STALE_PATTERNS`)
    in `folder` that are older than `STALE_AGE`, owned by this user, not symbolic links,
    and (for a name with a process id) of no running process: what a run killed by
    SIGKILL left. Best effort, never an error; returns the names removed."""
    now = time.time() if now is None else now
    removed: list[str] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if not any(p.fullmatch(entry.name) for p in STALE_PATTERNS):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if (entry.is_symlink() or now - st.st_mtime < STALE_AGE
                or st.st_uid != os.getuid() or _running(entry.name)):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            continue
        removed.append(entry.name)
    return removed


def _running(name: str) -> bool:
    """Whether the process id in a temp name (``...-PID-...``) is a running process."""
    m = re.search(r"-(\d+)-[0-9a-z_]{8}$", name)
    if m is None:
        return False
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists (another user's)
        return True
    return True
