"""Output files of the CLI: paths checked before any work, every file written atomically.

`check_output_file` and `check_output_folder` run before a subcommand starts its
work, so that a typo in an output path costs nothing (today's failure mode was a
traceback after a whole analysis). `write_text_atomic` writes to a hidden temp file
in the target folder, flushes and fsyncs it, then `os.replace`s it over the
target: a reader, or a run killed half-way (even by SIGKILL), sees either the
previous file or the new one, never a truncated mix. On any failure, Ctrl-C
included, the temp file is removed and the previous file is left as it was.

Every problem is an `OutputError` whose message is one line naming the path; the
CLI prints it and exits with status 2. That includes a write that fails after the work
(a full disk, a quota, an I/O error, a read-only remount, ``ulimit -f``:
`racecert.atomic.WRITE_ERRNOS`), also one made by a library call into a staging folder.

A run killed by SIGKILL cannot remove its temp files; `racecert.atomic.sweep_stale`
removes racecert's own (and only those) once they are more than a day old, whenever a
later run checks that folder for output.
"""

from __future__ import annotations

import os
import secrets
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from racecert import atomic
from racecert.atomic import TEMP_PREFIX, WRITE_ERRNOS, sweep_stale


class OutputError(Exception):
    """An output path that cannot be written; the message is one line naming the path."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _writable_folder(folder: Path, shown: str) -> None:
    """Raise OutputError unless `folder` is an existing directory where a file can be created."""
    if not folder.exists():
        raise OutputError(f"{shown}: the folder {str(folder)!r} does not exist")
    if not folder.is_dir():
        raise OutputError(f"{shown}: {str(folder)!r} is not a folder")
    sweep_stale(folder)
    probe = folder / f"{TEMP_PREFIX}probe-{secrets.token_hex(4)}"
    try:  # a real write says more than os.access (read-only mounts, ACLs, root)
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise OutputError(f"{shown}: the folder {str(folder)!r} is not writable "
                          f"({exc.strerror or exc})") from None
    with suppress(OSError):
        os.unlink(probe)


def check_output_file(path: str | Path) -> Path:
    """`path` as a Path, after checking that a file can be written there (before any work).

    The parent folder must exist and be writable (it is never created: a missing
    folder is more often a typo than a wish); `path` must not be a folder, and an
    existing file must be a regular file (it is replaced, never truncated).
    """
    p = Path(path)
    shown = _one_line(str(path))
    if str(path) == "" or p.name in ("", ".", ".."):
        raise OutputError(f"{shown or repr(str(path))}: not a file name")
    if p.is_dir():
        raise OutputError(f"{shown}: is a folder, not a file")
    if p.exists() and not p.is_file():
        raise OutputError(f"{shown}: exists and is not a regular file")
    _writable_folder(p.parent, shown)
    return p


def check_output_suffix(value: str, kinds: dict[str, str]) -> tuple[Path, str]:
    """(path, lower-case suffix) of an -o/--out `value` whose suffix picks what is written
    (`kinds`: suffix -> what), checked before any work (one-line OutputError)."""
    path = check_output_file(value)
    suffix = path.suffix.lower()
    if suffix not in kinds:
        known = ", ".join(f"{k} for {v}" for k, v in kinds.items())
        raise OutputError(f"-o/--out {_one_line(value)}: unknown suffix "
                          f"{suffix or '(none)'!r}; use {known}")
    return path, suffix


def check_output_folder(path: str | Path) -> Path:
    """`path` as a Path, after checking that files can be written into it (before any work).

    An existing folder must be writable; a folder that does not exist yet is
    accepted when its parent exists and is writable (`ensure_folder` creates it
    once there is something to write), never with missing parents.
    """
    p = Path(path)
    shown = _one_line(str(path))
    if str(path) == "":
        raise OutputError("'': not a folder name")
    if p.exists():
        _writable_folder(p, shown)
    else:
        _writable_folder(p.parent, shown)
    return p


def ensure_folder(path: Path) -> None:
    """Create the folder `check_output_folder` accepted (its parent exists), if missing."""
    try:
        path.mkdir(exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{_one_line(str(path))}: cannot create the folder: "
                          f"{exc.strerror or exc}") from None


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` atomically (`racecert.atomic`: temp file in the same folder,
    fsync, rename). On any failure (a write error, a full disk, Ctrl-C) the temp file is
    removed and `path` keeps its previous content; write errors become a one-line
    OutputError."""
    try:
        atomic.write_bytes_atomic(path, data)
    except OSError as exc:
        raise _cannot_write(path, exc) from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """`write_bytes_atomic` of `text` encoded as UTF-8."""
    write_bytes_atomic(path, text.encode("utf-8"))


def emit_text(text: str, out: Path | None, what: str) -> None:
    """`text` to stdout, or written atomically to `out` with one line on stderr saying
    "wrote OUT (WHAT)": a converter's output, where stdout stays the data alone."""
    if out is None:
        print(text, end="")
        return
    write_text_atomic(out, text)
    print(f"wrote {out} ({what})", file=sys.stderr)


def _cannot_write(path: str | Path, exc: OSError) -> OutputError:
    return OutputError(f"{_one_line(str(path))}: cannot write: {exc.strerror or exc}; "
                       "the previous file, if any, is unchanged")


@contextmanager
def pending_text(path: str | Path, text: str) -> Iterator[None]:
    """`racecert.atomic.pending_write` of `text` (UTF-8): every byte written before the
    block, the rename after it, so that a full disk fails before any file of the block
    is moved into place; write errors become a one-line OutputError."""
    try:
        with atomic.pending_write(path, text.encode("utf-8")):
            yield
    except OSError as exc:
        raise _cannot_write(path, exc) from None


@contextmanager
def staging_folder(target: Path) -> Iterator[Path]:
    """A hidden temp folder inside `target` for files a library call writes itself.

    The caller moves what it keeps out with `publish`; the folder and whatever is
    left in it are removed on every exit path (an error, Ctrl-C, success). A write that
    fails in the block for want of room or a working disk (`WRITE_ERRNOS`: the library
    call writing its files there, or the caller) becomes a one-line OutputError. The
    name holds the process id, so that `sweep_stale` never takes the folder of a run
    still going (a certificate may take longer than a day) for a stale one.
    """
    folder = target / f"{TEMP_PREFIX}staging-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        folder.mkdir()
    except OSError as exc:
        raise OutputError(f"{_one_line(str(target))}: cannot write: "
                          f"{exc.strerror or exc}") from None
    try:
        yield folder
    except OSError as exc:
        if exc.errno not in WRITE_ERRNOS:
            raise
        shown = target if exc.filename is None else target / Path(exc.filename).name
        raise _cannot_write(shown, exc) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def publish(staged: Path, target: Path) -> None:
    """Move one staged file to `target` (same filesystem: one atomic rename)."""
    try:
        with open(staged, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(staged, target)
        atomic.sync_folder(target.parent)
    except OSError as exc:
        raise OutputError(f"{_one_line(str(target))}: cannot write: "
                          f"{exc.strerror or exc}") from None
