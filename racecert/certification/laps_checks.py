"""The lap figures by the independent side: kind, m_cont, and m_cont in the editor key.

All three read one piece of evidence, `laps_evidence` (cached per track and budget):
`racecert.independent.laps.first_continuable`, the independent layered search whose
arrival filter keeps only arrivals that can make a further start-then-finish (decided by
`racecert.independent.laps.Continuations`, forward exploration and a backward pass over
the exact state graph, fastgeom moves). Its first depth with a kept arrival is the
least number of moves of a continuable arrival:

- `check_kind`: first the cheap argument of `racecert.independent.lap_flood`, a cell
  flood from beyond the finish: when it reaches no legal finish crossing with the start
  crossed since, no arrival can be followed by another and the track is a stage (the
  method named in the result is the flood's). Only when it does not decide: a kept
  arrival at any depth is the first lap of a two-lap trajectory (circuit); with the exact
  key the search is exhaustive, so none means a stage. Either is compared with the
  oracle's kind (`racecert.oracle.laps`: topological precondition and kinematic two-lap
  search).
- `check_m_cont`: that depth is m_cont when it exceeds m* (no optimal arrival
  continues), the count of trajectories of that length beside it; compared with the
  oracle's m_cont and its continuable DAG's count, and where m_cont does not exist, with
  the oracle's reason (a stage, or an optimal arrival continues). Where the flood proves
  a stage, the reason is "stage" (or "unreachable") without the search.
- `check_m_cont_editor` (tracks with an opening rule, where the editor key differs): the
  same search in the editor key against the oracle's editor-mode continuity, null reason
  included (`editor-key-finds-none`, docs/continuity.md worked example 5). Editor m_cont
  is no figure of `analyze`, so the result is listed among the certificate's other checks
  and as an arbitration of m_cont: the exact key's, the editor key's, and the independent
  exact value.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

from racecert.certification.context import Arbitration, CertifyContext, CheckResult, Verdict
from racecert.certification.evidence import Uncached, independent_search
from racecert.independent.lap_flood import FloodVerdict, finish_flood
from racecert.independent.laps import Continuations, FirstContinuable, first_continuable
from racecert.independent.search import ProgressFn, explore
from racecert.model.track import Track

METHOD = ("racecert.independent.laps (layered search, fastgeom moves, arrivals kept only "
          "when a further start-then-finish is reachable from the arrived state)")
FLOOD_METHOD = ("racecert.independent.lap_flood (cell flood from beyond the finish: unit "
                "steps in 8 directions with the ramp rule and the start-crossed bit, no line "
                "crossed against its direction; proves a stage when no further arrival is "
                "reachable)")
EDITOR_FIGURE = "m_cont (editor key)"

MCont = tuple[int | None, str | None]
"""(m_cont, why it is None): the reason is one of unreachable, stage,
optimal-arrival-continues, editor-key-finds-none (None when m_cont is a depth)."""


@dataclass(frozen=True)
class LapsEvidence:
    """The first continuable arrival in the exact key and, with an opening rule, in the
    editor key with the editor key's own m* (None without an opening rule)."""

    exact: FirstContinuable
    editor: FirstContinuable | None
    editor_m_star: int | None
    editor_message: str
    editor_budget: bool


def laps_evidence(track: Track, max_states: int, ctx: CertifyContext | None = None
                  ) -> LapsEvidence:
    """Both searches, sharing one continuation decider (its answers do not depend on the
    first lap's key); cached per track and budget. With `ctx` the searches report their
    work to the running check's progress display."""
    return _laps_evidence(track, max_states, Uncached(ctx))


@lru_cache(maxsize=2)
def _laps_evidence(track: Track, max_states: int, shown: Uncached) -> LapsEvidence:
    ctx: CertifyContext | None = shown.value
    shown.value = None  # the cache keeps the key: it must not keep the context alive

    def report(what: str, rounds: str = "layers") -> ProgressFn | None:
        if ctx is None:
            return None
        return lambda depth, states: ctx.report(
            f"{what}: {depth} {rounds}, {states:,} states (state budget {max_states:,} each)",
            states, None)

    decider = Continuations(track, max_states, report("continuation decider", "waves"))
    exact = first_continuable(track, "exact", max_states=max_states, continuations=decider,
                              progress=report("first-lap search, exact key"))
    if track.opening is None or track.opening.moves == 0:
        return LapsEvidence(exact, None, None, "", False)
    editor = first_continuable(track, "editor", max_states=max_states, continuations=decider,
                               progress=report("first-lap search, editor key"))
    plain = explore(track, "editor", max_states=max_states,
                    progress=report("layered search, editor key"))
    return LapsEvidence(exact, editor, plain.m_star, plain.message, plain.status == "budget")


