"""Benchmark of `racecert certify` on every bundled track and the generated hard ones.

Each track is certified by the command line in its own process (`racecert certify
--json`), so the peak memory is that certificate's alone. Reported per track: the
status, figures confirmed, wall seconds and peak RSS; then, per track, every check
with its verdict, its deterministic work (CP-SAT deterministic time, SAT conflicts,
states) and its seconds. Targets (2-core machine): all bundled tracks <= 10 minutes in
total, llanura <= 3 minutes, the generated open 120x120 <= 5 minutes, peak <= 4 GB.

Run: `.venv/bin/python -m benchmarks.bench_certify` (prints the markdown section).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.generate import corridor, open_area

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {
    "generated open 120x120 (car (1, 60), finish x = 100)": open_area(120, 60, 100),
    "generated corridor 1000x5": corridor(1000, 5),
}


_CHILD = """
import resource, runpy, sys
sys.argv = ["racecert", "certify", "--json", sys.argv[1]]
try:
    runpy.run_module("racecert", run_name="__main__")
finally:
    print(f"peak-kb {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
"""


def _run(path: Path) -> tuple[dict, float, float]:
    """The certificate JSON, wall seconds and the process's peak RSS in MB."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                       text=True, cwd=ROOT, check=False)
    secs = time.perf_counter() - t0
    if p.returncode not in (0, 1, 3):
        raise RuntimeError(f"certify {path} exited {p.returncode}: {p.stderr[-500:]}")
    peak = next(int(line.split()[1]) for line in p.stderr.splitlines()
                if line.startswith("peak-kb "))
    return json.loads(p.stdout), secs, peak / 1024


def _checks(cert: dict) -> list[str]:
    seen: dict[tuple[str, str], dict] = {}
    seconds = {(t["figure"], t["method"]): t["seconds"] for t in cert["timing"]["checks"]}
    for fig in cert["figures"].values():
        for c in fig["checks"]:
            seen[(c["figure"], c["method"])] = {**c, "seconds": seconds[c["figure"], c["method"]]}
    for c in cert["other_checks"]:
        seen[(c["figure"], c["method"])] = {**c, "seconds": seconds[c["figure"], c["method"]]}
    rows = ["| check | method | verdict | work | s |", "|---|---|---|---|---|"]
    for (figure, method), c in seen.items():
        short = method if len(method) <= 70 else method[:67] + "..."
        rows.append(f"| {figure} | {short} | {c['verdict']} | {c['work'] or '-'} | "
                    f"{c['seconds']:.2f} |")
    return rows


def section() -> str:
    """The markdown section of the benchmark report."""
    tracks = [(p.stem, p, True) for p in sorted((ROOT / "tracks").glob("*.toml"),
                                                key=lambda p: p.stat().st_size)]
    head = ["## certify", "",
            "`racecert certify` per track (own process; deterministic budgets: CP-SAT "
            "60 deterministic time units per solve, SAT 20M conflicts, searches 20M "
            "states). Status: certified = every existing figure confirmed independently.",
            "", "| track | m* | status | figures agree / n-a / other | s | peak MB |",
            "|---|---|---|---|---|---|"]
    details: list[str] = []
    bundled = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in GENERATED.items():
            path = Path(tmp) / (name.split()[1] + ".toml")
            path.write_text(text)
            tracks.append((name, path, False))
        for name, path, is_bundled in tracks:
            cert, secs, peak = _run(path)
            bundled += secs if is_bundled else 0.0
            s = cert["summary"]
            other = sum(s[k] for k in ("figures_timeout", "figures_skipped",
                                       "figures_unchecked", "figures_disagree"))
            head.append(f"| {name} | {cert['bfs']['exact']['m_star']} | {cert['status']} | "
                        f"{s['figures_agree']} / {s['figures_not_applicable']} / {other} | "
                        f"{secs:.1f} | {peak:.0f} |")
            details += ["", f"### {name}", "", *_checks(cert)]
    head += ["", f"All bundled tracks: {bundled:.1f} s in total (target: 600 s)."]
    return "\n".join(head + details) + "\n"


if __name__ == "__main__":
    print(section())
