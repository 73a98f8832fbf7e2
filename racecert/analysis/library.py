"""The trajectory library for AI drivers (docs/report.md).

Per track: `trai` = blue (longest) among eligible optimal trajectories,
`troi` = green (shortest) among eligible ones, `tray` = yellow. Eligible =
race-rule continuable on circuits, any on stages. If no optimal arrival of a
circuit is continuable, trai/troi are taken among the arrivals of the BFS to
the first continuable depth m_cont (every arrival there is continuable).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from racecert.analysis.pipeline import Analysis
from racecert.analysis.representatives import RepresentativeDP, Representatives

LIBRARY_VERSION = 1


def eligible_representatives(a: Analysis) -> tuple[Representatives | None, int | None]:
    """(trai/troi source, their move count): eligible arrivals at m*, else at m_cont."""
    if not a.bfs.reachable or a.bfs.dag is None:
        return None, None
    c = a.continuity
    if not a.circuit:
        return a.representatives, a.bfs.m_star
    if c is not None and np.any(c.race):
        reps = RepresentativeDP(a.bfs.dag, a.track.car.position).select(c.race)
        return reps, a.bfs.m_star
    if c is not None and c.cont_bfs is not None and c.cont_bfs.dag is not None:
        reps = RepresentativeDP(c.cont_bfs.dag, a.track.car.position).select()
        return reps, c.cont_bfs.m_star
    return None, None


def library_entry(a: Analysis) -> dict[str, Any]:
    """One track's library record (docs/report.md, "Library")."""
    reps, moves = eligible_representatives(a)
    y = a.yellow_trajectory
    return {
        "track": a.track.name,
        "sha256": a.track.sha256,
        "path": a.track.path,
        "mode": a.mode,
        "kind": a.kind,
        "m_star": a.bfs.m_star,
        "m_cont": None if a.continuity is None else a.continuity.m_cont,
        "representatives_moves": moves,
        "trai": None if reps is None else {**reps.blue.trajectory.to_json(),
                                           "ties": str(reps.blue.ties)},
        "troi": None if reps is None else {**reps.green.trajectory.to_json(),
                                           "ties": str(reps.green.ties)},
        "tray": None if y is None else y.to_json(),
    }


def build_library(analyses: list[Analysis]) -> dict[str, Any]:
    """The library document: a version and one entry per analysed track."""
    return {"version": LIBRARY_VERSION, "tracks": [library_entry(a) for a in analyses]}
