"""Certificates: every figure of `analyze`, each confirmed by independent methods or not.

A *check* is a function `(CertifyContext) -> list[CheckResult]`. `certify` runs
the analysis (the oracle's figures, exact key) and the BFS in the editor key,
then every check of `racecert.certification.checks.CHECKS`, and gathers the
results per figure (`racecert.certification.figures.FIGURES`) into a
`Certificate` whose `to_json()` is the schema of docs/certificate.md.

Per figure the verdict is `disagree` when any check disagrees, `agree` when at
least one agrees and none disagrees, `timeout` when a check ran out of its
(deterministic) budget and none agreed, `not-applicable` when the figure does
not exist on this track (continuity on a stage...), and `unchecked` otherwise.
The certificate's `status` is `disagree` when any figure disagrees, `certified`
when every existing figure agrees, and `partial` otherwise: a figure no method
confirmed is never counted as confirmed, and the headline names it.

The editor key (docs/opening-limits.md) is reported beside: the exact
time-indexed models arbitrate it, each `Arbitration` says which key's value the
independent method reproduces.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal

from racecert.analysis.pipeline import Analysis, analyze
from racecert.certification.checks import CHECKS
from racecert.certification.context import (
    Arbitration,
    CertifyContext,
    Check,
    CheckResult,
    NamedCheck,
    StepFn,
)
from racecert.certification.figures import FIGURE_NAMES, FIGURES, Value, canonical_figures
from racecert.model.budget import StateBudget
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, ProgressFn, layered_bfs

SCHEMA = "racecert-certificate/2"
FigureVerdictName = Literal["agree", "disagree", "timeout", "unchecked", "not-applicable"]
Status = Literal["certified", "partial", "disagree"]


@dataclass(frozen=True)
class FigureVerdict:
    """One figure: the oracle's value, the verdict over its checks, and the checks."""

    name: str
    value: Value
    verdict: FigureVerdictName
    reason: str
    checks: tuple[CheckResult, ...]

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "verdict": self.verdict, "reason": self.reason,
                "checks": [c.to_json() for c in self.checks]}


def judge_figure(name: str, value: Value, absent: str | None,
                 checks: tuple[CheckResult, ...]) -> FigureVerdict:
    """The verdict on one figure from its checks (see the module docstring)."""
    verdicts = {c.verdict for c in checks}
    if "disagree" in verdicts:
        return FigureVerdict(name, value, "disagree", "an independent check disagrees", checks)
    if absent is not None:
        return FigureVerdict(name, value, "not-applicable", absent, checks)
    if "agree" in verdicts:
        return FigureVerdict(name, value, "agree", "confirmed independently", checks)
    if "timeout" in verdicts:
        why = "; ".join(c.reason for c in checks if c.verdict == "timeout")
        return FigureVerdict(name, value, "timeout", why, checks)
    why = "; ".join(c.reason for c in checks) or "no independent method covers this figure"
    return FigureVerdict(name, value, "unchecked", why, checks)


