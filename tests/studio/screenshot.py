"""Write the README's picture of the studio: `python -m tests.studio.screenshot OUT.png`.

Opens tracks/ocho.toml in the studio (a real server, Debian's chromium), analyses
it, hovers a move on the bridge, and takes the screenshot.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from racecert.studio.server import background
from tests.studio.conftest import TRACKS, make_app


def main(out: str) -> None:
    with tempfile.TemporaryDirectory() as folder, \
            background(make_app(Path(folder), initial=TRACKS / "ocho.toml")) as url, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 820})
        page.goto(url)
        page.wait_for_selector("body[data-ready=true]")
        page.click("#btn-analyse")
        page.wait_for_selector("#figures:not([hidden])", timeout=60_000)
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
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img/studio.png")
