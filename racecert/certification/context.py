"""What a certify check receives and returns: the context and one check's result.

Kept apart from `certificate.py` so that the check modules and the certificate
that lists them import this module, never each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from racecert.analysis.pipeline import Analysis
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult

CheckVerdict = Literal["agree", "disagree", "not-applicable", "timeout"]
Value = int | str | None
StepFn = Callable[[str], None]


@dataclass(frozen=True)
class CheckResult:
    """One figure checked by one independent method.

    `bfs_value` / `method_value`: ints for small figures (m*), decimal strings
    for counts (they exceed 2^53), short strings for verdict-like figures.
    `artefacts`: extra evidence as (key, value) pairs, e.g. ("proof", path),
    ("checker", "verified"). `arbitration`: a check that computed a figure in both
    keys may say which key the exact independent method reproduces (it goes to the
    certificate's arbitration list, not into `to_json`).
    """

    figure: str
    bfs_value: Value
    method: str
    method_value: Value
    verdict: CheckVerdict
    reason: str
    seconds: float
    artefacts: tuple[tuple[str, str], ...] = ()
    work: str = ""  # deterministic work spent, e.g. "412,000 states" (not wall time)
    arbitration: Arbitration | None = None  # editor vs exact key on this figure, if judged

    def to_json(self) -> dict[str, Any]:
        return {
            "figure": self.figure, "bfs_value": self.bfs_value, "method": self.method,
            "method_value": self.method_value, "verdict": self.verdict, "reason": self.reason,
            "work": self.work, "seconds": round(self.seconds, 4),
            "artefacts": dict(self.artefacts),
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


@dataclass(frozen=True)
class CertifyContext:
    """What every check receives: the track, both BFS results and the limits."""

    track: Track
    exact: BfsResult
    editor: BfsResult
    cpsat_budget: float = 60.0  # CP-SAT deterministic time per solve (not wall seconds)
    workers: int = 1  # CP-SAT workers: 1 keeps every verdict reproducible
    count_limit: int = 20_000
    geometry_max_states: int = 60_000
    continuity_max_states: int | None = None  # None: every optimal final state
    max_states: int = 20_000_000  # state budget of the independent searches
    out_dir: Path | None = None
    analysis: Analysis | None = None  # the oracle's full figures (exact key)


Check = Callable[[CertifyContext], list[CheckResult]]


@dataclass(frozen=True)
class NamedCheck:
    """One entry of the certificate's check list: a progress label and the check itself."""

    label: str
    run: Check


