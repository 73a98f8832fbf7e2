"""The studio in a real headless browser: Playwright driving Debian's chromium.

`make test` installs chromium (apt-get) when it is missing; the Playwright
browser download is never used. These tests build a circuit from a blank grid
with the mouse, see the validator's "unreachable" note and undo it, analyse and
read the figures from the page, hover a trajectory, save the file and parse it
back; then open a 200x200 track, pan and zoom it, and cancel a certificate from
the page. Screenshots go to the test's temporary folder (no pixel asserts).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from racecert.analysis.pipeline import analyze
from racecert.model.parse import parse_track
from racecert.studio.diagnostics import validate_draft
from racecert.studio.document import draft_from_json
from racecert.studio.server import background
from tests.studio.conftest import TRACKS, make_app, open_field
from tests.studio.test_document import same

pytest.importorskip("playwright.sync_api")
# the `browser` fixture (one chromium for every studio browser test) is in conftest.py


class Page:
    """A studio page with the helpers the tests use; records errors and every request."""

    def __init__(self, browser, url: str) -> None:
        self.url = url.partition("?")[0]  # the server's address (`url` carries the token)
        self.page = browser.new_page(viewport={"width": 1400, "height": 860})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready=true]")
        assert "token" not in self.page.url  # the page keeps it, the address bar does not

    def cell(self, x: int, y: int) -> tuple[float, float]:
        return tuple(self.page.evaluate("([x, y]) => window.studio.view.cellToClient(x, y)",
                                        [x, y]))

    def drag(self, a: tuple[int, int], b: tuple[int, int], button: str = "left") -> None:
        m = self.page.mouse
        m.move(*self.cell(*a))
        m.down(button=button)
        m.move(*self.cell(*b), steps=6)
        m.up(button=button)

    def click_cell(self, x: int, y: int) -> None:
        self.page.mouse.click(*self.cell(x, y))

    def js(self, expression: str):
        return self.page.evaluate(f"() => {expression}")

    def value(self, figure: str) -> str:
        return self.page.inner_text(f'tr[data-figure="{figure}"] td.value')

    def close(self) -> None:
        assert self.errors == []
        outside = [u for u in self.requests if not u.startswith(self.url)
                   and not u.startswith(("data:", "blob:"))]
        assert outside == []  # everything the page loads comes from the studio itself
        self.page.close()


def test_build_a_circuit_from_a_blank_grid_analyse_and_save(browser, tmp_path: Path) -> None:
    with background(make_app(tmp_path)) as url:
        p = Page(browser, url)
        page = p.page
        page.click("#btn-new")
        page.fill("#new-width", "14")
        page.fill("#new-height", "9")
        page.click("#new-ok")
        assert p.js("[window.studio.doc.width, window.studio.doc.height]") == [14, 9]
        page.click('#shape [data-shape="rect"]')
        page.click('[data-surface="asphalt"]')
        p.drag((1, 1), (12, 7))
        page.click('[data-surface="wall"]')
        p.drag((4, 3), (9, 5))  # a ring: 3 cells wide at the sides, 2 at top and bottom
        page.click('[data-tool="circuit"]')
        p.click_cell(6, 1)  # the car, S just ahead (+x), F two cells behind
        page.wait_for_selector(".verdict.ok")
        assert p.js("window.studio.doc.start") == {"axis": "x", "k": 6, "span": [1, 2],
                                                   "dir": "+x", "layer": 0}
        assert p.js("window.studio.doc.finish")["k"] == 4

        page.click('[data-surface="wall"]')
        p.drag((10, 1), (12, 7))  # wall off the right side: no way round any more
        note = page.wait_for_selector("#messages li.unreachable")
        assert "unreachable" in note.inner_text()
        page.keyboard.press("Control+z")
        page.wait_for_selector(".verdict.ok")
        page.keyboard.press("Control+Shift+z")
        page.wait_for_selector("#messages li.unreachable")
        page.click("#btn-undo")
        page.wait_for_selector(".verdict.ok")

        page.click("#btn-analyse")
        page.wait_for_selector("#figures:not([hidden])", timeout=60_000)
        doc = p.js("window.studio.doc.toJSON()")
        truth = analyze(validate_draft(draft_from_json(doc)).track)
        assert p.value("m_star") == str(truth.bfs.m_star)
        assert p.value("optimal_count") == f"{truth.bfs.optimal_count:,}"
        assert p.value("kind") == "circuit"
        assert p.js("window.studio.analysis.trajectories.map(t => t.name)") == [
            "yellow", "green", "blue"]
        assert page.is_visible("#toggles")

        a, b = p.js("window.studio.analysis.trajectories[0].steps[1].from"), \
            p.js("window.studio.analysis.trajectories[0].steps[1].to")
        (ax, ay), (bx, by) = p.cell(*a), p.cell(*b)
        page.mouse.move((ax + bx) / 2, (ay + by) / 2)
        tip = page.wait_for_selector("#tooltip:not([hidden])")
        assert "moves" in tip.inner_text() and "length" in tip.inner_text()
        shot = tmp_path / "studio.png"
        page.screenshot(path=str(shot))
        assert shot.stat().st_size > 20_000

        page.click('[data-show="yellow"]')
        assert p.js("window.studio.view.show.yellow") is False

        page.fill("#f-name", "Ring")
        page.press("#f-name", "Enter")
        page.click("#btn-save")
        page.fill("#save-path", "ring.toml")
        page.click("#save-ok")
        saved = tmp_path / "ring.toml"
        for _ in range(200):  # bounded wait for the write
            if saved.exists():
                break
            time.sleep(0.05)
        track = parse_track(saved.read_bytes())
        assert track.name == "Ring"
        assert same(track, draft_from_json(p.js("window.studio.doc.toJSON()")))
        p.close()


def test_a_200x200_track_loads_pans_zooms_and_a_certificate_is_cancelled(
        browser, tmp_path: Path, job_processes: None) -> None:
    big = tmp_path / "big.toml"
    big.write_text(open_field(200, 200, "Big"))
    with background(make_app(tmp_path, initial=big)) as url:
        p = Page(browser, url)
        page = p.page
        page.wait_for_selector(".verdict.ok")
        assert p.js("[window.studio.doc.width, window.studio.doc.height]") == [200, 200]
        # one canvas, a few hundred DOM nodes: never a node per cell
        assert p.js("document.querySelectorAll('canvas').length") == 1
        assert p.js("document.querySelectorAll('*').length") < 600
        ox = p.js("window.studio.view.ox")
        p.drag((100, 100), (60, 100), button="right")
        assert p.js("window.studio.view.ox") < ox - 20
        scale = p.js("window.studio.view.scale")
        page.mouse.move(*p.cell(100, 100))
        page.mouse.wheel(0, -400)
        for _ in range(200):  # bounded wait for the wheel event (not a timing assertion)
            if p.js("window.studio.view.scale") > scale:
                break
            time.sleep(0.02)
        assert p.js("window.studio.view.scale") > scale
        page.screenshot(path=str(tmp_path / "big.png"))

        page.click("#btn-certify")
        page.wait_for_selector("#btn-cancel:not([hidden])")
        page.wait_for_selector("#run-status:has-text('Certifying:')")
        page.click("#btn-cancel")
        page.wait_for_selector("#run-status:has-text('Cancelled.')")
        assert page.is_hidden("#btn-cancel") and page.is_enabled("#btn-analyse")
        p.close()


def test_race_replay_steps_through_the_race(browser, tmp_path: Path) -> None:
    pytest.importorskip("racecert.race")
    with background(make_app(tmp_path, initial=TRACKS / "4_esquinas.toml")) as url:
        p = Page(browser, url)
        page = p.page
        page.wait_for_selector("#race-panel:not([hidden])")
        page.click("#btn-race")
        page.wait_for_selector(".replay:not([hidden])", timeout=60_000)
        steps = p.js("window.studio.race.result.steps.length")
        assert steps > 2
        page.click("#race-next")
        assert p.js("window.studio.view.race.k") == 1
        first = p.js("window.studio.race.result.steps[0]")
        assert p.js("window.studio.view.race.frame")[first["car"]] == first["after"]
        page.click("#race-last")
        assert p.js("window.studio.view.race.k") == steps
        page.screenshot(path=str(tmp_path / "race.png"))
        p.close()
