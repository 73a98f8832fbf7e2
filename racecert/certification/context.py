"""What a certify check receives and returns: the context and one check's result.

Kept apart from `certificate.py` so that the check modules and the certificate
that lists them import this module, never each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from racecert.independent.budgets import DEFAULT_CPSAT_BUDGET  # its one home (--cpsat-budget)
from racecert.model.profiles import AnyTrack

if TYPE_CHECKING:  # annotations only (the batch client imports this module, not numba)
    from racecert.analysis.base import BaseAnalysis
    from racecert.oracle.bfs import BfsResult

Value = int | str | None
StepFn = Callable[[str], None]
WorkFn = Callable[[str, int, "int | None"], None]
"""`work(what, done, total)`: a check reports what it is doing (naming its budget where it
has one), `done` units of work and, when the amount is known in advance, the `total`
(from which the CLI estimates the time left). Called by the check, shown by the CLI."""


class Verdict(StrEnum):
    """What one check says about one figure (the JSON writes the value).

    `TIMEOUT` and `SKIPPED` are both "not confirmed", for different reasons: a timed-out
    check ran and used up a *work* budget (CP-SAT deterministic time, SAT conflicts, search
    states) without an answer; a skipped check was not run (or its evidence not checked)
    because a *size* budget decided up front that the model, table, enumeration or proof
    is too large (its reason names the budget and the measured size). Neither, nor
    `NOT_APPLICABLE`, ever counts as agreement.
    """

    AGREE = "agree"
    DISAGREE = "disagree"
    NOT_APPLICABLE = "not-applicable"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"


CheckVerdict = Verdict
"""The former name of `Verdict` (a StrEnum: each member equals its JSON string)."""


class MethodKind(StrEnum):
    """The kind of independent method behind a check, so a certificate can say how much a
    figure's confirmation rests on (docs/certificate.md, "confirmed_by").

    - `SECOND_IMPLEMENTATION`: separately written code (racecert.independent: its own
      geometry, search, counts, DP) computed the same figure;
    - `CHECKED_PROOF`: a SAT model of the question whose UNSAT answers come with a DRUP
      proof checked by racecert's own checker (and whose SAT answers are replayed);
    - `SOLVER_MODEL`: a CP-SAT model, or a SAT model without a proof (its witnesses are
      replayed, its infeasibility or optimality is the solver's word);
    - `ENUMERATION`: every solution enumerated one by one (CP-SAT) and counted.
    """

    SECOND_IMPLEMENTATION = "second-implementation"
    CHECKED_PROOF = "solver-model-checked-proof"
    SOLVER_MODEL = "solver-model"
    ENUMERATION = "enumeration"

    @property
    def short(self) -> str:
        """The word the text report's table uses."""
        return _SHORT[self]


_SHORT = {MethodKind.SECOND_IMPLEMENTATION: "second", MethodKind.CHECKED_PROOF: "proof",
          MethodKind.SOLVER_MODEL: "model", MethodKind.ENUMERATION: "enumeration"}
SOLVER_KINDS = frozenset({MethodKind.CHECKED_PROOF, MethodKind.SOLVER_MODEL,
                          MethodKind.ENUMERATION})
"""The kinds that are solver models of the question (everything but a second
implementation)."""


@dataclass(frozen=True)
class CheckResult:
    """One figure checked by one independent method.

    `bfs_value` / `method_value`: ints for small figures (m*), decimal strings
    for counts (they exceed 2^53), short strings for verdict-like figures.
    `artefacts`: extra evidence as (key, value) pairs, e.g. ("proof", path),
    ("checker", "verified"). `arbitration`: a check that computed a figure in both
    keys may say which key the exact independent method reproduces (it goes to the
    certificate's arbitration list, not into `to_json`). `kind`: the kind of method; None
    takes the `NamedCheck`'s kind when `certify` gathers the results. `seconds` (and the
    finer `timings`) are wall time, machine-dependent: `to_json` leaves them out (the
    certificate's `timing` block holds them), so two runs on the same track give the same
    check JSON; no `reason`, `work` or artefact carries seconds either.
    """

    figure: str
    bfs_value: Value
    method: str
    method_value: Value
    verdict: Verdict
    reason: str
    seconds: float
    artefacts: tuple[tuple[str, str], ...] = ()
    work: str = ""  # deterministic work spent, e.g. "412,000 states" (not wall time)
    arbitration: Arbitration | None = None  # editor vs exact key on this figure, if judged
    kind: MethodKind | None = None
    timings: tuple[tuple[str, float], ...] = ()  # finer wall seconds, e.g. ("solve", 0.2)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))  # a typo fails here

    def to_json(self) -> dict[str, Any]:
        """The check, without wall seconds (see the class docstring)."""
        return {
            "figure": self.figure, "bfs_value": self.bfs_value, "method": self.method,
            "kind": None if self.kind is None else self.kind.value,
            "method_value": self.method_value, "verdict": self.verdict.value,
            "reason": self.reason, "work": self.work, "artefacts": dict(self.artefacts),
        }


@dataclass(frozen=True)
class Arbitration:
    """Editor key vs exact key on one figure, as judged by an exact independent method."""

    figure: str
    exact: Value
    editor: Value
    independent: Value
    method: str

    @property
    def agrees_with(self) -> tuple[str, ...]:
        return tuple(k for k, v in (("exact", self.exact), ("editor", self.editor))
                     if v == self.independent)

    def to_json(self) -> dict[str, Any]:
        return {"figure": self.figure, "exact": self.exact, "editor": self.editor,
                "independent": self.independent, "method": self.method,
                "agrees_with": list(self.agrees_with)}


DEFAULT_COUNT_LIMIT = 20_000
"""Largest optimal count CP-SAT enumerates unless a user says otherwise (`--count-limit`)."""
MAX_CPSAT_BUDGET = 1_000_000.0
"""Largest --cpsat-budget in deterministic time units; larger values are a typo."""
MAX_COUNT_LIMIT = 100_000_000
"""Largest --count-limit: CP-SAT enumerates one solution at a time in Python callbacks."""


@dataclass(frozen=True)
class CertifyContext:
    """What every check of every profile receives: the track, the oracle's BFS in the
    exact key and the editor key, the analysis and the limits. A lattice or cell-path
    track has no editor key (`editor` is None) and its analysis is a `LatticeAnalysis`;
    its checks read the limits they use (`cpsat_budget`, `workers`, `max_states` for the
    independent search, `geometry_max_states`)."""

    track: AnyTrack
    exact: BfsResult
    editor: BfsResult | None
    cpsat_budget: float = DEFAULT_CPSAT_BUDGET  # deterministic time per solve (not wall s)
    workers: int = 1  # CP-SAT workers: 1 keeps every verdict reproducible
    count_limit: int = DEFAULT_COUNT_LIMIT
    geometry_max_states: int = 60_000
    continuity_max_states: int | None = None  # None: every optimal final state
    max_states: int = 20_000_000  # state budget of the independent searches
    out_dir: Path | None = None
    analysis: BaseAnalysis | None = None  # the oracle's figures (exact key)
    work: WorkFn | None = None  # progress of the running check (display only)

    def report(self, what: str, done: int = 0, total: int | None = None) -> None:
        """Tell the progress display (if any) what the running check does."""
        if self.work is not None:
            self.work(what, done, total)


Check = Callable[[CertifyContext], list[CheckResult]]


@dataclass(frozen=True)
class NamedCheck:
    """One entry of the certificate's check list: a progress label, the check itself and
    the kind of method its results are (a result may name its own kind instead)."""

    label: str
    run: Check
    kind: MethodKind | None = None


