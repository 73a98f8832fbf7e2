"""Fixtures of the studio tests: an app over a temporary folder, its test client, tracks."""

from __future__ import annotations

import os
import shutil
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


@pytest.fixture(scope="session")
def browser():
    """One headless chromium (Debian's, driven by Playwright) for every studio browser
    test of the session: each test opens its own page in it."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("RACECERT_CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        pytest.fail("Debian's chromium is needed: apt-get install -y chromium (make test "
                    "installs it), or set RACECERT_CHROMIUM to its path")
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()
