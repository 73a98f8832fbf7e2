"""Write the docs' picture of the race replay page:
`python -m tests.race.screenshot OUT.png` (default docs/img/race_replay.png).

Races four cars (Alonso, Amateur, Alonso, Amateur) over two laps of
tracks/4_esquinas.toml with seed 3, opens the replay page in Debian's chromium,
steps to just after the second car has finished (the first lap faded, the table
showing two finishers and two cars racing) and takes the screenshot.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, run_race
from racecert.race.replay import finish_steps
from racecert.race.replay_html import render_replay_html

TRACKS = Path(__file__).resolve().parents[2] / "tracks"


def main(out: str) -> None:
    race = run_race(load_track(TRACKS / "4_esquinas.toml"),
                    [Alonso(), Amateur(), Alonso(), Amateur()], laps=2, seed=3)
    step = sorted(finish_steps(race).values())[1] + 1  # the second finisher just shown
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        html = Path(folder) / "race.html"
        html.write_text(render_replay_html(race))
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 760, "height": 700})
        page.goto(html.as_uri())
        page.fill("#slider", str(step))
        page.dispatch_event("#slider", "input")
        page.wait_for_selector(f"body[data-step='{step}']")
        page.screenshot(path=out, full_page=True)
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img/race_replay.png")
