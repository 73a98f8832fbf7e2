"""Helpers shared by the subcommands: progress display and tables."""

from __future__ import annotations

from collections.abc import Callable

from racecert.cli.progress import Progress, progress


def progress_bar(desc: str) -> tuple[Progress, Callable[[int, int, int], None]]:
    """A BFS progress display (per layer) that appears only for runs longer than ~2 s."""
    bar = progress(desc, " layer")

    def update(depth: int, frontier: int, total: int) -> None:
        bar.set_postfix(depth=depth, frontier=frontier, states=total, refresh=False)
        bar.update(1)

    return bar, update


def yellow_progress_bar() -> tuple[Progress, Callable[[int, int], None]]:
    """Yellow's progress display (per round: about one per unit of length settled) that
    appears only for runs longer than ~2 s."""
    bar = progress("yellow", " round")

    def update(rounds: int, settled: int) -> None:
        bar.set_postfix(settled=settled, refresh=False)
        bar.update(rounds - bar.n)  # reported between slices of the compiled search

    return bar, update


def format_table(rows: list[tuple[str, str]]) -> str:
    """Two aligned columns."""
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in rows)
