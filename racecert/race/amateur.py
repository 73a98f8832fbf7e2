"""Amateur: a capped local search, sometimes a move slower than it could be.

- **Search.** From its current state the Amateur runs the local search of
  `racecert.race.local_search` (occupancy on the first move, the race's turns left
  as depth bound) with at most `cap` states expanded (default 60,000); when that
  finds no arrival and was cut by the cap, it retries once with `retry_cap`
  (default 220,000).
- **Choose.** It draws u from the race's generator; if u < `p_longer` (default 0.42)
  and the search found routes one move longer than optimal, it takes one of those,
  otherwise one of the optimal ones; in both cases it draws uniformly among the
  (up to) `choices` routes of least exact Euclidean length (default 3). Two draws
  per plan, always in this order. No continuity is required: on a circuit it may
  arrive where no further lap can be driven.
- **Keep.** It keeps its plan until the plan is exhausted (the lap is over) or its
  next move is blocked, then searches again.
- **No route.** If the search proves no arrival reachable (nothing new to expand),
  the Amateur waits (the car in its way may move), and does not repeat that search
  from the same state with the same blocked cells. If the caps cut the search
  before any arrival, it takes a random usable move.
"""

from __future__ import annotations

from racecert.model.rules import CarState
from racecert.race.driver import CarView, Cell, Decision, Note
from racecert.race.local_search import LocalSearchResult, local_search
from racecert.race.planning import FirstMoveFilter, PlanFollower, validate_plan

CAP = 60_000
RETRY_CAP = 220_000
P_LONGER = 0.42
CHOICES = 3


class Amateur:
    """The Amateur driver (module docstring). One instance per car.

    `plans`, `longer_taken` count its plans and those one move longer than optimal.
    """

    name = "amateur"

    def __init__(self, cap: int = CAP, retry_cap: int = RETRY_CAP, p_longer: float = P_LONGER,
                 choices: int = CHOICES) -> None:
        if cap < 1 or retry_cap < cap:
            raise ValueError(f"Amateur caps must satisfy 1 <= cap <= retry_cap, got {cap}, "
                             f"{retry_cap}")
        if not 0.0 <= p_longer <= 1.0:
            raise ValueError(f"p_longer must be a probability, got {p_longer}")
        if choices < 1:
            raise ValueError(f"choices must be at least 1, got {choices}")
        self.cap, self.retry_cap = cap, retry_cap
        self.p_longer, self.choices = p_longer, choices
        self.plans = 0
        self.longer_taken = 0
        self._follower = PlanFollower()
        self._hopeless: set[tuple[CarState, frozenset[Cell]]] = set()

    def __call__(self, view: CarView) -> Decision:
        followed, notes, why = self._follower.follow(view)
        if followed is not None:
            return followed
        s = view.state
        blocked_ends = frozenset(o.end for o in view.options
                                 if o.valid and o.occupant is not None and o.end)
        if (s, blocked_ends) in self._hopeless:
            return Decision(None, tuple(notes), 0,
                            f"{why}; no arrival reachable from here (searched before)")
        result, states = self._search(view)
        if not result.optimal:
            return self._no_route(view, why, result, states, notes, (s, blocked_ends))
        u = view.rng.random()
        longer = u < self.p_longer and bool(result.longer)
        pool = result.longer if longer else result.optimal
        i = view.rng.below(len(pool))
        plan, reason = validate_plan(view.track, s, pool[i].accelerations, view.occupied)
        if plan is None:  # the search and the exact rules disagree: never expected
            raise RuntimeError(f"Amateur: the searched route fails its validation: {reason}")
        self.plans += 1
        self.longer_taken += longer
        kind = "one move longer than optimal" if longer else "optimal"
        notes.append(Note("replan", (
            f"{why}: local search from ({s.x}, {s.y}) v = ({s.vx}, {s.vy}), {states} states "
            f"(cap {result.cap}); optimal {result.optimal_moves} moves; took route {i + 1} "
            f"of {len(pool)} {kind}: {plan.moves} moves")))
        self._follower.adopt(plan, view.lap)
        self._follower.advance()
        return Decision(plan.accelerations[0], tuple(notes), states)

    def _search(self, view: CarView) -> tuple[LocalSearchResult, int]:
        """The local search, retried once with the larger cap when the first was cut."""
        rules = FirstMoveFilter(view.context.rules, view.state, view.occupied)
        result = local_search(rules, view.state, self.cap, view.turns_left, self.choices)
        states = result.states_expanded
        if not result.optimal and result.capped and self.retry_cap > self.cap:
            result = local_search(rules, view.state, self.retry_cap, view.turns_left,
                                  self.choices)
            states += result.states_expanded
        return result, states

    def _no_route(self, view: CarView, why: str, result: LocalSearchResult, states: int,
                  notes: list[Note], key: tuple[CarState, frozenset[Cell]]) -> Decision:
        """No arrival found: wait when none is reachable, else a random usable move."""
        if not result.capped:
            self._hopeless.add(key)
            where = ("reachable from here" if result.exhausted
                     else f"within the {view.turns_left} turns left")
            return Decision(None, tuple(notes), states,
                            f"{why}; no arrival {where} (local search: {states} states)")
        usable = view.usable
        pick = usable[view.rng.below(len(usable))]
        self._follower.drop()
        notes.append(Note("replan", f"{why}: no arrival within {result.cap} states "
                                    f"({states} expanded): a random usable move"))
        return Decision(pick.acceleration, tuple(notes), states)
