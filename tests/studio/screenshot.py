"""Write the pictures of the studio in the docs:
`python -m tests.studio.screenshot [STUDIO.png [RACE.png [LATTICE.png]]]`
(default docs/img/studio.png, docs/img/studio_race.png and docs/img/studio_lattice.png).

The first opens tracks/ocho.toml in the studio (a real server, Debian's chromium),
analyses it, hovers a move on the bridge, and takes the screenshot. The second opens
tracks/4_esquinas.toml, analyses it, races three cars and stops the replay when the
first car has finished: the race over the faded analysis, the standings so far. The
third opens tracks/lattice/riddler.toml (viewed read only) and analyses it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from racecert.studio.server import background
from tests.studio.conftest import TRACKS, make_app


@contextmanager
def analysed(browser, track: str) -> Iterator[Any]:
    """A studio page on `track` (under tracks/), analysed; closed on leaving."""
    with tempfile.TemporaryDirectory() as folder, \
            background(make_app(Path(folder), initial=TRACKS / track)) as url:
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]")
        page.click("#btn-analyse")
        page.wait_for_selector("#figures:not([hidden])", timeout=60_000)
        yield page
        page.close()


def studio(browser, out: str) -> None:
    with analysed(browser, "ocho.toml") as page:
        a, b = page.evaluate("""() => {
            let best = null;  // the bridge move highest on the grid, of any trajectory
            for (const t of window.studio.analysis.trajectories) for (const s of t.steps)
                if (s.layers[0] === 1 && s.layers[1] === 1
                    && (!best || Math.min(s.from[1], s.to[1]) < Math.min(best.from[1], best.to[1])))
                    best = s;
            return [window.studio.view.cellToClient(...best.from),
                    window.studio.view.cellToClient(...best.to)];
        }""")
        page.mouse.move((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        page.wait_for_selector("#tooltip:not([hidden])")
        page.screenshot(path=out)


def race(browser, out: str) -> None:
    with analysed(browser, "4_esquinas.toml") as page:
        page.click("#race-panel button:has-text('+ car')")
        page.select_option('select[data-car="2"]', "alonso")
        page.click("#btn-race")
        page.wait_for_selector(".replay:not([hidden])", timeout=60_000)
        k = page.evaluate("Math.min(...window.studio.race.result.finishers.map(f => f.step)) + 2")
        page.fill("#race-slider", str(k))
        page.dispatch_event("#race-slider", "input")
        page.evaluate("document.getElementById('panels').scrollTop = 1e6")
        page.mouse.move(5, 400)
        page.screenshot(path=out)


def lattice(browser, out: str) -> None:
    with analysed(browser, "lattice/riddler.toml") as page:
        page.screenshot(path=out)


def main(out: str, race_out: str, lattice_out: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox"])
        studio(browser, out)
        race(browser, race_out)
        lattice(browser, lattice_out)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img/studio.png",
         sys.argv[2] if len(sys.argv) > 2 else "docs/img/studio_race.png",
         sys.argv[3] if len(sys.argv) > 3 else "docs/img/studio_lattice.png")
