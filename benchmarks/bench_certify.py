"""Benchmark of `racecert certify` on every bundled track and the generated hard ones.

Each track is certified by the command line in its own process (`racecert certify
--json`), so the peak memory and the CPU seconds are that certificate's alone; `racecert
analyze --json` runs the same way for the certify / analyze ratio. Reported per track:
the status, figures confirmed, the kinds of method that confirmed m*, certify and analyze
CPU seconds, peak RSS; then, per track, each figure's confirming kinds and every check
with its verdict, its deterministic work (CP-SAT deterministic time, SAT conflicts,
states) and its wall seconds. Targets (issue #19, CPU on a 2-core machine): all bundled
tracks together <= 120 s; open 200x200 <= 30 s and <= 2 GB; open 300x300 <= 120 s and
<= 4 GB; corridor 5000x5 <= 30 s; the serpentine <= 120 s.

Run: `.venv/bin/python -m benchmarks.bench_certify` (prints the markdown section).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.generate import corridor, open_area, serpentine

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {
    "generated open 120x120 (car (1, 60), finish x = 100)": open_area(120, 60, 100),
    "generated open 200x200 (car (1, 100), finish x = 180)": open_area(),
    "generated open 300x300 (car (1, 150), finish x = 280)": open_area(300, 150, 280),
    "generated corridor 1000x5": corridor(1000, 5),
    "generated corridor 5000x5": corridor(5000, 5),
    "generated serpentine (30 plies 205x5)": serpentine(),
}
TARGETS = {"open 200x200": (30, 2048), "open 300x300": (120, 4096),
           "corridor 5000x5": (30, None), "serpentine": (120, None)}
"""Issue #19's CPU seconds and peak MB per generated track (None: no memory target)."""
BUNDLED_TARGET = 120


_CHILD = """
import resource, runpy, sys
sys.argv = ["racecert", sys.argv[1], "--json", sys.argv[2]]
try:
    runpy.run_module("racecert", run_name="__main__")
finally:
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(f"peak-kb {r.ru_maxrss} cpu {r.ru_utime + r.ru_stime}", file=sys.stderr)
"""


def _run(command: str, path: Path) -> tuple[dict, float, float]:
    """The command's JSON, its CPU seconds and the process's peak RSS in MB."""
    p = subprocess.run([sys.executable, "-c", _CHILD, command, str(path)],
                       capture_output=True, text=True, cwd=ROOT, check=False)
    if p.returncode not in (0, 1, 3):
        raise RuntimeError(f"{command} {path} exited {p.returncode}: {p.stderr[-500:]}")
    line = next(x for x in p.stderr.splitlines() if x.startswith("peak-kb "))
    _, peak, _, cpu = line.split()
    return json.loads(p.stdout), float(cpu), int(peak) / 1024


def _kinds(figure: dict) -> str:
    short = {"second-implementation": "second", "solver-model-checked-proof": "proof",
             "solver-model": "model", "enumeration": "enumeration"}
    return ", ".join(short.get(k, k) for k in figure["confirmed_by"]) or "-"


def _work(check: dict) -> str:
    """The check's deterministic work; for a check that did no work (skipped for size,
    not applicable), its reason, which names the size measured against its budget."""
    if check["work"]:
        return str(check["work"])
    reason = " ".join(str(check.get("reason") or "").split()).replace("|", "/")
    return reason[:160] + ("..." if len(reason) > 160 else "") if reason else "-"


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
        rows.append(f"| {figure} | {short} | {c['verdict']} | {_work(c)} | "
                    f"{c['seconds']:.2f} |")
    return rows


def _verdicts(name: str, cpu: float, peak: float) -> str:
    """The target line of a generated track, met or not."""
    for key, (secs, mb) in TARGETS.items():
        if key in name:
            ok = cpu <= secs and (mb is None or peak <= mb)
            limit = f"<= {secs} s" + (f", <= {mb} MB" if mb else "")
            return f"{key}: {cpu:.1f} s CPU, {peak:.0f} MB (target {limit}: " \
                   f"{'met' if ok else 'not met'})"
    return ""


def section() -> str:
    """The markdown section of the benchmark report."""
    tracks = [(p.stem, p, True) for p in sorted((ROOT / "tracks").glob("*.toml"),
                                                key=lambda p: p.stat().st_size)]
    head = ["## certify", "",
            "`racecert certify` per track (own process; deterministic budgets: CP-SAT "
            "60 deterministic time units per solve, SAT 20M conflicts, searches 20M "
            "states). Status: certified = every existing figure confirmed independently. "
            "CPU: user + system seconds of the process. m* by: the kinds of method that "
            "confirmed m* (second = the second implementation, proof = a solver model "
            "with a checked DRUP proof, model = a solver model).",
            "", "| track | m* | status | figures agree / n-a / other | m* by | certify CPU s "
            "| analyze CPU s | certify / analyze | peak MB |",
            "|---|---|---|---|---|---|---|---|---|"]
    details: list[str] = []
    targets: list[str] = []
    bundled = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, text) in enumerate(GENERATED.items()):
            path = Path(tmp) / f"generated-{i}.toml"
            path.write_text(text)
            tracks.append((name, path, False))
        for name, path, is_bundled in tracks:
            cert, cpu, peak = _run("certify", path)
            _, analyze_cpu, _ = _run("analyze", path)
            bundled += cpu if is_bundled else 0.0
            s = cert["summary"]
            other = sum(s[k] for k in ("figures_timeout", "figures_skipped",
                                       "figures_unchecked", "figures_disagree"))
            head.append(f"| {name} | {cert['bfs']['exact']['m_star']} | {cert['status']} | "
                        f"{s['figures_agree']} / {s['figures_not_applicable']} / {other} | "
                        f"{_kinds(cert['figures']['m_star'])} | {cpu:.1f} | "
                        f"{analyze_cpu:.1f} | {cpu / max(analyze_cpu, 1e-9):.0f}x | "
                        f"{peak:.0f} |")
            if not is_bundled and (line := _verdicts(name, cpu, peak)):
                targets.append(f"- {line}")
            confirmed = "; ".join(f"{f}: {_kinds(v)}" for f, v in cert["figures"].items()
                                  if v["verdict"] != "not-applicable")
            details += ["", f"### {name}", "", f"Confirmed by: {confirmed}.", "",
                        *_checks(cert)]
    met = "met" if bundled <= BUNDLED_TARGET else "not met"
    head += ["", f"- all bundled tracks: {bundled:.1f} s CPU in total (target <= "
             f"{BUNDLED_TARGET} s: {met})", *targets]
    return "\n".join(head + details) + "\n"


if __name__ == "__main__":
    print(section())
