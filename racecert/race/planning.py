"""What both built-in drivers share: plans, their validation, and occupancy in a search.

A `Plan` is a sequence of accelerations from a known state to the next arrival
(the end of the current lap), with the state after each move. `validate_plan`
replays a candidate with the exact rules (`apply_move`): every move valid, the
first one ending on a free cell, an arrival on the last move and on no earlier
one, and (when asked) a final state from which a further lap can be driven.

`FirstMoveFilter` lets a search see occupancy: it is the track's rule profile
except that moves *from the car's current state* may not end on a cell another car
occupies. Only the first move is filtered: where the other cars will be later is
not known when the plan is made (a plan meeting a car later is re-planned then).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from racecert.model.rules import (
    CarState,
    Expansion,
    RuleProfile,
    StateArrays,
    apply_move,
)
from racecert.model.track import Track
from racecert.oracle.continuity import ContinuationOracle
from racecert.race.driver import Acceleration, CarView, Cell, Decision, Note


@dataclass(frozen=True)
class Plan:
    """Accelerations from `origin` to an arrival; `states[i]` is the state after move i."""

    origin: CarState
    accelerations: tuple[Acceleration, ...]
    states: tuple[CarState, ...]

    @property
    def moves(self) -> int:
        return len(self.accelerations)

    def expected(self, step: int) -> CarState:
        """The state the car is in before move `step` (0-based) when following the plan."""
        return self.origin if step == 0 else self.states[step - 1]


def validate_plan(track: Track, origin: CarState, accelerations: Iterable[Acceleration],
                  occupied: Iterable[Cell] = (), oracle: ContinuationOracle | None = None
                  ) -> tuple[Plan | None, str]:
    """(the plan, "") when the accelerations make a valid plan from `origin`, else
    (None, why not). See the module docstring for what is checked; with `oracle`,
    the arrived state must also be able to arrive again (a further lap)."""
    accs = tuple(accelerations)
    if not accs:
        return None, "the plan is empty"
    blocked = set(occupied)
    state = origin
    states = []
    for i, a in enumerate(accs):
        r = apply_move(track, state, a)
        if not r.valid or r.state is None:
            return None, f"move {i + 1} is invalid ({r.reason})"
        if i == 0 and (r.state.x, r.state.y) in blocked:
            return None, f"move 1 ends on ({r.state.x}, {r.state.y}), which is occupied"
        if r.arrives != (i == len(accs) - 1):
            return None, (f"it arrives early, on move {i + 1}" if r.arrives
                          else "its last move does not arrive")
        state = r.state
        states.append(state)
    if oracle is not None and not bool(oracle.can_arrive(StateArrays.of([state]))[0]):
        return None, "no further lap can be driven from its final state"
    return Plan(origin, accs, tuple(states)), ""


class FirstMoveFilter:
    """`rules` with the moves from `origin` that end on a `blocked` cell removed.

    A `RuleProfile`, so the oracle's searches accept it; its initial state is `origin`.
    """

    def __init__(self, rules: RuleProfile, origin: CarState, blocked: Iterable[Cell]) -> None:
        self.rules = rules
        self.track = rules.track
        self.phase_limit = rules.phase_limit
        self.accelerations = rules.accelerations
        self.origin = origin
        self._blocked = np.zeros((self.track.height, self.track.width), dtype=bool)
        for x, y in blocked:
            if 0 <= x < self.track.width and 0 <= y < self.track.height:
                self._blocked[y, x] = True
        self._any = bool(self._blocked.any())
        self._key = np.array([origin.x, origin.y, origin.vx, origin.vy, origin.layer,
                              origin.progress, origin.phase], dtype=np.int64)

    def initial_state(self) -> CarState:
        return self.origin

    def expand(self, batch: StateArrays) -> Expansion:
        exp = self.rules.expand(batch)
        if not self._any or len(batch) == 0:
            return exp
        at_origin = np.all(np.stack(batch.fields(), axis=1) == self._key, axis=1)
        if not at_origin.any():
            return exp
        keep = ~(at_origin[exp.src] & self._blocked[exp.succ.y, exp.succ.x])
        keep_arr = ~(at_origin[exp.arrive_src]
                     & self._blocked[exp.arrive_state.y, exp.arrive_state.x])
        return Expansion(exp.src[keep], exp.succ.take(keep), exp.arrive_src[keep_arr],
                         exp.arrive_state.take(keep_arr))


class PlanFollower:
    """The part of a driver that holds a plan and says whether its next move can be played.

    `next_move(view)` returns the plan's next acceleration when the car is where the
    plan expects, on the plan's lap, and that move is usable now; otherwise it says
    why not (and whether the reason is a blocked cell).
    """

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.lap = -1
        self.step = 0

    def adopt(self, plan: Plan, lap: int) -> None:
        self.plan, self.lap, self.step = plan, lap, 0

    def drop(self) -> None:
        """Forget the plan (the car is leaving it); `next_move` then says "no plan"."""
        self.plan = None

    def next_move(self, view: CarView) -> tuple[Acceleration | None, str, Cell | None]:
        """(acceleration, "", None) to follow the plan, else (None, why not, blocked cell)."""
        p = self.plan
        if self.lap != view.lap or (p is not None and self.step >= p.moves):
            return None, f"lap {view.lap + 1} starts", None
        if p is None:
            return None, "no plan", None
        if view.state != p.expected(self.step):
            return None, "the car is not where its plan expects", None
        a = p.accelerations[self.step]
        option = view.option(a)
        if not option.valid:  # cannot happen for a validated plan from this state
            return None, f"its next move is invalid ({option.result.reason})", None
        if option.occupant is not None:
            return None, f"its plan's next move ends on {option.end}, occupied by car " \
                         f"{option.occupant}", option.end
        return a, "", None

    def advance(self) -> None:
        self.step += 1

    def follow(self, view: CarView) -> tuple[Decision | None, list[Note], str]:
        """The plan's next move as a `Decision` (the step taken), or (None, notes, why):
        why the plan cannot go on, with a "blocked" note when a car stands in its way."""
        a, why, cell = self.next_move(view)
        if a is not None:
            self.advance()
            return Decision(a), [], ""
        if cell is None:
            return None, [], why
        return None, [Note("blocked", why, cell)], "its plan was blocked"
