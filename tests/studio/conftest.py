"""Fixtures of the studio tests: an app over a temporary folder, its test client, tracks."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from racecert.studio.app import StudioConfig, create_app
from racecert.studio.files import Roots, bundled_tracks

TRACKS = Path(__file__).resolve().parent.parent.parent / "tracks"


def open_field(width: int, height: int, name: str = "Open field") -> str:
    """A valid stage: walls around an open rectangle, S near the left, F near the right."""
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * (height - 2) + ["#" * width]
    grid = "\n".join(rows)
    return (f'name = "{name}"\n\n[car]\nposition = [2, {height // 2}]\ndirection = "+x"\n\n'
            f'[start]\nx = 3\ny = [1, {height - 2}]\ndir = "+x"\n\n'
            f'[finish]\nx = {width - 4}\ny = [1, {height - 2}]\ndir = "+x"\n\n'
            f'[map]\nground = """\n{grid}\n"""\n')


def make_app(folder: Path, initial: Path | None = None, **config):
    return create_app(StudioConfig(Roots.of([folder], bundled_tracks()), initial=initial,
                                   **config))


def studio_client(app) -> TestClient:
    """A test client of `app` that sends the session's token, as the page does."""
    return TestClient(app, base_url="http://127.0.0.1",
                      headers={"X-Racecert-Token": app.state.token})


@pytest.fixture
def client(tmp_path: Path):
    with studio_client(make_app(tmp_path)) as c:
        yield c
