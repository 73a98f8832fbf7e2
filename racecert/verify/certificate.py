"""Certificates: every figure of the BFS oracle next to each independent method's value.

A *check* is a function `(CertifyContext) -> list[CheckResult]`. `certify`
runs the BFS oracle once in each key (exact and editor), then every check,
and gathers the results into a `Certificate` whose `to_json()` is the schema of
docs/certificate.md. A certificate is `ok` when no check disagrees;
``not-applicable`` (with its reason: too large to enumerate, out of time...)
is never counted as agreement.

Checks plug in without editing this module: `default_checks()` collects
`CHECKS` from each module of `CHECK_MODULES`: `racecert.verify.checks_cpsat` (this
module's companion) and, when present, the SAT/DRUP and MaxSAT checks.

The certified figures are the exact key's. The editor key (SPEC §4, limit 1)
is not certified; the exact time-indexed models arbitrate it: each
`Arbitration` says which key's value the independent method reproduces.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from racecert.model.track import Track
from racecert.solvers.bfs import BfsResult, layered_bfs

SCHEMA = "racecert-certificate/1"
CheckVerdict = Literal["agree", "disagree", "not-applicable"]
Value = int | str | None
StepFn = Callable[[str], None]


@dataclass(frozen=True)
class CheckResult:
    """One figure checked by one independent method.

    `bfs_value` / `method_value`: ints for small figures (m*), decimal strings
    for counts (they exceed 2^53), short strings for verdict-like figures.
    `artefacts`: extra evidence as (key, value) pairs, e.g. ("proof", path),
    ("checker", "verified").
    """

    figure: str
    bfs_value: Value
    method: str
    method_value: Value
    verdict: CheckVerdict
    reason: str
    seconds: float
    artefacts: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "figure": self.figure, "bfs_value": self.bfs_value, "method": self.method,
            "method_value": self.method_value, "verdict": self.verdict, "reason": self.reason,
            "seconds": round(self.seconds, 4), "artefacts": dict(self.artefacts),
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
    time_limit: float = 60.0
    workers: int = 2
    count_limit: int = 20_000
    geometry_max_states: int = 60_000
    continuity_max_states: int = 8
    continuity_budget: float = 12.0  # seconds per continuity variant
    out_dir: Path | None = None


Check = Callable[[CertifyContext], list[CheckResult]]


@dataclass(frozen=True)
class Certificate:
    """Everything `racecert certify` found for one track."""

    track: Track
    exact: BfsResult
    editor: BfsResult
    results: tuple[CheckResult, ...]
    arbitrations: tuple[Arbitration, ...]
    seconds: float

    @property
    def ok(self) -> bool:
        """No check disagrees (what the exit status reports)."""
        return all(r.verdict != "disagree" for r in self.results)

    @property
    def certified(self) -> bool:
        """No check disagrees and at least one independent check agrees: `not-applicable`
        is never counted as agreement, so a track no method could examine is not certified."""
        return self.ok and any(r.verdict == "agree" for r in self.results)

    def to_json(self) -> dict[str, Any]:
        t = self.track
        n = {v: sum(r.verdict == v for r in self.results)
             for v in ("agree", "disagree", "not-applicable")}
        return {
            "schema": SCHEMA,
            "track": {"name": t.name, "path": t.path, "sha256": t.sha256,
                      "width": t.width, "height": t.height, "layers": t.layers,
                      "opening": None if t.opening is None else {
                          "moves": t.opening.moves, "max_speed": t.opening.max_speed,
                          "straight": t.opening.straight}},
            "bfs": {"exact": _bfs_json(self.exact), "editor": _bfs_json(self.editor)},
            "checks": [r.to_json() for r in self.results],
            "arbitration": [a.to_json() for a in self.arbitrations],
            "summary": {"agree": n["agree"], "disagree": n["disagree"],
                        "not_applicable": n["not-applicable"], "ok": self.ok,
                        "certified": self.certified},
            "seconds": round(self.seconds, 3),
        }


def _bfs_json(b: BfsResult) -> dict[str, Any]:
    return {"reachable": b.reachable, "m_star": b.m_star, "optimal_count": str(b.optimal_count),
            "final_states": b.final_states, "states_explored": b.states_explored,
            "seconds": round(b.seconds, 4)}


# Modules whose `CHECKS: list[Check]` certify() runs by default, in this order. A module
# that does not exist (yet) or has no CHECKS is skipped.
CHECK_MODULES = ("racecert.verify.checks_cpsat", "racecert.verify.sat_checks",
                 "racecert.verify.maxsat_checks")


def default_checks() -> list[Check]:
    """The geometry and CP-SAT checks, plus the SAT/MaxSAT ones when their module has CHECKS."""
    checks: list[Check] = []
    for name in CHECK_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        checks += list(getattr(module, "CHECKS", []))
    return checks


def certify(track: Track, checks: list[Check] | None = None, *, step: StepFn | None = None,
            **limits: Any) -> Certificate:
    """Run the BFS oracle (both keys) and every check; `limits` go to `CertifyContext`.

    `step(name)` is called before each step (for progress display).

    >>> # certify(load_track("tracks/tiny_straight.toml")).ok
    """
    t0 = time.perf_counter()
    if step:
        step("BFS oracle (exact key)")
    exact = layered_bfs(track, "exact")
    if step:
        step("BFS oracle (editor key)")
    editor = layered_bfs(track, "editor")
    ctx = CertifyContext(track, exact, editor, **limits)
    results: list[CheckResult] = []
    for check in checks if checks is not None else default_checks():
        if step:
            step((check.__doc__ or check.__name__).strip().splitlines()[0])
        results.extend(check(ctx))
    return Certificate(track, exact, editor, tuple(results), arbitrate(results, exact, editor),
                       time.perf_counter() - t0)


# Figures whose exact-key value an independent exact method may arbitrate.
ARBITRATED = {"m*": lambda b: b.m_star, "optimal_count": lambda b: str(b.optimal_count)}


def arbitrate(results: list[CheckResult], exact: BfsResult, editor: BfsResult
              ) -> tuple[Arbitration, ...]:
    """Editor vs exact key on every arbitrated figure an independent method computed."""
    out = []
    for r in results:
        get = ARBITRATED.get(r.figure)
        if get is None or r.method_value is None or r.verdict == "not-applicable":
            continue
        ex = get(exact) if exact.reachable else None
        ed = get(editor) if editor.reachable else None
        out.append(Arbitration(r.figure, ex, ed, r.method_value, r.method))
    return tuple(out)
