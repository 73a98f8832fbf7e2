"""A deterministic limit on the states one search may store, shared by the oracle's searches.

`--max-states N` (`racecert analyze`, `certify`, `batch`) becomes one `StateBudget`, which
the pipeline passes down to every search of the oracle: the layered BFS (bounded or not),
yellow's Dijkstra and its bounding search, the lap search and the continuity explorations.
Each search compares the states it holds with the budget after each layer or round and
raises `StateLimitReached` past it. The count is of states, never of seconds or bytes, so
the same track stops at the same place on any machine; and a check only reads counts, so
a run that stays within the limit computes exactly what it computes without one.

>>> budget = StateBudget(1000)
>>> budget.check(1000, "BFS", "at depth 7")  # at the limit: fine
>>> budget.check(1001, "BFS", "at depth 8")
Traceback (most recent call last):
...
racecert.model.budget.StateLimitReached: state limit reached: the BFS stored 1,001 states at \
depth 8 (max_states 1000)
"""

from __future__ import annotations

from dataclasses import dataclass


class LimitReached(Exception):
    """A resource limit stopped the run. It never changes a figure: the run ends, with one
    line saying which limit and what was reached (the command line's exit status 4)."""


class StateLimitReached(LimitReached):
    """A search stored more states than its `StateBudget` allows."""

    def __init__(self, budget: StateBudget, stored: int, search: str, where: str) -> None:
        self.budget, self.stored, self.search, self.where = budget, stored, search, where
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" {self.where}" if self.where else ""
        return (f"state limit reached: the {self.search} stored {self.stored:,} states{where} "
                f"({self.budget.label} {self.budget.limit})")


@dataclass(frozen=True)
class StateBudget:
    """At most `limit` states stored by any one search; `label` names the limit in the
    message (the command line passes its option, e.g. ``--max-states``)."""

    limit: int
    label: str = "max_states"

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError(f"a state budget must allow at least 1 state, not {self.limit}")

    def check(self, stored: int, search: str, where: str = "") -> None:
        """Raise `StateLimitReached` if `stored` exceeds the limit (`search` and `where`,
        e.g. "BFS" and "at depth 41", say which search and where it was)."""
        if stored > self.limit:
            raise StateLimitReached(self, stored, search, where)


def check(budget: StateBudget | None, stored: int, search: str, where: str = "") -> None:
    """`budget.check(...)`, or nothing when there is no budget."""
    if budget is not None:
        budget.check(stored, search, where)
