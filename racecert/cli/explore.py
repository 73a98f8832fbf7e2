"""`racecert explore opening`: search small tracks where the editor key disagrees with exact.

Writes each minimal counterexample as a track file under -o/--out and prints
what was searched (valid tracks checked per source and opening family). The
search is for small rooms: sizes, counts and the exhaustive bound are capped
(MAX_ROOM, MAX_RANDOM, MAX_EXHAUSTIVE) so that a typo cannot start a search
that never ends.
"""

from __future__ import annotations

import argparse

from racecert.analysis.explore import (
    exhaustive_rooms,
    explore,
    opening_families,
    random_rooms,
)
from racecert.cli.arguments import integer, room_size
from racecert.cli.output import check_output_folder, ensure_folder, write_text_atomic
from racecert.cli.progress import progress

MAX_ROOM = 40
"""Largest room side of the random search (a room is a small track: W x H cells)."""
MAX_RANDOM = 1_000_000
"""Most random rooms."""
MAX_EXHAUSTIVE = 8
"""Largest exhaustive bound: the rooms enumerated grow as 2^CELLS."""


def register(e: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    e.add_argument("topic", choices=("opening",),
                   help="opening: editor vs exact key under opening rules (docs/opening-limits.md)")
    e.add_argument("--sizes", metavar="WxH", nargs="+", default=[(6, 4), (7, 5), (8, 5), (9, 6)],
                   type=room_size(5, 3, MAX_ROOM, MAX_ROOM),
                   help=f"room sizes of the random search, W and H at most {MAX_ROOM} "
                        "(default 6x4 7x5 8x5 9x6)")
    e.add_argument("--random", metavar="N", default=1000,
                   type=integer(0, MAX_RANDOM, "a number of rooms"),
                   help=f"number of random rooms, 0 to {MAX_RANDOM:,} (default 1000)")
    e.add_argument("--exhaustive", metavar="CELLS", default=4,
                   type=integer(0, MAX_EXHAUSTIVE, "a number of cells"),
                   help="exhaustive rooms with at most CELLS cells beyond the start column, "
                        f"0 to {MAX_EXHAUSTIVE} (default 4; 0 to skip)")
    e.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    e.add_argument("-o", "--out", metavar="DIR",
                   help="write the minimal tracks to DIR (created if only it is missing)")
    e.set_defaults(func=cmd_explore)


def cmd_explore(args: argparse.Namespace) -> int:
    out = check_output_folder(args.out) if args.out else None
    fams = opening_families()
    sources = []
    if args.exhaustive > 0:
        sources.append(("exhaustive", exhaustive_rooms(args.exhaustive, fams)))
    if args.random > 0:
        sources.append(("random", random_rooms(args.random, args.seed, tuple(args.sizes),
                                               fams)))
    bar = progress("explore", " tracks")
    try:
        report = explore(sources, progress=lambda n: bar.update(1))
    finally:
        bar.close()
    print("searched (valid tracks per source / opening family):")
    for key in sorted(report.searched):
        print(f"  {key:32s} {report.searched[key]}")
    print(f"disagreements found: {len(report.found)}; minimal tracks: {len(report.minimal)}")
    if out is not None and report.minimal:
        ensure_folder(out)
    for i, d in enumerate(report.minimal, 1):
        c = d.candidate
        print(f"\n#{i} {d.kind} disagreement, {c.family.label}: editor m*={d.editor.m_star} "
              f"count={d.editor.count}; exact m*={d.exact.m_star} count={d.exact.count}")
        print("\n".join("  " + row for row in c.ground))
        if out is not None:
            path = out / f"opening_{i:02d}.toml"
            write_text_atomic(path, c.toml())
            print(f"  written to {path}")
    return 0
