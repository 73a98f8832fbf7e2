"""The rule profiles at growing size: cell-path maps and circle-lap lattice tracks.

Per track, in its own subprocess: the states the oracle's search explored, the CPU
seconds of `analyze` (best start) and of `certify` (best start: the oracle's analysis
again plus every independent check), the certificate's status and the peak RSS of the
process (`wait4`). Two families:

- the public cell-path maps of the reinforcement-learning and model-checking
  literature (barto-small, barto-big, ring, maze), external test data read from
  ../shared/external/ beside the repository (the section says when they are absent);
- lattice tracks round a circular infield of radius R (one lap, as the Riddler track),
  written here for R = 3 .. 24.

    python -m benchmarks.bench_profiles               # the markdown section
    python -m benchmarks.bench_profiles SPEC          # one track, one JSON line
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
from pathlib import Path

from benchmarks.child import run_child

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ROOT.parent / "shared" / "external"
CELL_MAPS = ("momba-racetrack/barto-small.track", "momba-racetrack/barto-big.track",
             "momba-racetrack/ring.track", "momba-racetrack/maze.track")
BUNDLED_MAPS = ("tracks/cellpath/hairpin.toml", "tracks/cellpath/chicane.toml")
"""The bundled cell-path maps, certified from every start with every check (hairpin's
CP-SAT model of m* is the largest bundled one: `make test` solves chicane's)."""
RADII = (3, 6, 10, 16, 24)


def circle_track(radius: int) -> str:
    """A lattice track round a circular infield of `radius`: one counterclockwise lap
    (on the picture) from the middle of the start line below the circle."""
    r, w = radius, radius + 4
    return (f'rules = "lattice"\nname = "circle lap, radius {r}"\n\n'
            f"[bounds]\nx = [{-w}, {w}]\ny = [{-w}, {w}]\n\n"
            f"[[circles]]\ncenter = [0, 0]\nradius = {r}\n\n"
            f"[start]\npositions = [[0, {r + 2}]]\n\n"
            f"[finish]\nfrom = [0, {r}]\nto = [0, {w}]\ndirection = [1, 0]\nlaps = 1\n")


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def run_one(spec: str) -> dict:
    """Analyse and certify one track (`circle:R` or a map path) in this process."""
    from racecert.analysis.lattice.pipeline import analyze_lattice
    from racecert.certification.lattice.certificate import certify_lattice
    from racecert.model.parse import load_track, parse_track

    if spec.startswith("circle:"):
        text = circle_track(int(spec.split(":")[1]))
        track = parse_track(text.encode(), f"{spec}.toml")
    else:
        track = load_track(spec)
    c0 = _cpu()
    a = analyze_lattice(track, best_start=True)  # type: ignore[arg-type]
    c1 = _cpu()
    cert = certify_lattice(track, best_start=True)  # type: ignore[arg-type]
    c2 = _cpu()
    return {"name": track.name, "size": f"{track.width}x{track.height}",
            "m_star": a.bfs.m_star, "states": a.bfs.states_explored,
            "analyze_cpu": c1 - c0, "certify_cpu": c2 - c1, "status": cert.status}


def measure(spec: str) -> dict:
    """One track in a fresh subprocess: its result and its peak RSS in MB."""
    run = run_child("benchmarks.bench_profiles", spec, cwd=ROOT)
    if run.code != 0:
        return {"name": spec, "error": run.err.strip().splitlines()[-1][:200]}
    return run.result()


def _row(r: dict) -> str:
    if "error" in r:
        return f"| {r['name']} | | | | | | failed: {r['error']} | |"
    return (f"| {r['name']} | {r['size']} | {r['m_star']} | {r['states']:,} | "
            f"{r['analyze_cpu']:.2f} | {r['certify_cpu']:.2f} | {r['status']} | "
            f"{r['peak_mb']:.0f} |")


def section() -> str:
    lines = ["## Rule profiles: cell-path maps and circle-lap lattice tracks\n",
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
             f"load {os.getloadavg()[0]:.1f}; Python {platform.python_version()}. Best start "
             "throughout; CPU seconds of the process (user + system); certify runs the "
             "oracle's analysis again with every independent check.\n",
             "| track | size | m* | states | analyze CPU s | certify CPU s | certificate "
             "| peak RSS (MB) |", "|---|---|---|---|---|---|---|---|"]
    maps = [EXTERNAL / m for m in CELL_MAPS]
    specs = ([str(ROOT / m) for m in BUNDLED_MAPS] + [str(m) for m in maps if m.exists()]
             + [f"circle:{r}" for r in RADII])
    lines += [_row(measure(s)) for s in specs]
    if len(specs) < len(BUNDLED_MAPS) + len(maps) + len(RADII):
        lines.append(f"\nCell-path maps not found in {EXTERNAL}: skipped.")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) > 1:
        print(json.dumps(run_one(sys.argv[1])))
    else:
        print(section())
