"""The studio's views in a real headless browser (Debian's chromium, as test_browser.py):
the race on its own layer (the analysis faded or hidden under it, the replay's car
colours), the standings revealed as cars finish, a readable standings table, the
SVG and PNG export of the view, and the job's progress kept in view.

Structure is compared, not pixels: the page's state, the table's cells and their
layout boxes, the exported SVG's elements, the PNG's header.
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from racecert.analysis.svg import COLORS
from racecert.model.parse import load_track
from racecert.studio.server import background
from tests.certification.test_lattice_certificate import SMALL
from tests.studio.conftest import TRACKS, make_app, open_field
from tests.studio.test_browser import Page

SVG = "{http://www.w3.org/2000/svg}"
ANALYSIS = {COLORS[k].lower() for k in ("yellow", "green", "blue", "red")}


def download(page, button: str, to: Path) -> Path:
    with page.expect_download() as d:
        page.click(button)
    d.value.save_as(to)
    return to


def svg_of(path: Path) -> ET.Element:
    """The exported file parsed as XML: a standalone SVG (one root, its namespace, a size,
    nothing loaded from elsewhere)."""
    text = path.read_text(encoding="utf-8")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    width, height = root.get("width"), root.get("height")
    assert int(width) > 0 and int(height) > 0 and root.get("viewBox") == f"0 0 {width} {height}"
    for el in root.iter():
        assert el.tag.startswith(SVG)  # no foreign elements (no foreignObject, no HTML)
        for key, value in el.attrib.items():
            assert "href" not in key and "http" not in value and "javascript" not in value
    return root


def group(root: ET.Element, gid: str) -> ET.Element | None:
    return next((g for g in root.iter(f"{SVG}g") if g.get("id") == gid), None)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def standings(p: Page) -> tuple[str, list[str], list[list[str]]]:
    caption = p.page.inner_text("#race-standings caption")
    head = p.js("[...document.querySelectorAll('#race-standings th')].map(e => e.textContent)")
    rows = p.js("[...document.querySelectorAll('#race-standings tbody tr')]"
                ".map(r => [...r.cells].map(c => c.textContent))")
    return caption, head, rows


def test_race_layer_palette_standings_and_export(browser, tmp_path: Path) -> None:
    race = pytest.importorskip("racecert.race")
    from racecert.race.replay import CAR_COLORS, finish_steps, standings_at, timeline
    from racecert.race.standings import standings_rows

    with background(make_app(tmp_path, initial=TRACKS / "4_esquinas.toml")) as url:
        p = Page(browser, url)
        page = p.page
        page.click("#btn-analyse")
        page.wait_for_selector("#figures:not([hidden])", timeout=60_000)
        assert p.js("window.studio.view.analysisOpacity()") == 1  # no race: the analysis whole
        # the car list shows each car's colour before the race, from the server's palette
        swatches = p.js("[...document.querySelectorAll('.race-cars i.car')]"
                        ".map(e => getComputedStyle(e).backgroundColor)")
        assert len(swatches) == 2
        page.click("#race-panel button:has-text('+ car')")
        page.select_option('select[data-car="2"]', "alonso")
        page.click("#btn-race")
        page.wait_for_selector(".replay:not([hidden])", timeout=60_000)

        colors = p.js("window.studio.race.result.colors")
        assert colors == [CAR_COLORS[i % len(CAR_COLORS)] for i in range(3)]
        assert not {c.lower() for c in colors} & ANALYSIS
        # the race is its own layer: the analysis under it faded (default), hidden, shown
        assert p.js("window.studio.view.analysisOpacity()") == pytest.approx(0.2)
        page.select_option("#race-analysis", "hidden")
        assert p.js("window.studio.view.analysisOpacity()") == 0
        page.select_option("#race-analysis", "shown")
        assert p.js("window.studio.view.analysisOpacity()") == 1
        page.select_option("#race-analysis", "faded")

        # standings revealed as cars finish: the same table as racecert.race.replay's
        result = race.run_race(load_track(TRACKS / "4_esquinas.toml"),
                               [race.Alonso(), race.Amateur(), race.Alonso()], laps=1, seed=0)
        steps = timeline(result)
        assert p.js("window.studio.race.result.steps.length") == len(steps)
        first = min(finish_steps(result, steps).values())
        caption, head, rows = standings(p)
        assert caption == f"Standings after step 0 of {len(steps)}"
        assert head == ["place", "car", "driver", "moves", "laps", "status"]
        assert [r[5] for r in rows] == ["racing"] * 3
        for k in (first, first + 1):
            page.fill("#race-slider", str(k))
            page.dispatch_event("#race-slider", "input")
            rows = standings(p)[2]
            live = standings_at(result, k)[1]
            assert [(r[0], r[1], r[2]) for r in rows] == [
                (row[0] if row[0] != "racing" else "–", row[1], row[2]) for row in live]
            placed = [r for r in rows if r[5] == "finished"]
            assert [(r[0], r[3], r[4]) for r in placed] == [
                (row[0], row[3], "1/1") for row in live if row[0] != "racing"]
        assert len([r for r in standings(p)[2] if r[5] == "finished"]) == 1  # revealed one by one

        # a readable table: every cell on one line, none cut off, the columns apart
        boxes = p.js("""[...document.querySelectorAll('#race-standings td, #race-standings th')]
            .map(c => [c.scrollWidth, c.clientWidth, c.getBoundingClientRect().height])""")
        line = p.js("parseFloat(getComputedStyle("
                    "document.querySelector('#race-standings td')).lineHeight) || 16")
        assert all(sw <= cw and h < 2 * line + 8 for sw, cw, h in boxes)
        assert p.js("document.querySelector('#race-standings').getBoundingClientRect().right <= "
                    "document.querySelector('#panels').getBoundingClientRect().right")

        # export of the view: the race over the faded analysis, a standalone SVG
        root = svg_of(download(page, "#btn-export-svg", tmp_path / "race.svg"))
        ids = [g.get("id") for g in root if g.tag == f"{SVG}g"]
        assert ids == ["ground", "coverage", "grid", "analysis-ground", "deck", "analysis-deck",
                       "lines", "race", "labels"]
        assert group(root, "analysis-ground").get("opacity") == "0.2"
        assert [g.get("data-name") for g in group(root, "analysis-ground")] == ["yellow", "green",
                                                                               "blue"]
        cars = [g for g in group(root, "race").iter(f"{SVG}g") if g.get("class") == "race-car"]
        assert [c.find(f"{SVG}circle").get("fill") for c in cars] == colors
        assert root.find(f"{SVG}title").text == "4 Esquinas — race, step " \
            f"{first + 1} of {len(steps)}"
        width, height = int(root.get("width")), int(root.get("height"))
        assert png_size(download(page, "#btn-export-png", tmp_path / "race.png")) == (width, height)

        page.select_option("#race-analysis", "hidden")
        root = svg_of(download(page, "#btn-export-svg", tmp_path / "hidden.svg"))
        assert group(root, "analysis-ground") is None and group(root, "coverage") is None

        page.click("#race-last")
        caption, _, rows = standings(p)
        assert caption == "Final standings"
        final = standings_rows(result)
        assert [r[1] for r in rows] == [row[1] for row in final]
        assert [r[5] for r in rows] == ["finished" if result.cars[int(row[1])].finished
                                        else "did not finish" for row in final]
        page.screenshot(path=str(tmp_path / "race-layer.png"))

        page.click("#race-close")  # back to the analysis, whole, and the car
        assert p.js("window.studio.view.race") is None
        assert p.js("window.studio.view.analysisOpacity()") == 1
        root = svg_of(download(page, "#btn-export-svg", tmp_path / "analysis.svg"))
        assert group(root, "analysis-ground").get("opacity") is None
        assert group(root, "car") is not None and group(root, "race") is None
        p.close()


def test_an_export_without_analysis_is_the_track_and_the_car(browser, tmp_path: Path) -> None:
    f = tmp_path / "field.toml"
    f.write_text(open_field(12, 7, r'A \"quoted\" <name> & more'))  # TOML escapes
    with background(make_app(tmp_path, initial=f)) as url:
        p = Page(browser, url)
        root = svg_of(download(p.page, "#btn-export-svg", tmp_path / "out.svg"))
        assert root.find(f"{SVG}title").text == 'A "quoted" <name> & more'  # escaped, read back
        ids = [g.get("id") for g in root if g.tag == f"{SVG}g"]
        assert ids == ["ground", "grid", "deck", "lines", "car", "labels"]
        runs = list(group(root, "ground").iter(f"{SVG}rect"))
        assert len(runs) == 1 + 1 + 5 * 3  # top and bottom walls; each row: wall, road, wall
        assert sum(int(r.get("width")) for r in runs) == 7 * 12 * int(runs[0].get("height"))
        assert len([c for c in group(root, "car").iter(f"{SVG}circle")]) == 1
        p.close()


def test_a_jobs_progress_stays_in_view(browser, tmp_path: Path, job_processes: None) -> None:
    big = tmp_path / "big.toml"
    big.write_text(open_field(200, 200, "Big"))
    with background(make_app(tmp_path, initial=big)) as url:
        p = Page(browser, url)
        page = p.page
        page.set_viewport_size({"width": 1400, "height": 400})
        page.wait_for_selector(".verdict.ok")
        page.click("#btn-certify")
        page.wait_for_selector("#run-status:has-text('Certifying:')")
        page.wait_for_selector("#job-log li")
        assert page.is_visible("#progress") and page.is_visible("#job-info")
        p.js("(() => { const a = document.getElementById('panels'); "
             "a.scrollTop = a.scrollHeight; })()")
        assert p.js("document.getElementById('panels').scrollTop") > 50  # the column scrolled
        panel, column = p.js("""[document.getElementById('job-panel').getBoundingClientRect(),
                                 document.getElementById('panels').getBoundingClientRect()]
                                .map(r => [r.top, r.bottom])""")
        assert column[0] - 1 <= panel[0] and panel[1] <= column[1]  # still in view, at the top
        assert page.is_visible("#run-status")
        page.click("#btn-cancel")
        page.wait_for_selector("#run-status:has-text('Cancelled.')")
        assert "ended" in page.inner_text("#job-step") and page.is_hidden("#job-log")
        page.click("#job-log-toggle")  # the steps of the ended job, on demand
        assert page.is_visible("#job-log li")
        p.close()


def test_a_lattice_track_is_viewed_read_only_analysed_and_certified(browser,
                                                                     tmp_path: Path) -> None:
    """`racecert studio ring.toml` (a lattice track: the small ring of
    tests/certification/test_lattice_certificate.py, certified in a tenth of a second where
    the riddler takes about two): the note, the track's picture and the file's text; no
    editing tool, Save, Download, export, undo or race; Analyse shows the profile's
    picture of the analysis and the API's figures, Certify the verdicts; then a grid track
    opened from the dialog gets the editor back."""
    from racecert import api

    ring = tmp_path / "ring.toml"
    ring.write_text(SMALL)
    with background(make_app(tmp_path, initial=ring)) as url:
        p = Page(browser, url)
        page = p.page
        assert page.is_visible("#view-note") and "grid tracks" in page.inner_text("#view-note")
        assert p.js("document.getElementById('view-text').textContent") == ring.read_text()
        assert p.js("document.querySelector('#view-picture svg #starts').children.length") == 3
        assert not page.is_visible("#canvas") and not page.is_visible("#surfaces")
        assert not page.is_visible("#race-panel") and not page.is_visible("#placers")
        for button in ("#btn-save", "#btn-download", "#btn-export-svg", "#btn-undo", "#mode"):
            assert page.is_disabled(button), button
        page.keyboard.press("Control+z")  # no shortcut acts on the hidden editor
        assert p.errors == []

        page.click("#btn-analyse")
        page.wait_for_selector("#figures:not([hidden])", timeout=60_000)
        truth = api.analyze(ring)
        assert p.value("m_star") == str(truth.bfs.m_star)
        assert p.value("optimal_count") == f"{truth.bfs.optimal_count:,}"
        assert p.value("final_states") == str(truth.bfs.final_states)
        assert p.value("green_length").startswith(f"{truth.green.length.to_float():.3f} = ")
        ours = p.js("document.querySelector('#view-picture svg').outerHTML")
        theirs = ET.fromstring(truth._repr_svg_())
        shown = ET.fromstring(ours)
        assert [e.tag for e in shown.iter()] == [e.tag for e in theirs.iter()]
        assert f"m* = {truth.bfs.m_star}" in page.inner_text("#run-status")

        page.click("#btn-certify")
        page.wait_for_selector("#cert-status:not([hidden])", timeout=120_000)
        assert page.inner_text("#cert-status").startswith("CERTIFIED")
        assert p.js("[...document.querySelectorAll('#figures td.cert .badge')]"
                    ".every(b => b.textContent === 'agree')")
        assert page.inner_text('tr[data-figure="move_validity"] td.value').startswith(
            "the lattice profile's rules")

        page.click("#btn-open")
        page.click("#open-list button:text-is('tiny_straight.toml')")
        page.wait_for_selector("#view-stage", state="hidden")  # the view may still show a
        page.wait_for_selector(".verdict.ok")  # verdict while the grid track loads
        assert page.is_visible("#canvas") and not page.is_visible("#view-stage")
        assert not page.is_disabled("#btn-save") and not page.is_disabled("#mode")
        p.close()
