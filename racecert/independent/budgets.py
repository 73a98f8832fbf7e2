"""Size budgets: a model, table or formula judged too large before a method runs on it.

A *size* budget is decided up front from a measured size (states of a closure, rows of a
table, variables of a CNF), the same on any machine; past it the method is not run and the
certificate says `skipped`, naming the budget and the measured size. A *work* budget
(CP-SAT deterministic time, SAT conflicts, stored search states) is spent while a method
runs; running out of it is a `timeout`. Every size-budget exception of the independent side
derives from `SizeBudgetExceeded`, so a check tells the two apart by type, not by text.
"""

from __future__ import annotations

DEFAULT_CPSAT_BUDGET = 60.0
"""CP-SAT deterministic time per solve unless a caller says otherwise: a work budget, the
one default of every CP-SAT model of this side and of `racecert certify --cpsat-budget`
(`racecert.certification.context` takes it from here)."""


class SizeBudgetExceeded(Exception):
    """`what` measured `measured` (`unit`), over its size budget of `budget`.

    `measured` may be a lower bound (a closure stops growing once it passes its budget):
    `at_least` says so, and the message reads "at least".
    """

    def __init__(self, what: str, measured: int, budget: int, unit: str, *,
                 at_least: bool = False, note: str = "") -> None:
        self.what, self.measured, self.budget, self.unit = what, measured, budget, unit
        self.at_least = at_least
        size = f"{'at least ' if at_least else ''}{measured:,} {unit}"
        super().__init__(f"{what} holds {size}, over its size budget of {budget:,} {unit}"
                         + (f" ({note})" if note else ""))
