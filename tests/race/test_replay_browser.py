"""The HTML replay in a real headless browser: Playwright driving Debian's chromium.

Steps a four-car, two-lap race with the page's own buttons and reads the standings
table after every step: it must be `standings_at` (only the cars finished so far,
in finishing order, the others racing; the final table after the last step). Also
the "earlier laps" choice and the slider. Structure only, no pixels. Skipped where
Playwright or chromium is missing (`make browser` installs chromium with apt-get;
RACECERT_CHROMIUM names another binary).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, run_race
from racecert.race.replay import RACING, standings_at, timeline
from racecert.race.replay_html import render_replay_html

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("RACECERT_CHROMIUM") or shutil.which("chromium")
TRACKS = Path(__file__).resolve().parents[2] / "tracks"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                                "(apt-get install -y chromium, or make browser)")

TABLE = """() => ({
  title: document.getElementById("standings-title").textContent,
  header: [...document.querySelectorAll("#standings-head th")].map((c) => c.textContent),
  rows: [...document.querySelectorAll("#standings-body tr")].map((r) => ({
    state: r.className, car: Number(r.dataset.car),
    cells: [...r.cells].slice(1).map((c) => c.textContent)})),
  step: Number(document.body.dataset.step),
})"""
TRAILS = """() => [...document.querySelectorAll("#trails line")]
  .filter((l) => getComputedStyle(l).display !== "none").length"""


@pytest.fixture(scope="module")
def race():
    t = load_track(TRACKS / "4_esquinas.toml")
    return run_race(t, [Alonso(), Amateur(), Alonso(), Amateur()], laps=2, seed=3)


@pytest.fixture
def page(race, browser, tmp_path):
    html = tmp_path / "race.html"
    html.write_text(render_replay_html(race))
    errors: list[str] = []
    requests: list[str] = []
    pg = browser.new_page(viewport={"width": 1000, "height": 900})
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: m.type == "error" and errors.append(m.text))
    pg.on("request", lambda r: requests.append(r.url))
    pg.goto(html.as_uri())
    pg.wait_for_selector("body[data-step='0']")
    yield pg
    pg.screenshot(path=str(tmp_path / "race.png"))  # for a look, never compared
    pg.close()
    assert errors == []
    assert requests == [html.as_uri()]  # self-contained: nothing else is fetched


def _step_in_page(page, steps: int) -> list[dict]:
    """Click the page's own "next" button `steps` times in one script, reading the table
    after each click (the handler renders synchronously): one round trip instead of a
    Playwright click (actionability checks, a rendered frame) per step, about 5 of the
    6 CPU s chromium spent on this test."""
    return page.evaluate(f"""() => {{
      const table = {TABLE};
      const next = document.getElementById("next");
      const out = [];
      for (let i = 0; i < {steps}; i++) {{ next.click(); out.push(table()); }}
      return out;
    }}""")


def test_the_table_reveals_cars_as_they_finish(race, page):
    """Every step's table; the first three steps and the last by real (Playwright) clicks
    on the "next" button, the ones between by its click event in one script."""
    n = len(timeline(race))
    real = {1, 2, 3, n}
    tables = {0: page.evaluate(TABLE)}
    for k in range(1, n + 1):
        if k in real:
            page.click("#next")
            tables[k] = page.evaluate(TABLE)
        elif k - 1 in real:  # the run of steps up to the next real click
            run = min(j for j in real if j > k) - k
            tables.update(enumerate(_step_in_page(page, run), start=k))
    assert sorted(tables) == list(range(n + 1))
    revealed = []
    for k in range(n + 1):
        shown = tables[k]
        header, rows = standings_at(race, k)
        assert shown["step"] == k
        assert shown["header"] == ["", *header]
        assert [r["cells"] for r in shown["rows"]] == [list(r) for r in rows]
        assert [r["car"] for r in shown["rows"]] == [int(r[1]) for r in rows]
        if k < n:
            finished = [r for r in shown["rows"] if r["state"] == "finished"]
            assert all(r["cells"][0] != RACING for r in finished)
            assert all(r["cells"][0] == RACING and r["cells"][3] == ""
                       for r in shown["rows"] if r["state"] == "racing")
            revealed.append(len(finished))
            assert shown["title"] == f"Standings after step {k} of {n}"
        else:
            assert {r["state"] for r in shown["rows"]} == {"final"}
            assert shown["title"] == "Final standings"
    # nobody at the start, then one car more at each finish: 0, 1, 2, 3 (the last
    # car finishes on the last step, which shows the final table)
    assert revealed[0] == 0 and revealed == sorted(revealed)
    assert sorted(set(revealed)) == [0, 1, 2, 3]


def test_earlier_laps_fade_or_hide_and_the_slider_scrubs(race, page):
    steps = timeline(race)
    moving = [s for s in steps if s.after != s.before]
    page.click("#last")
    assert page.evaluate(TABLE)["step"] == len(steps)
    assert page.evaluate(TRAILS) == len(moving)  # faded, still drawn
    page.select_option("#earlier", "hidden")
    last_lap = [s for s in moving if s.lap == race.laps - 1]
    assert page.evaluate(TRAILS) == len(last_lap)
    page.fill("#slider", "0")  # back to the start through the slider
    page.dispatch_event("#slider", "input")
    shown = page.evaluate(TABLE)
    assert shown["step"] == 0 and {r["state"] for r in shown["rows"]} == {"racing"}
    assert page.evaluate(TRAILS) == 0