def clear_laps_cache() -> None:
    """Forget the cached lap evidence and floods (a test that changes a budget's outcome)."""
    _laps_evidence.cache_clear()
    flood_evidence.cache_clear()


@lru_cache(maxsize=2)
def flood_evidence(track: Track) -> FloodVerdict:
    """The cell flood from beyond the finish (cheap: linear in the cells it reaches)."""
    return finish_flood(track)


def independent_m_cont(first: FirstContinuable, m_star: int | None, circuit: bool) -> MCont:
    """m_cont (or why there is none) from the first continuable depth and m*."""
    if m_star is None:
        return None, "unreachable"
    if first.status == "arrived":
        if first.depth == m_star:
            return None, "optimal-arrival-continues"
        return first.depth, None
    return None, "editor-key-finds-none" if circuit else "stage"


def show(m: MCont) -> str:
    """m_cont as a short value: the depth, or "none (reason)"."""
    return str(m[0]) if m[0] is not None else f"none ({m[1]})"


def _trajectories(n: int) -> str:
    return f"{n:,} trajector{'y' if n == 1 else 'ies'}"


def _oracle_m_cont(ctx: CertifyContext) -> MCont:
    a = ctx.analysis
    if not ctx.exact.reachable:
        return None, "unreachable"
    c = None if a is None else a.continuity
    if c is None or not c.applicable:
        return None, "stage"
    return c.m_cont, c.m_cont_null_reason


def _oracle_kind(ctx: CertifyContext) -> str:
    if ctx.analysis is not None:
        return ctx.analysis.kind
    from racecert.oracle.laps import lap_aptitude
    return lap_aptitude(ctx.track).kind


def check_kind(ctx: CertifyContext) -> list[CheckResult]:
    """Stage or circuit: is some arrival of the first lap continuable?

    The flood decides first where it can (a stage, cheaply); the exhaustive search
    decides every other track, and its reason says why the flood did not.
    """
    t0 = time.perf_counter()
    oracle = _oracle_kind(ctx)
    flood = flood_evidence(ctx.track)
    if flood.stage:
        return [CheckResult("kind", oracle, FLOOD_METHOD, "stage",
                            "agree" if oracle == "stage" else "disagree",
                            f"stage: {flood.reason}", time.perf_counter() - t0, (),
                            flood.work)]
    ev = laps_evidence(ctx.track, ctx.max_states, ctx).exact
    if ev.status == "budget":
        return [CheckResult("kind", oracle, METHOD, None, Verdict.TIMEOUT,
                            f"{ev.message} ({flood.reason})", time.perf_counter() - t0, (),
                            ev.work)]
    if ev.status == "arrived":
        why = (f"circuit: an arrival after {ev.depth} moves continues into a second lap "
               f"({_trajectories(ev.count)} of {ev.depth} moves)")
    else:
        why = ("stage: no arrival of the first lap, at any depth, can make a further "
               f"start-then-finish ({ev.message}; exact key, exhaustive; {flood.reason})")
    return [CheckResult("kind", oracle, METHOD, ev.kind,
                        Verdict.AGREE if ev.kind == oracle else Verdict.DISAGREE, why,
                        time.perf_counter() - t0, (), ev.work)]


