"""Shared fixtures: a folder of small generated tracks and a malformed one."""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.batch.generate import generate_tracks

BAD_TRACK = 'name = "no map"\n\n[car]\nposition = [1, 1]\ndirection = "+x"\n'


def write_tracks(folder: Path, count: int, seed: int = 1, size: tuple[int, int] = (12, 9)
                 ) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for g in generate_tracks(seed, count, *size):
        path = folder / g.filename
        path.write_text(g.text)
        paths.append(path)
    return paths


@pytest.fixture
def track_folder(tmp_path: Path) -> Path:
    """Six small generated tracks in tmp_path/tracks."""
    write_tracks(tmp_path / "tracks", 6)
    return tmp_path / "tracks"
