"""Certificates: every figure of `analyze`, each confirmed by independent methods or not.

A *check* is a function `(CertifyContext) -> list[CheckResult]`. `certify` runs
the analysis (the oracle's figures, exact key) and the BFS in the editor key,
then every check of `racecert.certification.checks.CHECKS`, and gathers the
results per figure (`racecert.certification.figures.FIGURES`) into a
`Certificate` whose `to_json()` is the schema of docs/certificate.md.

Per figure the verdict is `disagree` when any check disagrees, `agree` when at
least one agrees and none disagrees (for m*, the agreeing checks must cover both sides:
a lower bound alone, a refuted m* - 1, does not show that m* moves suffice, nor a
replayed witness alone that fewer do not), `timeout` when a check ran out of its
(deterministic) work budget and none agreed, `skipped` when a check was not run
because of a size budget (and none agreed or timed out), `not-applicable` when the
figure does not exist on this track (continuity on a stage...), and `unchecked`
otherwise. The certificate's `status` is `disagree` when any figure disagrees,
`certified` when every existing figure agrees, and `partial` otherwise: a figure no
method confirmed is never counted as confirmed, and the headline names it.

Each agreeing figure says which kinds of method confirmed it (`confirmed_by`, a list
of `MethodKind`s), and the headline names every figure confirmed by the second
implementation alone, with why no solver model confirmed it (none addresses it, or
each was skipped or timed out), so a certificate never reads as more than was checked.

Wall seconds are measured but kept out of every compared field: `to_json` puts them
in one `timing` block, so two runs on the same track give the same JSON apart from it.

The editor key (docs/opening-limits.md) is reported beside: the exact
time-indexed models arbitrate it, each `Arbitration` says which key's value the
independent method reproduces.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from racecert.analysis.base import BaseAnalysis
from racecert.analysis.pipeline import Analysis, analyze
from racecert.certification.checks import CHECKS
from racecert.certification.context import (
    SOLVER_KINDS,
    Arbitration,
    CertifyContext,
    Check,
    CheckResult,
    MethodKind,
    NamedCheck,
    StepFn,
    Verdict,
    WorkFn,
)
from racecert.certification.figures import (
    FIGURE_NAMES,
    FIGURES,
    Value,
    bound_side,
    canonical_figures,
)
from racecert.model.budget import StateBudget
from racecert.model.profiles import Profile, profile_of
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, ProgressFn, layered_bfs

SCHEMA = "racecert-certificate/3"
FigureVerdictName = Literal["agree", "disagree", "timeout", "skipped", "unchecked",
                            "not-applicable"]
FIGURE_VERDICTS: tuple[FigureVerdictName, ...] = (
    "agree", "disagree", "timeout", "skipped", "unchecked", "not-applicable")
UNCONFIRMED: tuple[FigureVerdictName, ...] = ("timeout", "skipped", "unchecked")
Status = Literal["certified", "partial", "disagree"]
NOT_COVERED = "not covered by any solver model"
"""Why a figure agrees by the second implementation only when no solver model addresses it
(kind, m_cont, yellow, coverage, score, ...: the check list has none for it)."""
TIMING_NOTE = ("wall seconds: machine-dependent, the only part of the certificate that "
               "differs between two runs on the same track")


@dataclass(frozen=True)
class FigureVerdict:
    """One figure: the oracle's value, the verdict over its checks, and the checks.

    Attributes
    ----------
    name : str
        The figure, as `analyze --json` names it ("m_star", "optimal_count", ...;
        `racecert.certification.figures.FIGURES` lists them in report order).
    value : int, str, bool or None
        The oracle's value: an int for small figures (m*), a decimal string for counts,
        an exact string for lengths (a sum of square roots, in cell widths) and
        fractions ("p/q"); None where the figure does not exist.
    verdict : {"agree", "disagree", "timeout", "skipped", "unchecked", "not-applicable"}
        The verdict over its checks (module docstring); only "agree" confirms it.
    reason : str
        Why, in one line (for timeout and skipped: the budget and what was measured).
    checks : tuple of CheckResult
        The independent checks that address this figure.
    """

    name: str
    value: Value
    verdict: FigureVerdictName
    reason: str
    checks: tuple[CheckResult, ...]

    @property
    def confirmed_by(self) -> tuple[MethodKind, ...]:
        """The kinds of method whose checks agree, in `MethodKind` order; empty unless
        the figure's verdict is `agree` (nothing else is a confirmation)."""
        if self.verdict != "agree":
            return ()
        kinds = {c.kind for c in self.checks if c.verdict == Verdict.AGREE}
        return tuple(k for k in MethodKind if k in kinds)

    @property
    def second_implementation_only(self) -> str | None:
        """When the figure agrees by the second implementation alone: why no solver model
        confirmed it (none addresses it, or each was skipped, timed out or did not apply);
        None otherwise."""
        if self.confirmed_by != (MethodKind.SECOND_IMPLEMENTATION,):
            return None
        solver = {c.verdict for c in self.checks if c.kind in SOLVER_KINDS}
        if not solver:
            return NOT_COVERED
        parts = [w for v, w in ((Verdict.SKIPPED, "skipped: size budget"),
                                (Verdict.TIMEOUT, "timeout: work budget"),
                                (Verdict.NOT_APPLICABLE, "not applicable")) if v in solver]
        return "solver models " + ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "verdict": self.verdict, "reason": self.reason,
                "confirmed_by": [k.value for k in self.confirmed_by],
                "checks": [c.to_json() for c in self.checks]}


