"""Helpers shared by the subcommands: progress display and tables."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(desc: str) -> tuple[tqdm, object]:
    """A progress display that appears only for runs longer than ~2 s."""
    bar = tqdm(desc=desc, unit=" layer", delay=2.0, file=sys.stderr, leave=False)

    def update(depth: int, frontier: int, total: int) -> None:
        bar.update(1)
        bar.set_postfix(depth=depth, frontier=frontier, states=total, refresh=False)

    return bar, update


def format_table(rows: list[tuple[str, str]]) -> str:
    """Two aligned columns."""
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)
