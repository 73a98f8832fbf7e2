"""Benchmark of the analysis pipeline: per track, the time of every step.

`section()` returns a markdown section for BENCHMARKS.md (collected by
benchmarks/run.py). Each track is analysed once in this process after one
warm-up run of the smallest track; the times are `Analysis.timings`.

Large tracks (issue #3's target): the full analysis of the open 200x200 track
of `benchmarks/generate.py` (`open_area()`) against its bare layered BFS
(`layered_bfs(track, "exact")`, no bound), both measured in this same process,
alternately, RUNS times each; the target is analysis CPU <= 1.5 x bare BFS CPU
(median of each, issue #18), on the open area, two corridors and the serpentine. The
steps' times are `Analysis.timings` (wall clock, compared with the bare BFS's wall
clock); the verdict is on CPU seconds, which other work on the machine disturbs less.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from pathlib import Path

from benchmarks.generate import corridor, open_area, serpentine
from racecert.analysis import Analysis, analyze
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.dijkstra import shortest_trajectory

TRACKS = ("tiny_straight", "4_esquinas", "ocho", "espiral", "candelabro", "llanura")
STEPS = ("yellow", "bfs", "laps", "continuity", "representatives", "coverage", "score")
STEP_NAMES = {"yellow": "yellow (Dijkstra, bound + exact search)",
              "bfs": "bounded BFS (yellow's moves, envelope pruning)",
              "laps": "laps / aptitude", "continuity": "continuity",
              "representatives": "green / blue DP", "coverage": "red coverage",
              "score": "score"}
RUNS = 5
TARGET_RATIO = 1.5  # issue #18: analyze <= 1.5 x the bare BFS on open areas, corridors, serpentine
# name -> (track source, target ratio to the bare BFS or None when the issue sets none)
LARGE = {"open 200×200": (open_area, TARGET_RATIO),
         "corridor 1000×5": (corridor, TARGET_RATIO),
         "corridor 5000×5": (lambda: corridor(5000, 5), TARGET_RATIO),
         "serpentine 30 plies of 205×5": (serpentine, TARGET_RATIO)}


def _timed(fn):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def _cpu(fn):  # type: ignore[no-untyped-def]
    """(wall seconds, CPU seconds, value) of fn()."""
    w0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - w0, time.process_time() - c0, value


def large_track_rows(name: str, track: Track) -> tuple[list[str], float, float]:
    """Per-step median times of the full analysis vs the bare BFS of `track`.

    Returns the table rows, and the median CPU seconds of the bare BFS and of the analysis.
    """
    bare: list[float] = []
    bare_cpu: list[float] = []
    cpu: list[float] = []
    runs: list[Analysis] = []
    for _ in range(RUNS):
        t, c, r = _cpu(lambda: layered_bfs(track, "exact"))
        bare.append(t)
        bare_cpu.append(c)
        _, c, a = _cpu(lambda: analyze(track))
        cpu.append(c)
        runs.append(a)
    b = statistics.median(bare)
    total = statistics.median(a.seconds for a in runs)
    a = runs[0]
    if any(x.bfs.optimal_count != r.optimal_count or x.bfs.m_star != r.m_star for x in runs):
        raise AssertionError(f"{name}: analysis and bare BFS disagree on m* or the count")
    rows = [f"| {name}: bare BFS (`layered_bfs`, unbounded) | {b:.3f} | "
            f"{r.states_explored:,} states | 1.00 |"]
    for step in STEPS:
        t = statistics.median(x.timings.get(step, 0.0) for x in runs)
        detail = ""
        if step == "yellow":
            detail = (f"{a.yellow.states_settled:,} states settled in {a.yellow.rounds:,} "
                      f"rounds, {a.yellow.moves} moves")
        elif step == "bfs":
            detail = f"{a.bound.states_explored_bounded:,} states"
        elif step == "continuity" and a.continuity is not None:
            detail = f"{a.continuity.states_explored:,} states"
        rows.append(f"| {name}: {STEP_NAMES[step]} | {t:.3f} | {detail} | {t / b:.2f} |")
    rest = statistics.median(x.seconds - x.timings.get("yellow", 0.0) for x in runs)
    rows.append(f"| {name}: every step but yellow | {rest:.3f} |  | {rest / b:.2f} |")
    rows.append(f"| **{name}: full analysis** | **{total:.3f}** | m* = {a.bfs.m_star}, "
                f"{a.bfs.optimal_count:,} optimal | **{total / b:.2f}** |")
    return rows, statistics.median(bare_cpu), statistics.median(cpu)


def _root() -> Path:
    return Path(__file__).resolve().parent.parent


def section() -> str:
    """Markdown: pipeline step times per bundled track, and yellow exact vs editor selection."""
    root = _root()
    analyze(load_track(root / "tracks" / "tiny_straight.toml"))  # warm-up (imports, caches)
    head = "| track | m* | optimal | states | " + " | ".join(STEPS) + " | total s |"
    rows = [head, "|" + "---|" * (len(STEPS) + 5)]
    yellow_rows = ["| track | yellow moves | exact s | editor s | settled (exact) |",
                   "|---|---|---|---|---|"]
    for name in TRACKS:
        path = root / "tracks" / f"{name}.toml"
        if not path.exists():
            continue
        track = load_track(path)
        a = analyze(track)
        t = a.timings
        rows.append(f"| {name} | {a.bfs.m_star} | {a.bfs.optimal_count:.3g} | "
                    f"{a.bfs.states_explored:,} | "
                    + " | ".join(f"{t.get(s, 0.0):.3f}" for s in STEPS)
                    + f" | {a.seconds:.3f} |")
        times = {}
        for sel in ("exact", "editor"):
            t0 = time.perf_counter()
            y = shortest_trajectory(track, sel, length_of=RadicalSum.of_vector,
                                    zero=RadicalSum.zero())
            times[sel] = (time.perf_counter() - t0, y)
        yellow_rows.append(f"| {name} | {times['exact'][1].moves} | {times['exact'][0]:.3f} | "
                           f"{times['editor'][0]:.3f} | {times['exact'][1].states_settled:,} |")
    large = ["| case / step | median s | size | × bare BFS |", "|---|---|---|---|"]
    verdicts = []
    for name, (make, target) in LARGE.items():
        track = parse_track(make().encode(), f"{name}.toml")
        part, bare, total = large_track_rows(name, track)
        large += part
        ratio = total / bare
        line = (f"- {name}: full analysis {total:.3f} s CPU = {ratio:.2f} × the bare BFS "
                f"({bare:.3f} s CPU)")
        if target is None:
            line += ": no target set (reported only)."
        elif ratio <= target:
            line += f": target ≤ {target:g} × **met**."
        else:
            line += (f": target ≤ {target:g} × **not met** (gap "
                     f"{total - target * bare:.3f} s).")
        verdicts.append(line)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return "\n".join([
        "## Analysis pipeline",
        "",
        f"`benchmarks/bench_pipeline.py`, Python {platform.python_version()}, one run per "
        "track after a warm-up; seconds per pipeline step (`Analysis.timings`, mode exact).",
        "",
        *rows,
        "",
        "Yellow (Dijkstra) alone, exact vs editor selection:",
        "",
        *yellow_rows,
        "",
        "### Large tracks: full pipeline vs bare BFS (issues #3, #18)",
        "",
        f"The generated tracks of `benchmarks/generate.py`, in this process: {RUNS} "
        "alternating runs of the bare BFS (`layered_bfs(track, \"exact\")`, no bound) and "
        "of the full `analyze(track)`; median wall seconds per step and their ratio to the "
        "median bare BFS's; the verdicts below compare median CPU seconds (user + system). "
        f"Load average at the end: {load}.",
        "",
        *large,
        "",
        *verdicts,
        "",
        "What each step does on the open area: yellow first runs a cheap best-first search "
        "for an upper bound on the shortest length and then the certified Dijkstra, which "
        "drops the moves that cannot arrive within that bound (measured once by hand, not "
        "rerun here: `shortest_trajectory(..., prune=False)` settles 13,175,880 states in "
        "82-102 s, against 254 s with the former dict-based id map); the bounded BFS "
        "explores only the states the envelope bound keeps (the bare BFS explores them all); "
        "red coverage marks each DAG move's touched cells in one compiled pass per layer "
        "(a table of touched-cell offsets per velocity), and the green/blue DP takes each "
        "layer in compiled passes (exact values as integer rows, tie counts as Python "
        "ints). On the corridors yellow settles "
        "few states (the tie cut of `oracle/yellow_bound.py` leaves unexpanded the straight "
        "trajectories that can only lose the tie-break on moves); both yellow searches are "
        "one compiled kernel (`oracle/yellow_kernel.py`: a bucket-queue Dijkstra over dense "
        "state ids), so the unit windows cost no per-round overhead. On the serpentine the "
        "plain A* bounding search would give up, so a weighted one finds the bound, and the "
        "king-step estimate prunes, as do the tests of states that cannot arrive (too fast "
        "to stay on the grid until they could, or blocked by the row beside them: "
        "`yellow_prune.doomed_one`, `walled_one`); a length metric still leaves a plateau "
        "of near-optimal states (a slow car covers a ply as shortly as a fast one): about "
        "1.5 million are settled, the gap to issue #18's target. Measured once by "
        "hand, not rerun here: with the exact remaining length of every state as the "
        "estimate, 3,337 states lie on a shortest trajectory, but 668 thousand are within "
        "0.5 of it and 1.1 million within the bound's 18.4: a search in order of length "
        "settles every state whose best trajectory is within its estimate's error of the "
        "optimum, so an estimate would have to be within 0.5 of the exact remaining length "
        "on those states to settle fewer. The bounded BFS, which the envelope cannot prune "
        "on folds, costs as much as the bare BFS by itself (its bound is one compiled look-up "
        "per state): the row \"every step but yellow\" shows what is left for yellow.",
        "",
    ])


if __name__ == "__main__":
    print(section())
