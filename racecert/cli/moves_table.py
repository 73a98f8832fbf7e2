"""The moves of an analysis's trajectories as CSV or JSON Lines (`analyze -o F.csv|F.jsonl`).

One row per move, for notebooks and other tools: ``trajectory`` (yellow, green or blue:
docs/report.md), ``index`` (the move, from 1), ``x, y`` (the position the move reaches,
P_index), ``vx, vy`` (its velocity v' = P_index - P_(index-1)) and ``ax, ay`` (its
acceleration). The start P0 of a trajectory is the first row's x - vx, y - vy. A
trajectory the analysis has not got (an unreachable finish; yellow on a lattice track)
has no rows. Both texts are deterministic; the caller writes them atomically.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from racecert.analysis.trajectory import Trajectory

COLUMNS = ("trajectory", "index", "x", "y", "vx", "vy", "ax", "ay")


def named_trajectories(result: Any) -> list[tuple[str, Trajectory]]:
    """(name, trajectory) of yellow, green and blue, those the analysis `result` has, in
    that order (its profile's `AnalysisProfile.trajectories`)."""
    from racecert.analysis.profiles import analysis_profile

    return analysis_profile(result.track).trajectories(result)


def move_rows(named: Iterable[tuple[str, Trajectory]]) -> Iterator[dict[str, Any]]:
    """The rows (dicts keyed by `COLUMNS`) of each trajectory's moves."""
    for name, t in named:
        for i, ((vx, vy), (ax, ay)) in enumerate(zip(t.velocities, t.accelerations,
                                                     strict=True), start=1):
            x, y = t.positions[i]
            yield dict(zip(COLUMNS, (name, i, x, y, vx, vy, ax, ay), strict=True))


def to_csv(named: Iterable[tuple[str, Trajectory]]) -> str:
    """The rows as CSV with a header line (LF line ends)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(move_rows(named))
    return buf.getvalue()


def to_jsonl(named: Iterable[tuple[str, Trajectory]]) -> str:
    """The rows as JSON Lines: one JSON object a line."""
    return "".join(json.dumps(r) + "\n" for r in move_rows(named))


def moves_text(named: Iterable[tuple[str, Trajectory]], suffix: str) -> str:
    """The moves table of the `named` trajectories for a .csv or .jsonl path."""
    return to_csv(named) if suffix == ".csv" else to_jsonl(named)