def judge_figure(name: str, value: Value, absent: str | None,
                 checks: tuple[CheckResult, ...]) -> FigureVerdict:
    """The verdict on one figure from its checks (see the module docstring)."""
    verdicts = {c.verdict for c in checks}
    if Verdict.DISAGREE in verdicts:
        return FigureVerdict(name, value, "disagree", "an independent check disagrees", checks)
    if absent is not None:
        return FigureVerdict(name, value, "not-applicable", absent, checks)
    half = _one_sided(checks)
    if Verdict.AGREE in verdicts and half is None:
        return FigureVerdict(name, value, "agree", "confirmed independently", checks)
    for v in (Verdict.TIMEOUT, Verdict.SKIPPED):
        if v in verdicts:
            why = "; ".join(c.reason for c in checks
                            if c.verdict in (Verdict.TIMEOUT, Verdict.SKIPPED))
            why = why if half is None else f"{half}; {why}"
            return FigureVerdict(name, value, v.value, why, checks)  # type: ignore[arg-type]
    why = half or "; ".join(c.reason for c in checks) or \
        "no independent method covers this figure"
    return FigureVerdict(name, value, "unchecked", why, checks)


def _one_sided(checks: tuple[CheckResult, ...]) -> str | None:
    """Why the agreeing checks do not confirm the figure, when each of them establishes
    only one side of it (every agreeing m* check a lower bound, or every one an upper
    bound: `figures.bound_side`); None when some agreeing check covers each side, or
    none agrees."""
    sides = {bound_side(c.figure) for c in checks if c.verdict == Verdict.AGREE}
    if not sides or None in sides or sides == {"lower", "upper"}:
        return None
    (side,) = sides
    other = "upper" if side == "lower" else "lower"
    names = ", ".join(sorted({c.figure for c in checks if c.verdict == Verdict.AGREE}))
    return f"only the {side} bound is confirmed ({names}); nothing confirmed the {other} bound"


def headline(status: Status, figures: tuple[FigureVerdict, ...],
             other: tuple[CheckResult, ...] = ()) -> str:
    """The one-line verdict: the status, every figure not confirmed (with its verdict), and
    every figure confirmed by the second implementation alone (with why no solver model
    confirmed it), so the line never claims more than was checked."""
    if status == "disagree":
        bad = [f.name for f in figures if f.verdict == "disagree"]
        bad += [r.figure for r in other if r.verdict == Verdict.DISAGREE]
        return f"DISAGREEMENT on {', '.join(bad) or 'a check'}: see the table"
    if status == "certified":
        text = "CERTIFIED: every figure confirmed by an independent check"
    else:
        missing = ", ".join(f"{f.name} ({f.verdict})" for f in figures
                            if f.verdict in UNCONFIRMED)
        text = f"PARTIAL: not confirmed: {missing} (nothing disagrees)"
    groups: dict[str, list[str]] = {}
    for f in figures:
        why = f.second_implementation_only
        if why is not None:
            groups.setdefault(why, []).append(f.name)
    if groups:  # figures whose solver models did not run first, the uncovered ones last
        order = sorted(groups.items(), key=lambda g: g[0] == NOT_COVERED)
        text += "; by the second implementation only: " + "; ".join(
            f"{', '.join(names)} ({why})" for why, names in order)
    return text


def timing_json(total: float, results: tuple[CheckResult, ...],
                bfs: dict[str, float] | None = None) -> dict[str, Any]:
    """The certificate's one machine-dependent block: wall seconds of the whole run, of
    each oracle BFS, and of each check in the order of the results (with any finer
    timings a check measured, e.g. a SAT solve and its proof check)."""
    out: dict[str, Any] = {"note": TIMING_NOTE, "total": round(total, 3)}
    if bfs is not None:
        out["bfs"] = {k: round(v, 4) for k, v in bfs.items()}
    out["checks"] = [{"figure": r.figure, "method": r.method, "seconds": round(r.seconds, 4),
                      **{k: round(v, 4) for k, v in r.timings}} for r in results]
    return out


