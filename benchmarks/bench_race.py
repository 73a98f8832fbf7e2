"""Benchmark of races (issue #10): seconds per race and per move decision.

On each bundled circuit a 3-lap race, on each bundled stage a 1-lap race, of 4 cars
(Alonso, Amateur, Alonso, Amateur, seed 0), or of as many as the track's grid holds.
Per race: the status, turns, wall seconds (the track's analysis for `trai` included),
and per driver the median, 90th percentile and largest wall time of one decision
(one call of the driver; the rare calls that plan are the slow ones). Target: the
median decision of either driver <= 50 ms on every bundled track.
"""

from __future__ import annotations

import platform
import statistics
import time
from pathlib import Path

from racecert.model.parse import load_track
from racecert.race import Alonso, Amateur, RaceSetupError, run_race
from racecert.race.context import RaceContext
from racecert.race.engine import RaceResult, default_move_limit
from racecert.race.grid import grid_slots

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 50.0
CARS = 4


def _cars(track) -> int:
    for n in range(CARS, 0, -1):
        try:
            grid_slots(track, n)
            return n
        except RaceSetupError:
            continue
    return 0


def _ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return 1000 * s[min(len(s) - 1, int(q * len(s)))]


def _race(path: Path) -> tuple[RaceResult, float, str]:
    track = load_track(path)
    ctx = RaceContext(track, 1, default_move_limit(1))
    laps = 3 if ctx.circuit else 1
    ctx = RaceContext(track, laps, default_move_limit(laps))
    n = _cars(track)
    drivers = [(Alonso() if i % 2 == 0 else Amateur()) for i in range(n)]
    t0 = time.perf_counter()
    result = run_race(track, drivers, laps=laps, seed=0, context=ctx)
    return result, time.perf_counter() - t0, ctx.aptitude.kind


def section() -> str:
    rows = ["| track | kind | laps | cars | status | turns | race s | decisions | "
            "Alonso median / p90 / max ms | Amateur median / p90 / max ms |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    worst = 0.0
    for path in sorted((ROOT / "tracks").glob("*.toml")):
        result, seconds, kind = _race(path)
        per: dict[str, list[float]] = {"alonso": [], "amateur": []}
        for c in result.cars:
            per[c.driver] += list(c.decision_seconds)
        cells = []
        for name in ("alonso", "amateur"):
            v = per[name]
            if v:
                med = 1000 * statistics.median(v)
                worst = max(worst, med)
                cells.append(f"{med:.3f} / {_ms(v, 0.9):.3f} / {1000 * max(v):.0f}")
            else:
                cells.append("—")
        decisions = sum(len(v) for v in per.values())
        rows.append(f"| {path.name} | {kind} | {result.laps} | {len(result.cars)} | "
                    f"{result.status} | {result.turns} | {seconds:.2f} | {decisions} | "
                    f"{cells[0]} | {cells[1]} |")
    verdict = ("**met**" if worst <= TARGET_MS else "**not met**")
    return "\n".join([
        "## Races",
        "",
        f"`benchmarks/bench_race.py`, Python {platform.python_version()}: on each bundled "
        "circuit a 3-lap race and on each stage a 1-lap race of 4 cars (Alonso, Amateur, "
        "Alonso, Amateur, seed 0; fewer where the grid holds fewer: the tiny tracks' "
        "corridors), one run each. *race s* includes the track's analysis (for `trai`). "
        "A decision is one call of a driver; the slow ones are the calls that plan "
        "(a BFS or a local search), most calls only follow a plan.",
        "",
        *rows,
        "",
        f"- Largest median decision of either driver: {worst:.3f} ms; target ≤ "
        f"{TARGET_MS:g} ms {verdict}.",
        "- `tiny_circuit_race_vs_editor.toml` allows two laps only (docs/continuity.md): "
        "its 3-lap race ends at the move limit by design.",
        "",
    ])


if __name__ == "__main__":
    print(section())