@dataclass(frozen=True)
class Certificate:
    """Everything `racecert certify` found for one track."""

    track: Track
    analysis: Analysis
    editor: BfsResult
    results: tuple[CheckResult, ...]
    arbitrations: tuple[Arbitration, ...]
    seconds: float

    @property
    def exact(self) -> BfsResult:
        """The oracle's BFS in the exact key (the certified figures' source)."""
        return self.analysis.bfs

    @property
    def figures(self) -> tuple[FigureVerdict, ...]:
        """Every figure of `analyze`, judged over the checks that address it."""
        by: dict[str, list[CheckResult]] = {}
        for r in self.results:
            for name in canonical_figures(r.figure):
                by.setdefault(name, []).append(r)
        return tuple(judge_figure(f.name, f.value(self.analysis), f.absent(self.analysis),
                                  tuple(by.get(f.name, ()))) for f in FIGURES)

    @property
    def other_checks(self) -> tuple[CheckResult, ...]:
        """Checks that address no figure of `analyze` (the editor key's m_cont): they count
        for the status (a disagreement is one) but confirm no figure."""
        return tuple(r for r in self.results
                     if not set(canonical_figures(r.figure)) & set(FIGURE_NAMES))

    @property
    def status(self) -> Status:
        """`disagree`, `certified` (every existing figure agrees) or `partial`."""
        verdicts = [f.verdict for f in self.figures]
        if "disagree" in verdicts or any(r.verdict == "disagree" for r in self.results):
            return "disagree"
        if all(v in ("agree", "not-applicable") for v in verdicts):
            return "certified"
        return "partial"

    @property
    def unconfirmed(self) -> tuple[str, ...]:
        """Names of the existing figures no independent check confirmed."""
        return tuple(f.name for f in self.figures if f.verdict in ("unchecked", "timeout"))

    @property
    def ok(self) -> bool:
        """No check disagrees."""
        return self.status != "disagree"

    @property
    def certified(self) -> bool:
        """Every figure that exists on this track is confirmed by an independent check."""
        return self.status == "certified"

    def __repr__(self) -> str:
        open_ = f", unconfirmed={list(self.unconfirmed)}" if self.unconfirmed else ""
        return f"Certificate({self.track.name!r}, status={self.status!r}{open_})"

    def to_json(self) -> dict[str, Any]:
        t = self.track
        figures = self.figures
        n = {v: sum(f.verdict == v for f in figures)
             for v in ("agree", "disagree", "timeout", "unchecked", "not-applicable")}
        return {
            "schema": SCHEMA,
            "status": self.status,
            "unconfirmed": list(self.unconfirmed),
            "figures": {f.name: f.to_json() for f in figures},
            "track": {"name": t.name, "path": t.path, "sha256": t.sha256,
                      "width": t.width, "height": t.height, "layers": t.layers,
                      "opening": None if t.opening is None else {
                          "moves": t.opening.moves, "max_speed": t.opening.max_speed,
                          "straight": t.opening.straight}},
            "bfs": {"exact": _bfs_json(self.exact), "editor": _bfs_json(self.editor)},
            "arbitration": [a.to_json() for a in self.arbitrations],
            "other_checks": [r.to_json() for r in self.other_checks],
            "summary": {"figures_agree": n["agree"], "figures_disagree": n["disagree"],
                        "figures_timeout": n["timeout"], "figures_unchecked": n["unchecked"],
                        "figures_not_applicable": n["not-applicable"],
                        "checks": len(self.results), "ok": self.ok,
                        "certified": self.certified},
            "seconds": round(self.seconds, 3),
        }


def _bfs_json(b: BfsResult) -> dict[str, Any]:
    return {"reachable": b.reachable, "m_star": b.m_star, "optimal_count": str(b.optimal_count),
            "final_states": b.final_states, "states_explored": b.states_explored,
            "seconds": round(b.seconds, 4)}


def default_checks() -> list[NamedCheck]:
    """Every check `certify` runs by default, in order (one explicit list)."""
    return list(CHECKS)


def _named(check: NamedCheck | Check) -> NamedCheck:
    """A plugged-in plain function gets its own name as its progress label."""
    return check if isinstance(check, NamedCheck) else NamedCheck(check.__name__, check)


def certify(track: Track, checks: list[NamedCheck | Check] | None = None, *,
            step: StepFn | None = None, progress: ProgressFn | None = None,
            budget: StateBudget | None = None, **limits: Any) -> Certificate:
    """Run the analysis (exact key), the BFS in the editor key and every check;
    `limits` go to `CertifyContext`.

    `step(name)` is called before each step (for progress display); `progress` is
    passed to both oracle BFS runs (per layer). `budget` bounds every search of the
    oracle (`StateLimitReached` past it, as `racecert batch` and `--max-states` use it).

    >>> # certify(load_track("tracks/tiny_straight.toml")).status
    """
    t0 = time.perf_counter()
    if step:
        step("analysis (the oracle's figures, exact key)")
    analysis = analyze(track, "exact", progress=progress, budget=budget)
    if step:
        step("BFS oracle (editor key)")
    editor = layered_bfs(track, "editor", progress=progress, budget=budget)
    exact = analysis.bfs
    ctx = CertifyContext(track, exact, editor, analysis=analysis, **limits)
    results: list[CheckResult] = []
    for check in map(_named, checks if checks is not None else default_checks()):
        if step:
            step(check.label)
        results.extend(check.run(ctx))
    return Certificate(track, analysis, editor, tuple(results),
                       arbitrate(results, exact, editor), time.perf_counter() - t0)


# Figures whose exact-key value an independent exact method may arbitrate.
ARBITRATED = {"m*": lambda b: b.m_star, "optimal_count": lambda b: str(b.optimal_count)}


def arbitrate(results: list[CheckResult], exact: BfsResult, editor: BfsResult
              ) -> tuple[Arbitration, ...]:
    """Editor vs exact key on every arbitrated figure an independent method computed."""
    out = []
    for r in results:
        if r.arbitration is not None:
            out.append(r.arbitration)
            continue
        get = ARBITRATED.get(r.figure)
        if get is None or r.method_value is None or r.verdict == "not-applicable":
            continue
        ex = get(exact) if exact.reachable else None
        ed = get(editor) if editor.reachable else None
        out.append(Arbitration(r.figure, ex, ed, r.method_value, r.method))
    return tuple(out)
