"""Certificates: every figure of the BFS oracle next to each independent method's value.

A *check* is a function `(CertifyContext) -> list[CheckResult]`. `certify`
runs the BFS oracle once in each key (exact and editor), then every check,
and gathers the results into a `Certificate` whose `to_json()` is the schema of
docs/certificate.md. A certificate is `ok` when no check disagrees;
``not-applicable`` (with its reason: too large to enumerate, out of time...)
is never counted as agreement.

The checks are listed once, in order, in `racecert.certification.checks.CHECKS`;
each is a `NamedCheck` (a progress label and a function).

The certified figures are the exact key's. The editor key (docs/opening-limits.md)
is not certified; the exact time-indexed models arbitrate it: each
`Arbitration` says which key's value the independent method reproduces.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from racecert.certification.checks import CHECKS
from racecert.certification.context import (
    Arbitration,
    CertifyContext,
    Check,
    CheckResult,
    NamedCheck,
    StepFn,
)
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, layered_bfs

SCHEMA = "racecert-certificate/1"


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


def default_checks() -> list[NamedCheck]:
    """Every check `certify` runs by default, in order (one explicit list)."""
    return list(CHECKS)


def _named(check: NamedCheck | Check) -> NamedCheck:
    """A plugged-in plain function gets its own name as its progress label."""
    return check if isinstance(check, NamedCheck) else NamedCheck(check.__name__, check)


def certify(track: Track, checks: list[NamedCheck | Check] | None = None, *,
            step: StepFn | None = None, **limits: Any) -> Certificate:
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
    for check in map(_named, checks if checks is not None else default_checks()):
        if step:
            step(check.label)
        results.extend(check.run(ctx))
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