class Judged(ABC):
    """The one certificate type of every rule profile (python-chess style: the grid's
    `Certificate` and the start-list profiles' `LatticeCertificate` are its subclasses;
    `racecert.certification.profiles` finds a track's).

    What every profile's certificate derives from its `figures` (each figure judged
    over its checks) and `results` (every check): the status, the unconfirmed figures,
    the headline, and the notebook view (`_repr_html_`). A certificate class supplies
    those two (and `track`, `analysis`, `seconds`, `to_json`); the rest is here, once, so
    a profile's certificate cannot judge differently from the grid's."""

    results: tuple[CheckResult, ...]
    track: Any
    analysis: BaseAnalysis  # the oracle's figures: the values being certified
    seconds: float
    arbitrations: tuple[Arbitration, ...]  # editor vs exact key (none without an editor key)
    figures: tuple[FigureVerdict, ...]  # each certificate class judges its own

    @property
    def profile(self) -> Profile:
        """The rule profile of the certified track (`racecert.model.profiles`)."""
        return profile_of(self.track)

    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """The certificate file of `racecert certify -o` (docs/certificate.md)."""

    @property
    def other_checks(self) -> tuple[CheckResult, ...]:
        """Checks that address no figure (they count for the status only); none here."""
        return ()

    @property
    def status(self) -> Status:
        """`disagree`, `certified` (every existing figure agrees) or `partial`."""
        verdicts = [f.verdict for f in self.figures]
        if "disagree" in verdicts or any(r.verdict == Verdict.DISAGREE for r in self.results):
            return "disagree"
        if all(v in ("agree", "not-applicable") for v in verdicts):
            return "certified"
        return "partial"

    @property
    def unconfirmed(self) -> tuple[str, ...]:
        """Names of the existing figures no independent check confirmed."""
        return tuple(f.name for f in self.figures if f.verdict in UNCONFIRMED)

    @property
    def headline(self) -> str:
        """The one-line verdict of `headline` (status, unconfirmed figures, figures that
        rest on the second implementation alone)."""
        return headline(self.status, self.figures, self.other_checks)

    @property
    def ok(self) -> bool:
        """No check disagrees."""
        return self.status != "disagree"

    @property
    def certified(self) -> bool:
        """Every figure that exists on this track is confirmed by an independent check."""
        return self.status == "certified"

    def summary_json(self) -> dict[str, Any]:
        """The JSON report's "summary": figures per verdict, checks, ok, certified."""
        n = {v: sum(f.verdict == v for f in self.figures) for v in FIGURE_VERDICTS}
        return {"figures_agree": n["agree"], "figures_disagree": n["disagree"],
                "figures_timeout": n["timeout"], "figures_skipped": n["skipped"],
                "figures_unchecked": n["unchecked"],
                "figures_not_applicable": n["not-applicable"],
                "checks": len(self.results), "ok": self.ok, "certified": self.certified}

    def __repr__(self) -> str:
        open_ = f", unconfirmed={list(self.unconfirmed)}" if self.unconfirmed else ""
        return f"{type(self).__name__}({self.track.name!r}, status={self.status!r}{open_})"

    def _repr_html_(self) -> str:
        """The headline above one table row per figure (value, verdict, `confirmed_by`,
        why), for notebooks; every text escaped (`certificate_html`)."""
        from racecert.certification.certificate_html import render_html

        return render_html(self)


