"""`racecert generate --count N --size WxH --seed S -o DIR`: random valid tracks.

Writes `gen-S-0000.toml` ... into DIR (created if missing, its parent must exist),
each file atomically and each validated by the parser first
(`racecert.batch.generate`). The same seed and size give byte-identical files.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from racecert.batch.generate import MAX_SIDE, MIN_SIDE, generate_track
from racecert.cli.arguments import integer, room_size
from racecert.cli.output import check_output_folder, ensure_folder, write_text_atomic
from racecert.cli.progress import progress

MAX_COUNT = 1_000_000
MAX_SEED = 2**63 - 1


def register(g: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    g.add_argument("--count", metavar="N", required=True,
                   type=integer(1, MAX_COUNT, "a number of tracks"),
                   help=f"how many tracks, 1 to {MAX_COUNT:,}")
    g.add_argument("--size", metavar="WxH", required=True,
                   type=room_size(MIN_SIDE, MIN_SIDE, MAX_SIDE, MAX_SIDE, note=""),
                   help=f"grid width x height, each {MIN_SIDE} to {MAX_SIDE} (e.g. 40x40)")
    g.add_argument("--seed", metavar="S", default=0, type=integer(0, MAX_SEED, "a seed"),
                   help="random seed, 0 to 2^63-1 (default 0): the same seed, the same files")
    g.add_argument("-o", "--out", metavar="DIR", required=True,
                   help="folder to write into (created if missing; files of the same name "
                        "are replaced)")
    g.set_defaults(func=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    folder = check_output_folder(args.out)
    ensure_folder(folder)
    width, height = args.size
    kinds: Counter[str] = Counter()
    redrawn = 0
    bar = progress("generate", " track", total=args.count)
    try:
        for index in range(args.count):
            g = generate_track(args.seed, index, width, height)
            write_text_atomic(folder / g.filename, g.text)
            kinds[g.kind] += 1
            redrawn += g.attempts - 1
            bar.update(1)
    finally:
        bar.close()
    print(f"{args.count} track(s) {width}x{height} written to {args.out} (seed {args.seed}): "
          f"{kinds['stage']} stage(s), {kinds['circuit']} circuit(s); each validated"
          + (f"; {redrawn} draft(s) the validator rejected were redrawn" if redrawn else ""),
          file=sys.stderr)
    return 0
