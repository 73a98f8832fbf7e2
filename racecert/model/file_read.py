"""Reading an input file, bounded: the one reader of track files, ASCII maps and XML.

A file is read only when it is a regular file of at most `limit` bytes. The size is
checked with `os.stat` before opening (so a huge file costs nothing), the type again on
the open descriptor (the path may have changed in between), and at most `limit + 1`
bytes are read (a file that grows meanwhile is still refused). A FIFO, a device or a
socket is refused by name instead of blocking; every problem is one `TrackError` line.

>>> try:
...     read_bounded("/dev/null", 10, "map")
... except TrackError as exc:
...     print(exc.message)
not a regular file (a character device): a map must be a file
"""

from __future__ import annotations

import os
import stat

from racecert.model.errors import TrackError

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def read_bounded(path: str, limit: int, what: str) -> bytes:
    """The bytes of the regular file `path`, of at most `limit` bytes (`what` names the
    kind of file in the messages: "track", "map")."""
    try:
        _check(path, os.stat(path), limit, what)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            _check(path, os.fstat(fd), limit, what)
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read(limit + 1)
        finally:
            os.close(fd)
    except OSError as exc:
        raise TrackError(path, "", f"cannot read file: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise too_big(path, limit)
    return data


def too_big(path: str, limit: int) -> TrackError:
    """The one-line error of an input over `limit` bytes."""
    return TrackError(path, "", f"file larger than the limit of {limit:,} bytes "
                      f"({limit // 2**20} MiB)")


def _check(path: str, st: os.stat_result, limit: int, what: str) -> None:
    """Refuse special files and files over the limit; a directory fails on open with the
    system's reason."""
    for test, kind in _KINDS:
        if test(st.st_mode):
            raise TrackError(path, "", f"not a regular file ({kind}): a {what} must be a file")
    if stat.S_ISREG(st.st_mode) and st.st_size > limit:
        raise too_big(path, limit)
