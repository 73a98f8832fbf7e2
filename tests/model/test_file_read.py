"""The one bounded reader of input files (`racecert.model.file_read`), through each of
its users: track files, ASCII maps and Bekos XML refuse the same special files and
oversized files in one line."""

from __future__ import annotations

import doctest
import os
from pathlib import Path

import pytest

from racecert.model import file_read
from racecert.model.ascii_grid import read_ascii
from racecert.model.bekos_import import read_bekos
from racecert.model.errors import TrackError
from racecert.model.file_read import read_bounded
from racecert.model.parse import load_track

READERS = (read_ascii, read_bekos, load_track)


def test_doctests() -> None:
    assert doctest.testmod(file_read).failed == 0


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_a_fifo_without_blocking(tmp_path: Path, reader) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(TrackError, match=r"not a regular file \(a FIFO\)"):
        reader(fifo)


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_names_a_missing_file(tmp_path: Path, reader) -> None:
    with pytest.raises(TrackError, match="cannot read file: No such file"):
        reader(tmp_path / "missing")


def test_the_limit_is_exact(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_bytes(b"x" * 100)
    assert read_bounded(str(f), 100, "map") == b"x" * 100
    with pytest.raises(TrackError) as info:
        read_bounded(str(f), 99, "map")
    assert info.value.message == "file larger than the limit of 99 bytes (0 MiB)"


def test_a_directory_fails_with_the_systems_reason(tmp_path: Path) -> None:
    with pytest.raises(TrackError, match="cannot read file: Is a directory"):
        read_bounded(str(tmp_path), 10, "track")