@dataclass(frozen=True)
class Certificate(Judged):
    """Everything `racecert certify` found for one track, as `certify` returns it.

    Frozen: a result, never updated. The verdicts are derived, not stored: `figures`
    judges each figure of `analyze` over the checks that address it, and `status`,
    `headline`, `unconfirmed` follow from them (module docstring). In a notebook a
    certificate shows as its headline above a table of its figures (`_repr_html_`).

    Attributes
    ----------
    track : Track
        The validated track certified.
    analysis : Analysis
        The oracle's figures in the exact key: the values being certified.
    editor : BfsResult
        The oracle's BFS in the editor key, reported beside (docs/opening-limits.md).
    results : tuple of CheckResult
        Every check's result, in the order the checks ran: the figure it addresses, the
        independent method, the value that method found, its verdict ("agree",
        "disagree", "timeout", "skipped", "not-applicable"), why, and the deterministic
        work it spent.
    arbitrations : tuple of Arbitration
        Editor key against exact key on m* and the count, as an exact independent method
        judged them.
    seconds : float
        Wall seconds of the whole certification (machine-dependent: the only field two
        runs on the same track may differ in; `to_json` keeps it in its `timing` block).

    Examples
    --------
    >>> import racecert
    >>> c = racecert.certify("tracks/tiny_straight.toml", count_limit=100)
    >>> c.status, c.ok, c.unconfirmed
    ('certified', True, ())
    >>> m_star = next(f for f in c.figures if f.name == "m_star")
    >>> m_star.value, m_star.verdict, [k.value for k in m_star.confirmed_by]
    (3, 'agree', ['second-implementation', 'solver-model-checked-proof', 'solver-model'])
    >>> c._repr_html_().startswith('<div class="racecert-certificate"')
    True
    """

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

    def to_json(self) -> dict[str, Any]:
        """The certificate file of `racecert certify -o` (docs/certificate.md, `SCHEMA`)."""
        t = self.track
        figures = self.figures
        return {
            "schema": SCHEMA,
            "status": self.status,
            "headline": headline(self.status, figures, self.other_checks),
            "unconfirmed": list(self.unconfirmed),
            "second_implementation_only": {f.name: f.second_implementation_only
                                           for f in figures if f.second_implementation_only},
            "figures": {f.name: f.to_json() for f in figures},
            "track": {"name": t.name, "path": t.path, "sha256": t.sha256,
                      "width": t.width, "height": t.height, "layers": t.layers,
                      "opening": None if t.opening is None else {
                          "moves": t.opening.moves, "max_speed": t.opening.max_speed,
                          "straight": t.opening.straight}},
            "bfs": {"exact": _bfs_json(self.exact), "editor": _bfs_json(self.editor)},
            "arbitration": [a.to_json() for a in self.arbitrations],
            "other_checks": [r.to_json() for r in self.other_checks],
            "summary": self.summary_json(),
            "timing": timing_json(self.seconds, self.results,
                                  {"exact": self.exact.seconds, "editor": self.editor.seconds}),
        }


def _bfs_json(b: BfsResult) -> dict[str, Any]:
    return {"reachable": b.reachable, "m_star": b.m_star, "optimal_count": str(b.optimal_count),
            "final_states": b.final_states, "states_explored": b.states_explored}


def default_checks() -> list[NamedCheck]:
    """Every check `certify` runs by default, in order (one explicit list)."""
    return list(CHECKS)


def _named(check: NamedCheck | Check) -> NamedCheck:
    """A plain function that is one of `CHECKS` is that entry; any other gets its own name
    as its progress label and no kind (its results name no kind of method unless they
    carry one, so they appear in no `confirmed_by`)."""
    if isinstance(check, NamedCheck):
        return check
    known = next((c for c in CHECKS if c.run is check), None)
    return known or NamedCheck(check.__name__, check)


def _kinded(results: list[CheckResult], kind: MethodKind | None) -> list[CheckResult]:
    """The results, each with its own kind or else its check's."""
    return [r if r.kind is not None or kind is None else replace(r, kind=kind)
            for r in results]


def run_checks(ctx: CertifyContext, checks: Sequence[NamedCheck | Check],
               step: StepFn | None = None) -> list[CheckResult]:
    """Every check's results over `ctx`, in order, each with its kind (its own or its
    check's); `step(label)` before each check. The one loop of every profile's
    certificate."""
    results: list[CheckResult] = []
    for check in map(_named, checks):
        if step:
            step(check.label)
        results.extend(_kinded(check.run(ctx), check.kind))
    return results


def step_count(checks: list[NamedCheck | Check] | None = None) -> int:
    """How many times `certify` calls `step` (the two oracle runs and every check): the
    total of a progress display."""
    return 2 + len(checks if checks is not None else default_checks())


def certify(track: Track, checks: list[NamedCheck | Check] | None = None, *,
            step: StepFn | None = None, progress: ProgressFn | None = None,
            work: WorkFn | None = None, budget: StateBudget | None = None,
            **limits: Any) -> Certificate:
    """Run the analysis (exact key), the BFS in the editor key and every check;
    `limits` go to `CertifyContext`.

    `step(name)` is called before each step (for progress display; `step_count` of them);
    `progress` is passed to both oracle BFS runs (per layer); `work(what, done, total)`
    is handed to the checks (`CertifyContext.report`). `budget` bounds every search of the
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
    ctx = CertifyContext(track, exact, editor, analysis=analysis, work=work, **limits)
    results = run_checks(ctx, checks if checks is not None else default_checks(), step)
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
        if get is None or r.method_value is None \
                or r.verdict in (Verdict.NOT_APPLICABLE, Verdict.SKIPPED):
            continue
        ex = get(exact) if exact.reachable else None
        ed = get(editor) if editor.reachable else None
        out.append(Arbitration(r.figure, ex, ed, r.method_value, r.method))
    return tuple(out)
