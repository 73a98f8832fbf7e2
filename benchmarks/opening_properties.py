"""The three behaviours of an opening rule that outlasts the first lap (issue #14).

Each is a predicate on a track, used to shrink the issue's tracks
(`benchmarks/shrink.py`) and to check the committed ones (`tests/analysis/
test_opening_laps.py`):

- ``editor-finds-none``: a circuit on which the editor key's m_cont search finds no
  continuable arrival (the exact key does);
- ``no-optimal-continuation``: a circuit with m* < K on which no optimal arrival
  continues, though some would if the opening rule ended at the arrival;
- ``stage-by-opening``: a stage with m* < K that is a circuit without its opening rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from racecert.model.rules import StateArrays
from racecert.model.track import Track
from racecert.oracle.bfs import layered_bfs
from racecert.oracle.continuity import ContinuationOracle, continuity
from racecert.oracle.laps import lap_aptitude


def opening_outlasts_arrival(t: Track, m_star: int | None) -> bool:
    """The opening rule is still active after m* moves (m* < K)."""
    return t.opening is not None and m_star is not None and m_star < t.opening.moves


def editor_finds_none(t: Track) -> bool:
    """The editor key's m_cont search comes back empty on a circuit."""
    bfs = layered_bfs(t, "editor")
    if not bfs.reachable:
        return False
    return continuity(t, bfs).m_cont_null_reason == "editor-key-finds-none"


def free_continuation(t: Track, arrived: StateArrays) -> np.ndarray:
    """Per arrived state: would it continue if the opening rule ended at the arrival?"""
    k = t.opening.moves if t.opening is not None else 0
    free = StateArrays(*arrived.fields()[:6], np.full(len(arrived), k, dtype=np.int32))
    return ContinuationOracle(t).can_arrive(free)


def no_optimal_continuation(t: Track) -> bool:
    """Circuit, m* < K, no optimal arrival continues, some would with the rule ended."""
    bfs = layered_bfs(t, "exact")
    if not opening_outlasts_arrival(t, bfs.m_star) or bfs.dag is None:
        return False
    c = continuity(t, bfs)
    return c.applicable and not any(c.race) and bool(free_continuation(
        t, bfs.dag.arrive_state).any())


def stage_by_opening(t: Track) -> bool:
    """A stage with m* < K that is a circuit once the opening rule is dropped."""
    if not opening_outlasts_arrival(t, layered_bfs(t, "exact").m_star):
        return False
    return (lap_aptitude(t).kind == "stage"
            and lap_aptitude(replace(t, opening=None)).kind == "circuit")


PROPERTIES: dict[str, Callable[[Track], bool]] = {
    "editor-finds-none": editor_finds_none,
    "no-optimal-continuation": no_optimal_continuation,
    "stage-by-opening": stage_by_opening,
}
