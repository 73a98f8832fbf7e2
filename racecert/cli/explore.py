"""`racecert explore opening`: search small tracks where the editor key disagrees with exact.

Writes each minimal counterexample as a track file under --out and prints
what was searched (valid tracks checked per source and opening family).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from racecert.analysis.explore import (
    exhaustive_rooms,
    explore,
    opening_families,
    random_rooms,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the subcommand to the parser."""
    e = sub.add_parser("explore", help="search the formal limits of the method")
    e.add_argument("topic", choices=("opening",),
                   help="opening: editor vs exact key under opening rules (docs/rules.md)")
    e.add_argument("--sizes", metavar="WxH", nargs="+", default=["6x4", "7x5", "8x5", "9x6"],
                   help="room sizes of the random search (default 6x4 7x5 8x5 9x6)")
    e.add_argument("--random", metavar="N", type=int, default=1000,
                   help="number of random rooms (default 1000)")
    e.add_argument("--exhaustive", metavar="CELLS", type=int, default=4,
                   help="exhaustive rooms with at most CELLS cells beyond the start column "
                        "(default 4; 0 to skip)")
    e.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    e.add_argument("--out", metavar="DIR", help="write the minimal tracks to DIR")
    e.set_defaults(func=cmd_explore)


def _sizes(values: list[str]) -> tuple[tuple[int, int], ...]:
    out = []
    for v in values:
        try:
            w, h = (int(p) for p in v.lower().split("x"))
        except ValueError:
            raise SystemExit(f"error: --sizes: {v!r} is not WxH (e.g. 7x5)") from None
        if w < 5 or h < 3:
            raise SystemExit(f"error: --sizes: {v} is too small (need W >= 5, H >= 3)")
        out.append((w, h))
    return tuple(out)


def cmd_explore(args: argparse.Namespace) -> int:
    fams = opening_families()
    sources = []
    if args.exhaustive > 0:
        sources.append(("exhaustive", exhaustive_rooms(args.exhaustive, fams)))
    if args.random > 0:
        sources.append(("random", random_rooms(args.random, args.seed, _sizes(args.sizes),
                                               fams)))
    bar = tqdm(desc="explore", unit=" tracks", delay=2.0, file=sys.stderr, leave=False)
    try:
        report = explore(sources, progress=lambda n: bar.update(1))
    finally:
        bar.close()
    print("searched (valid tracks per source / opening family):")
    for key in sorted(report.searched):
        print(f"  {key:32s} {report.searched[key]}")
    print(f"disagreements found: {len(report.found)}; minimal tracks: {len(report.minimal)}")
    out = Path(args.out) if args.out else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    for i, d in enumerate(report.minimal, 1):
        c = d.candidate
        print(f"\n#{i} {d.kind} disagreement, {c.family.label}: editor m*={d.editor.m_star} "
              f"count={d.editor.count}; exact m*={d.exact.m_star} count={d.exact.count}")
        print("\n".join("  " + row for row in c.ground))
        if out is not None:
            path = out / f"opening_{i:02d}.toml"
            path.write_text(c.toml())
            print(f"  written to {path}")
    return 0
