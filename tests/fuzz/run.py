"""The fuzzer's entry point: `python -m tests.fuzz.run --count 5000 [--seed N]`.

Mutates the bundled tracks (seeded: the same seed gives the same mutants),
runs `racecert validate` and `racecert analyze` in-process on each, prints a
summary and every finding, saves the findings' inputs with `--save DIR`, and
exits 1 if anything broke the contract. Each command has a wall-time budget
(`--budget`, 120 s) past which it counts as a hang; analyze runs on valid
mutants of at most `--analyze-cells` cells (0: every mutant).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from .harness import Summary, fuzz


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__)
    p.add_argument("--count", type=int, default=5000, help="mutants to run (default 5000)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed (default 0)")
    p.add_argument("--tracks", type=Path, default=Path("tracks"), help="the bundled tracks")
    p.add_argument("--analyze-cells", type=int, default=20000,
                   help="analyze valid mutants of at most this many cells (0: all)")
    p.add_argument("--budget", type=float, default=120.0,
                   help="seconds a command may run before it counts as a hang")
    p.add_argument("--save", type=Path, help="write each finding's mutant into this folder")
    args = p.parse_args(argv)

    def progress(i: int, s: Summary) -> None:
        if (i + 1) % 100 == 0:
            print(f"{i + 1} mutants, {s.accepted} valid, {s.rejected} rejected, "
                  f"{s.analysed} analysed, {len(s.findings)} finding(s)", file=sys.stderr,
                  flush=True)

    with tempfile.TemporaryDirectory() as work:
        summary = fuzz(args.count, args.seed, args.tracks, Path(work),
                       analyze_cells=args.analyze_cells or None, budget=args.budget,
                       progress=progress)
    print(summary.report())
    if args.save and summary.findings:
        args.save.mkdir(parents=True, exist_ok=True)
        for f in summary.findings:
            name = f"{f.problem.replace(' ', '-')}-{args.seed}-{f.mutant.index}.toml"
            (args.save / name).write_bytes(f.mutant.data)
    return 1 if summary.findings else 0


if __name__ == "__main__":
    sys.exit(main())
