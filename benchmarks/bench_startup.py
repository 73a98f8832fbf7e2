"""Benchmark of start-up (issue #18): CPU seconds and peak RSS of one `racecert` process.

Every command pays for what its imports load before it does any work, and the test
suite starts hundreds of processes. Each command below runs `RUNS` times as
``python -m racecert ...`` in a fresh process; the table gives the least and the
median CPU seconds (user + system, from the child's resource usage: less sensitive
to other processes than wall time) and the largest peak RSS, next to a bare
``python -c pass`` for the interpreter's own share. Target: `racecert --version`
<= 0.3 s of CPU. The first `analyze` after an install compiles the analysis's numba kernels
(cached on disk afterwards): measured `COLD_RUNS` times with an empty cache folder of its own
(``NUMBA_CACHE_DIR``), beside the warm runs above.

    python -m benchmarks.run --only bench_startup --out -
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 7
COLD_RUNS = 2
TARGET_S = 0.3
TINY = "tracks/tiny_straight.toml"
COMMANDS = [
    ("python -c pass", ["-c", "pass"]),
    ("racecert --version", ["-m", "racecert", "--version"]),
    ("racecert --help", ["-m", "racecert", "--help"]),
    (f"racecert validate {TINY}", ["-m", "racecert", "validate", TINY]),
    (f"racecert analyze {TINY}", ["-m", "racecert", "analyze", TINY]),
    ("racecert certify --help", ["-m", "racecert", "certify", "--help"]),
]


def measure(argv: list[str], runs: int = RUNS, cold: bool = False
            ) -> tuple[float, float, float]:
    """Least and median CPU seconds of `runs` runs of ``python ARGV``, and the largest
    peak RSS in MB; a run that fails raises (its stderr in the message). `cold`: each run
    with an empty numba cache folder of its own (every kernel it uses compiled)."""
    cpu, peak = [], 0.0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            if cold:
                env["NUMBA_CACHE_DIR"] = cache
            usage = _run(argv, env)
        cpu.append(usage.ru_utime + usage.ru_stime)
        peak = max(peak, usage.ru_maxrss / 1024)  # Linux reports kilobytes
    return min(cpu), statistics.median(cpu), peak


def _run(argv: list[str], env: dict[str, str]) -> os.struct_rusage:
    """One run of ``python ARGV``: its resource usage (raises when it fails)."""
    proc = subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise RuntimeError(f"python {' '.join(argv)}: exit status {code}: "
                           f"{err.decode(errors='replace')[-500:]}")
    return usage


def section() -> str:
    rows = ["| command | least CPU s | median CPU s | peak RSS MB |", "|---|---|---|---|"]
    version_s = float("nan")
    for label, argv in COMMANDS:
        least, median, peak = measure(argv)
        if label == "racecert --version":
            version_s = median
        rows.append(f"| `{label}` | {least:.2f} | {median:.2f} | {peak:.0f} |")
    least, median, peak = measure(["-m", "racecert", "analyze", TINY], COLD_RUNS, cold=True)
    rows.append(f"| `racecert analyze {TINY}`, first run after install (empty numba cache, "
                f"{COLD_RUNS} runs) | {least:.2f} | {median:.2f} | {peak:.0f} |")
    verdict = "met" if version_s <= TARGET_S else "**missed**"
    return "\n".join([
        "## Start-up (`bench_startup`)",
        "",
        f"CPU seconds (user + system) of one fresh process, {RUNS} runs each. Target "
        f"`racecert --version` <= {TARGET_S} s: {verdict} (median {version_s:.2f} s).",
        "",
        *rows,
    ]) + "\n"


if __name__ == "__main__":
    print(section())
