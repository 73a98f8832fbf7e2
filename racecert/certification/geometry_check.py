"""Cross-check of the two move-validity implementations on every explored move.

From the initial state, every reachable state (the exact key: position,
velocity, layer, progress, opening phase) is visited breadth-first, and all 9
accelerations of each are judged twice: by the rules the BFS oracle uses
(`racecert.model.rules.VectorRaceRules.expand`, the vectorised code, and
`apply_move`, its scalar reference) and by `racecert.independent.geometry`. Valid
moves must agree on the successor state and on arrival; invalid moves must be
invalid in both. States reached by an arriving move are explored as well (the
next lap's moves are what continuity is decided on).

A move's outcome is, by the rules (docs/rules.md §2-§7), a function of the source's
cell, layer, progress and opening phase and of the new velocity alone (the old velocity
only picks which new velocities are candidates), so the independent geometry and
`apply_move` judge each distinct *move* (x, y, layer, progress, phase, new velocity)
once, for the first (state, acceleration) that makes it; the vectorised expansion is
compared with that judgement on every (state, acceleration). Many states share a
move (a cell's neighbouring velocities overlap in their nine new ones), so this costs
a fraction of one scalar judgement per state and acceleration, and checks the same.

This visits a superset of the states any layered BFS of the track visits (the
editor key's states are reachable exact states too). `max_states` caps the
work on big tracks; the result then says it is partial.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from racecert.independent.geometry import Geometry, Verdict, VState
from racecert.independent.race_rules import ACCELS
from racecert.model.rules import CarState, StateArrays, VectorRaceRules, apply_move
from racecert.model.track import Track

StateTuple = tuple[int, int, int, int, int, int, int]
ProgressFn = Callable[[int, int], None]  # (states checked, moves checked)


@dataclass(frozen=True)
class MoveDisagreement:
    """One move on which the implementations differ: state, acceleration, both verdicts."""

    state: StateTuple
    accel: tuple[int, int]
    model: str
    verify: str

    def __str__(self) -> str:
        return (f"state (x, y, vx, vy, layer, progress, phase) = {self.state}, "
                f"acceleration {self.accel}: model says {self.model}; verify says {self.verify}")


@dataclass(frozen=True)
class GeometryCheck:
    """Outcome of the cross-check. `complete` is False when `max_states` cut it short."""

    states: int
    moves: int  # (state, acceleration) pairs compared: 9 per state
    valid_moves: int
    arriving_moves: int
    complete: bool
    disagreements: tuple[MoveDisagreement, ...]
    seconds: float
    distinct_moves: int = 0  # moves judged by the independent geometry (and apply_move)

    @property
    def agree(self) -> bool:
        return not self.disagreements


def _describe(valid: bool, state: StateTuple | None, arrives: bool) -> str:
    if not valid:
        return "invalid"
    return f"valid -> {state}" + (" (arrives)" if arrives else "")


def _verify_desc(v: Verdict) -> str:
    if not v.valid:
        return f"invalid ({v.reason})"
    assert v.state is not None
    return _describe(True, v.state.as_tuple(), v.arrives)


def crosscheck_geometry(
    track: Track,
    *,
    max_states: int | None = None,
    scalar: bool = True,
    verify_geometry: Geometry | None = None,
    progress: ProgressFn | None = None,
    max_reported: int = 50,
) -> GeometryCheck:
    """Compare model and verify move validity on every move from every reachable state.

    `scalar` also compares `apply_move` (slower); `verify_geometry` lets a test
    inject a deliberately wrong implementation. At most `max_reported`
    disagreements are kept (the first ones found).

    >>> # crosscheck_geometry(load_track("tracks/tiny_straight.toml")).agree
    """
    t0 = time.perf_counter()
    rules = VectorRaceRules(track)
    geo = verify_geometry or Geometry(track)
    start = rules.initial_state()
    seen: set[StateTuple] = {
        (start.x, start.y, start.vx, start.vy, start.layer, start.progress, start.phase)}
    frontier: list[StateTuple] = list(seen)
    states = moves = valid_moves = arriving = 0
    found: list[MoveDisagreement] = []
    judgements: dict[tuple[int, ...], tuple[Verdict, StateTuple | None]] = {}
    complete = True
    while frontier:
        if max_states is not None and states + len(frontier) > max_states:
            frontier = frontier[: max(0, max_states - states)]
            complete = False
            if not frontier:
                break
        batch = StateArrays.of([CarState(*s) for s in frontier])
        exp = rules.expand(batch)
        model: dict[tuple[int, int, int], tuple[StateTuple, bool]] = {}
        for succ, srcs, arr in ((exp.succ, exp.src, False), (exp.arrive_state, exp.arrive_src,
                                                              True)):
            cols = np.stack(succ.fields(), axis=1).tolist() if len(succ) else []
            for i, row in zip(srcs.tolist(), cols, strict=True):
                model[(i, row[2], row[3])] = (tuple(row), arr)  # type: ignore[assignment]
        nxt: list[StateTuple] = []
        for i, s in enumerate(frontier):
            vs = VState(*s)
            for ax, ay in ACCELS:
                moves += 1
                vx, vy = s[2] + ax, s[3] + ay
                m = model.get((i, vx, vy))
                key = (s[0], s[1], s[4], s[5], s[6], vx, vy)
                judged = judgements.get(key)
                if judged is None:
                    judged = judgements[key] = _judge(track, geo, s, vs, (ax, ay), scalar,
                                                      found, max_reported)
                v, mine = judged
                if (m is None) != (not v.valid) or (m is not None and (m[0], m[1]) != (
                        mine, v.arrives)):
                    if len(found) < max_reported:
                        desc = "invalid" if m is None else _describe(True, m[0], m[1])
                        found.append(MoveDisagreement(s, (ax, ay), "(vectorised) " + desc,
                                                      _verify_desc(v)))
                if v.valid and mine is not None:
                    valid_moves += 1
                    arriving += v.arrives
                    if mine not in seen:
                        seen.add(mine)
                        nxt.append(mine)
                if m is not None and m[0] not in seen:  # explore what the model reaches, too
                    seen.add(m[0])
                    nxt.append(m[0])
        states += len(frontier)
        if progress is not None:
            progress(states, moves)
        frontier = nxt
    return GeometryCheck(states, moves, valid_moves, arriving, complete, tuple(found),
                         time.perf_counter() - t0, len(judgements))


def _judge(track: Track, geo: Geometry, s: StateTuple, vs: VState, accel: tuple[int, int],
           scalar: bool, found: list[MoveDisagreement], max_reported: int
           ) -> tuple[Verdict, StateTuple | None]:
    """The independent geometry's verdict on one move (and its successor as a tuple);
    with `scalar`, `apply_move` must give the same (a disagreement is appended)."""
    v = geo.move(vs, accel)
    mine = v.state.as_tuple() if v.state is not None else None
    if scalar:
        r = apply_move(track, CarState(*s), accel)
        rs = (r.state.x, r.state.y, r.state.vx, r.state.vy, r.state.layer,
              r.state.progress, r.state.phase) if r.state is not None else None
        if (r.valid != v.valid or (r.valid and (rs, r.arrives) != (mine, v.arrives))) \
                and len(found) < max_reported:
            desc = _describe(True, rs, r.arrives) if r.valid else f"invalid ({r.reason})"
            found.append(MoveDisagreement(s, accel, "(apply_move) " + desc, _verify_desc(v)))
    return v, mine
