"""Saving in the studio: Save proposes a writable folder (the one the studio was started
in), never the bundled tracks' (package data); `racecert studio my_tracks/ring.toml` on a
file that does not exist yet starts a blank grid that Save writes there; the unsaved
marker and the beforeunload warning. The API and the CLI directly, then the page in
Debian's chromium (as test_browser.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from racecert.model.parse import parse_track
from racecert.studio.app import StudioConfig, create_app
from racecert.studio.files import FileAccessError, Roots, bundled_tracks, is_new_track
from racecert.studio.server import background
from tests.studio.conftest import TRACKS, make_app, studio_client
from tests.studio.test_browser import Page


def test_a_new_track_file_is_one_that_does_not_exist_in_a_folder_that_does(tmp_path) -> None:
    assert is_new_track(tmp_path / "ring.toml")
    (tmp_path / "old.toml").write_text("x")
    assert not is_new_track(tmp_path / "old.toml")  # exists: opened, not replaced
    assert not is_new_track(tmp_path / "ring.txt")  # not a track file name: "no such file"
    with pytest.raises(FileAccessError, match="does not exist") as e:
        is_new_track(tmp_path / "nope" / "ring.toml")
    assert "\n" not in str(e.value)


def test_home_is_the_folder_the_studio_started_in(tmp_path, monkeypatch) -> None:
    other, here = tmp_path / "other", tmp_path / "here"
    other.mkdir()
    here.mkdir()
    roots = Roots.of([other, here], bundled_tracks())
    monkeypatch.chdir(here)
    assert roots.folders[roots.home()].path == here.resolve()
    monkeypatch.chdir(tmp_path)  # not one of the folders: the first writable one
    assert roots.folders[roots.home()].path == other.resolve()
    assert Roots.of([], bundled_tracks()).home() is None  # only the read-only bundled tracks
    assert all(f.path != bundled_tracks() for f in roots.folders if f.writable)


def test_the_session_offers_a_new_track_to_be_saved(tmp_path) -> None:
    app = make_app(tmp_path, initial=tmp_path / "ring.toml")
    with studio_client(app) as client:
        session = client.get("/api/session").json()
    assert session["initial"] == {"document": None, "new": True, "name": "ring",
                                  "source": {"folder": 1, "path": "ring.toml"}}
    assert session["folders"][session["home"]]["path"] == str(tmp_path.resolve())


def test_racecert_studio_on_a_missing_file_starts_a_new_track(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`racecert studio my_tracks/ring.toml` in-process, up to the server it would run:
    the app it made answers the session (a real server's run and its Ctrl-C are
    tests/cli/test_studio_cli.py's)."""
    from racecert.cli import main
    from racecert.cli import studio as studio_cli

    (tmp_path / "my_tracks").mkdir()
    monkeypatch.chdir(tmp_path)
    sessions: list[dict] = []

    def answer(app, sock) -> None:  # instead of serving until Ctrl-C
        sock.close()
        with studio_client(app) as c:
            sessions.append(c.get("/api/session").json())

    monkeypatch.setattr(studio_cli, "serve", answer)
    assert main(["studio", "my_tracks/ring.toml", "--port", "0"]) == 0
    assert capsys.readouterr().err.startswith("racecert studio: http://127.0.0.1:")
    (session,) = sessions
    initial = session["initial"]
    assert initial["new"] and initial["name"] == "ring"
    folder = session["folders"][initial["source"]["folder"]]
    assert folder["writable"]
    assert Path(folder["path"], initial["source"]["path"]) == (
        tmp_path / "my_tracks" / "ring.toml").resolve()
    assert not (tmp_path / "my_tracks" / "ring.toml").exists()  # written only by Save


def wait_for(path: Path) -> None:
    for _ in range(200):  # bounded wait for the write
        if path.exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written")


def road_cell(p: Page) -> tuple[int, int]:
    """The first asphalt cell of the page's track (painting a wall there is an edit)."""
    return tuple(p.js("(() => { const d = window.studio.doc, i = d.ground.indexOf(46); "
                      "return [i % d.width, Math.floor(i / d.width)]; })()"))


def beforeunload_asks(p: Page) -> bool:
    """Whether leaving the page now asks first (the beforeunload dialog, accepted here);
    the page is left and closed either way."""
    asked: list[str] = []

    def on_dialog(dialog) -> None:
        asked.append(dialog.type)
        dialog.accept()

    p.page.on("dialog", on_dialog)
    p.page.goto("about:blank")
    p.page.close()
    return asked == ["beforeunload"]


def test_a_bundled_track_is_saved_into_the_start_folder_and_unsaved_is_marked(
        browser, tmp_path: Path, monkeypatch) -> None:
    other, here = tmp_path / "other", tmp_path / "here"
    other.mkdir()
    here.mkdir()
    monkeypatch.chdir(here)
    app = create_app(StudioConfig(Roots.of([other, here], bundled_tracks()),
                                  initial=TRACKS / "ocho.toml"))
    with background(app) as url:
        p = Page(browser, url)
        page = p.page
        assert page.is_hidden("#unsaved") and not page.title().startswith("●")
        page.click("#btn-save")
        folder = page.input_value("#save-folder")
        assert p.js("window.studio.session.folders")[int(folder)]["path"] == str(here.resolve())
        assert page.input_value("#save-path") == "ocho.toml"
        where = page.inner_text("#save-where")
        assert where == f"{here.resolve()}/ocho.toml"
        assert not where.startswith(str(bundled_tracks()))
        page.click("#dlg-save button[value=cancel]")

        p.page.click('[data-surface="wall"]')
        cell = road_cell(p)
        p.click_cell(*cell)  # an edit: unsaved
        page.wait_for_selector("#unsaved:not([hidden])")
        assert page.title().startswith("●")
        page.keyboard.press("Control+z")  # back to the opened state: saved again
        page.wait_for_selector("#unsaved", state="hidden")
        p.click_cell(*cell)
        page.wait_for_selector("#unsaved:not([hidden])")
        page.click("#btn-save")
        page.click("#save-ok")
        wait_for(here / "ocho.toml")
        page.wait_for_selector("#unsaved", state="hidden")
        assert parse_track((here / "ocho.toml").read_bytes()).name == "Ocho"
        assert not (other / "ocho.toml").exists()
        assert p.errors == []
        assert not beforeunload_asks(p)  # saved: closes without asking

        p = Page(browser, url)
        p.page.click('[data-surface="wall"]')
        p.click_cell(*road_cell(p))
        p.page.wait_for_selector("#unsaved:not([hidden])")
        assert p.errors == []
        assert beforeunload_asks(p)  # edited since the load: asks


def test_a_new_track_file_is_drawn_and_saved_where_it_was_named(
        browser, tmp_path: Path) -> None:
    target = tmp_path / "ring.toml"
    with background(make_app(tmp_path, initial=target)) as url:
        p = Page(browser, url)
        page = p.page
        assert p.js("window.studio.doc.name") == "ring"
        assert p.js("window.studio.source") == {"folder": 1, "path": "ring.toml"}
        assert page.is_visible("#hint")  # a blank grid, with the first steps
        page.click('#shape [data-shape="rect"]')
        page.click('[data-surface="asphalt"]')
        p.drag((1, 1), (12, 7))
        page.click("#btn-save")
        assert page.input_value("#save-path") == "ring.toml"
        assert page.inner_text("#save-where") == f"{tmp_path.resolve()}/ring.toml"
        page.click("#save-ok")
        wait_for(target)
        text = target.read_text()  # a draft (no car on the road yet): saved as it is
        assert text.startswith('name = "ring"') and "....." in text
        p.close()