def check_m_cont(ctx: CertifyContext) -> list[CheckResult]:
    """m_cont, its trajectory count, or the reason it does not exist."""
    t0 = time.perf_counter()
    if ctx.analysis is None:
        return [CheckResult("m_cont", None, METHOD, None, Verdict.NOT_APPLICABLE,
                            "no oracle analysis given: no m_cont to compare", 0.0)]
    oracle = _oracle_m_cont(ctx)
    search = independent_search(ctx.track, ctx.max_states)
    flood = flood_evidence(ctx.track)
    if flood.stage and search.status != "budget":
        mine: MCont = (None, "unreachable" if search.m_star is None else "stage")
        return [CheckResult("m_cont", oracle[0], FLOOD_METHOD, None,
                            "agree" if mine == oracle else "disagree",
                            f"independent m* = {search.m_star}; the flood proves a stage, so "
                            f"no arrival continues: oracle {show(oracle)}, independent "
                            f"{show(mine)} ({flood.reason})", time.perf_counter() - t0,
                            (("oracle", show(oracle)), ("independent", show(mine))),
                            flood.work)]
    ev = laps_evidence(ctx.track, ctx.max_states, ctx).exact
    if ev.status == "budget" or search.status == "budget":
        why = ev.message if ev.status == "budget" else search.message
        return [CheckResult("m_cont", oracle[0], METHOD, None, Verdict.TIMEOUT, why,
                            time.perf_counter() - t0, (), ev.work)]
    mine = independent_m_cont(ev, search.m_star, ev.status == "arrived")
    verdict = Verdict.AGREE if mine == oracle else Verdict.DISAGREE
    arte: tuple[tuple[str, str], ...] = (("oracle", show(oracle)), ("independent", show(mine)))
    why = (f"independent m* = {search.m_star}, first continuable arrival: "
           f"{ev.depth if ev.depth is not None else 'none'}; oracle {show(oracle)}, "
           f"independent {show(mine)}")
    if mine[0] is not None and verdict == Verdict.AGREE:
        cont = ctx.analysis.continuity.cont_bfs if ctx.analysis.continuity else None
        theirs = None if cont is None else cont.optimal_count
        arte += (("continuable trajectories of m_cont moves",
                  f"oracle {theirs}, independent {ev.count}"),)
        if theirs != ev.count:
            verdict = Verdict.DISAGREE
            why += f"; trajectories of m_cont moves: oracle {theirs}, independent {ev.count}"
        else:
            why += f"; {_trajectories(ev.count)} of m_cont moves continue, in both"
    return [CheckResult("m_cont", oracle[0], METHOD, mine[0], verdict, why,
                        time.perf_counter() - t0, arte, ev.work)]


def _oracle_editor_m_cont(ctx: CertifyContext) -> MCont:
    """The oracle's m_cont in the editor key (its continuity over the editor BFS)."""
    if not ctx.editor.reachable:
        return None, "unreachable"
    from racecert.oracle.continuity import continuity

    assert ctx.analysis is not None
    c = continuity(ctx.track, ctx.editor, ctx.analysis.aptitude)
    if not c.applicable:
        return None, "stage"
    return c.m_cont, c.m_cont_null_reason


def check_m_cont_editor(ctx: CertifyContext) -> list[CheckResult]:
    """m_cont in the editor key (with its null reason) vs the same independent search."""
    t0 = time.perf_counter()
    op = ctx.track.opening
    if op is None or op.moves == 0:
        return [CheckResult(EDITOR_FIGURE, None, METHOD, None, Verdict.NOT_APPLICABLE,
                            "no opening rule: the editor key is the exact key",
                            time.perf_counter() - t0)]
    if ctx.analysis is None:
        return [CheckResult(EDITOR_FIGURE, None, METHOD, None, Verdict.NOT_APPLICABLE,
                            "no oracle analysis given: no m_cont to compare", 0.0)]
    oracle = _oracle_editor_m_cont(ctx)
    ev = laps_evidence(ctx.track, ctx.max_states, ctx)
    search = independent_search(ctx.track, ctx.max_states)
    editor = ev.editor
    assert editor is not None
    if "budget" in (ev.exact.status, editor.status, search.status) or ev.editor_budget:
        why = next(r.message for r in (ev.exact, editor) if r.status == "budget") \
            if "budget" in (ev.exact.status, editor.status) else ev.editor_message
        return [CheckResult(EDITOR_FIGURE, show(oracle), METHOD, None, Verdict.TIMEOUT, why,
                            time.perf_counter() - t0, (), editor.work)]
    circuit = ev.exact.status == "arrived"
    mine = independent_m_cont(editor, ev.editor_m_star, circuit)
    exact_mine = independent_m_cont(ev.exact, search.m_star, circuit)
    verdict = Verdict.AGREE if mine == oracle else Verdict.DISAGREE
    why = (f"editor key: independent m* = {ev.editor_m_star}, first continuable arrival: "
           f"{editor.depth if editor.depth is not None else 'none'}; oracle {show(oracle)}, "
           f"independent {show(mine)}; exact key: independent {show(exact_mine)}")
    exact_oracle = _oracle_m_cont(ctx)
    arb = Arbitration("m_cont", show(exact_oracle), show(oracle), show(exact_mine), METHOD)
    return [CheckResult(EDITOR_FIGURE, show(oracle), METHOD, show(mine), verdict, why,
                        time.perf_counter() - t0,
                        (("exact key m_cont (oracle)", show(exact_oracle)),
                         ("exact key m_cont (independent)", show(exact_mine))),
                        editor.work, arb)]
