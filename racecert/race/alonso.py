"""Alonso: follows the library's `trai` and re-plans by the oracle's BFS.

- **Follow.** Alonso keeps its plan while the plan's next move is valid and ends on
  a free cell (and the car is where the plan expects, on the plan's lap).
- **Adopt.** A plan is adopted only after the whole of it is validated from the car's
  state (`racecert.race.planning.validate_plan`): every move valid, the first one
  ending on a free cell, an arrival on the last move only, and on a circuit (when
  the plan was chosen for it) a final state from which another lap can be driven.
  On lap 1 the first candidate is `trai` (the library's longest eligible optimal
  trajectory, `racecert.analysis.library`): it is valid only from the configured
  car's grid position, at rest.
- **Re-plan.** Otherwise (another grid slot, a later lap, a blocked move), Alonso
  runs the layered BFS (`racecert.oracle.bfs.layered_bfs`) from its current state,
  with occupancy on the first move (`FirstMoveFilter`) and its turns left before
  the move limit as depth bound. On a circuit it requires continuity: among the
  optimal arrivals it keeps those from which a further lap can be driven (the
  shared continuation oracle); if none continues it takes the first depth that has
  one (as the library's m_cont); if no arrival at any depth continues (the track
  allows no further lap from here), it takes the optimal arrivals as they are.
  Among the eligible trajectories it takes the longest, exactly as `trai` is chosen
  (`RepresentativeDP`, blue), so from the configured position at rest a re-plan
  gives `trai` itself.
- **No plan.** When the BFS finds no arrival, Alonso waits (the car blocking its
  way may move); a search that found nothing is not repeated from the same state
  with the same blocked cells.

Alonso draws no random numbers.
"""

from __future__ import annotations

import numpy as np

from racecert.analysis.representatives import RepresentativeDP
from racecert.model.rules import CarState
from racecert.oracle.bfs import BfsResult, layered_bfs
from racecert.race.driver import CarView, Cell, Decision, Note
from racecert.race.planning import FirstMoveFilter, Plan, PlanFollower, validate_plan


class Alonso:
    """The Alonso driver (module docstring). One instance per car."""

    name = "alonso"

    def __init__(self) -> None:
        self._follower = PlanFollower()
        self._tried_trai = False
        self._trai_reason = ""  # why trai was not adopted
        self._hopeless: set[tuple[CarState, frozenset[Cell]]] = set()

    def __call__(self, view: CarView) -> Decision:
        followed, notes, why = self._follower.follow(view)
        if followed is not None:
            return followed
        if view.lap == 0 and not self._tried_trai:
            plan = self._trai_plan(view)
            if plan is not None:
                self._follower.adopt(plan, view.lap)
                self._follower.advance()
                return Decision(plan.accelerations[0], tuple(notes))
            why = self._trai_reason
        plan, states, detail = self._search(view)
        if plan is None:
            return Decision(None, tuple(notes), states, f"{why}; {detail}")
        notes.append(Note("replan", f"{why}: {detail}"))
        self._follower.adopt(plan, view.lap)
        self._follower.advance()
        return Decision(plan.accelerations[0], tuple(notes), states)

    def _trai_plan(self, view: CarView) -> Plan | None:
        """`trai` as a validated plan from the car's state, or None (reason kept)."""
        self._tried_trai = True
        ctx = view.context
        trai = ctx.trai
        if trai is None:
            self._trai_reason = "the library has no trai"
            return None
        s = view.state
        if (s.x, s.y) != trai.positions[0] or (s.vx, s.vy) != (0, 0):
            self._trai_reason = f"trai starts at {trai.positions[0]}, not at ({s.x}, {s.y})"
            return None
        plan, reason = validate_plan(ctx.track, s, trai.accelerations, view.occupied,
                                     ctx.oracle if ctx.circuit else None)
        if plan is None:
            self._trai_reason = f"trai is not valid from here: {reason}"
        return plan

    def _search(self, view: CarView) -> tuple[Plan | None, int, str]:
        """A BFS plan from the car's state: (plan or None, states explored, detail)."""
        ctx = view.context
        s = view.state
        blocked_ends = frozenset(o.end for o in view.options
                                 if o.valid and o.occupant is not None and o.end)
        if (s, blocked_ends) in self._hopeless:
            return None, 0, "no arrival reachable from here (searched before)"
        rules = FirstMoveFilter(ctx.rules, s, view.occupied)
        bfs = layered_bfs(ctx.track, "exact", rules=rules, initial=s, max_depth=view.turns_left)
        states = bfs.states_explored
        if not bfs.reachable:
            self._hopeless.add((s, blocked_ends))
            return None, states, f"no arrival reachable from here (BFS: {states} states)"
        eligible = None
        what = "optimal"
        if ctx.circuit:
            bfs, eligible, what, more = self._continuable(view, rules, bfs)
            states += more
        plan = self._longest(view, bfs, eligible, check_continuation=eligible is not None
                             or what == "first continuable depth")
        return plan, states, (f"BFS from ({s.x}, {s.y}) v = ({s.vx}, {s.vy}): {plan.moves} "
                              f"moves to the finish ({what}), {states} states")

    @staticmethod
    def _continuable(view: CarView, rules: FirstMoveFilter, bfs: BfsResult
                     ) -> tuple[BfsResult, np.ndarray | None, str, int]:
        """On a circuit: (BFS to plan on, eligible arrivals or None, what they are, states
        explored by a second search)."""
        ctx = view.context
        assert bfs.dag is not None
        ok = ctx.oracle.can_arrive(bfs.dag.arrive_state.take(slice(None)))
        if ok.any():
            return bfs, ok, "optimal, continuable", 0
        cont = layered_bfs(ctx.track, "exact", rules=rules, initial=view.state,
                           max_depth=view.turns_left, accept_arrival=ctx.oracle.can_arrive)
        if cont.reachable:
            return cont, None, "first continuable depth", cont.states_explored
        return bfs, None, "optimal; no arrival lets another lap be driven", cont.states_explored

    @staticmethod
    def _longest(view: CarView, bfs: BfsResult, eligible: np.ndarray | None,
                 check_continuation: bool) -> Plan:
        """The longest eligible trajectory of the BFS's DAG, validated as a plan."""
        ctx = view.context
        s = view.state
        assert bfs.dag is not None
        reps = RepresentativeDP(bfs.dag, (s.x, s.y), (s.vx, s.vy)).select(eligible)
        if reps is None:
            raise RuntimeError("Alonso: the BFS reported arrivals but no representative")
        accs = reps.blue.trajectory.accelerations
        plan, reason = validate_plan(ctx.track, s, accs, view.occupied,
                                     ctx.oracle if check_continuation else None)
        if plan is None:  # the BFS and the exact rules disagree: never expected
            raise RuntimeError(f"Alonso: the BFS plan fails its validation: {reason}")
        return plan
