"""The track fuzzer over 5,000 mutants (issue #21): every mutant of a bundled track must
give one clean line and exit 2, or a valid analysis, never a traceback or a hang.

`section()` runs `python -m tests.fuzz.run --count 5000 --seed 0` in a subprocess and
reports its summary; the suite runs a few hundred mutants of the same fuzzer
(`tests/fuzz/test_fuzz.py`). A finding is reported here as such, never hidden.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COUNT = 5000


def section() -> str:
    """Markdown: the fuzzer's summary over COUNT seeded mutants, its exit status, CPU time."""
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "tests.fuzz.run", "--count", str(COUNT),
                          "--seed", "0"], cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    summary = res.stdout.strip() or res.stderr.strip()[-2000:]
    verdict = "no finding" if res.returncode == 0 else f"**exit {res.returncode}: findings**"
    return "\n".join([
        "## Track fuzzer (`bench_fuzz`)",
        "",
        f"`python -m tests.fuzz.run --count {COUNT} --seed 0` (seeded mutants of "
        "tracks/*.toml and tracks/limits/*.toml through `validate` and `analyze` in "
        f"process): {verdict}, {wall:.0f} s wall.",
        "",
        "```text",
        summary,
        "```",
        "",
    ])
