"""Continuity of every optimal final state as SAT models (both variants).

The final states come from the independent search (`evidence.independent_search`):
each distinct arrived state (x, y, vx, vy, layer, progress) for the race rule, the same
with progress 0 for the editor certification, all with the phase min(m*, K) the
continuation starts from. `racecert.independent.sat_continuation.decide_continuations`
decides each one: a continuable state by a model of the CNF "a further arrival within H
moves" walked back to a continuation that the verify geometry replays; any other by the
CNF at H = E + 1 (E: every state it reaches is reached within E moves) refuted, its DRUP
proof checked by `racecert.independent.drup` (written in DIMACS beside the proof with
--out).

The figures are the continuable trajectory counts: the independent search's arrival
counts summed over the arrivals whose arrived state continues
(`evidence.continuable_counts`), compared with the oracle's; the per-state verdicts are
also compared with the oracle's (`racecert.oracle.continuity`, aligned with its DAG's
arriving moves), so two errors cannot cancel in a sum.

The kind of method (`confirmed_by`) is a checked proof when some final state of the
variant is refuted with a checked DRUP proof, and a solver model when every one continues
(replayed models only, no proof). Past the closure's or a CNF's size budget the check is
`skipped`; past the conflict budget, `timeout`.
"""

from __future__ import annotations

import time

from racecert.certification.context import CertifyContext, CheckResult, MethodKind, Verdict
from racecert.certification.evidence import continuable_counts, independent_search
from racecert.certification.proof_files import track_slug
from racecert.independent.sat import DEFAULT_CONFLICT_BUDGET, SolverBudgetExceeded
from racecert.independent.sat_continuation import (
    ContinuationBudget,
    SourceVerdict,
    decide_continuations,
)

METHOD = ("SAT (glucose4) reachability-cut CNF from each final state: models replayed by the "
          "verify geometry, refutations DRUP-checked (racecert.independent.sat_continuation)")
FIGURES = ("continuable final states (race rule)",
           "continuable final states (editor certification)")


def _oracle_states(ctx: CertifyContext, race: bool) -> dict[tuple[int, ...], bool]:
    """The oracle's verdict per final state (x, y, vx, vy, layer, progress of the variant)."""
    a = ctx.analysis
    c = None if a is None else a.continuity
    dag = ctx.exact.dag
    if c is None or dag is None:
        return {}
    arr = dag.arrive_state
    answers = c.race if race else c.editor
    out = {}
    for i in range(len(arr)):
        s = arr.state(i)
        out[(s.x, s.y, s.vx, s.vy, s.layer, s.progress if race else 0)] = bool(answers[i])
    return out


def check_sat_continuity(ctx: CertifyContext) -> list[CheckResult]:
    """Both continuable counts, every optimal final state decided by SAT with evidence."""
    t0 = time.perf_counter()
    a = ctx.analysis
    c = None if a is None else a.continuity

    def every(verdict: Verdict, reason: str, work: str = "") -> list[CheckResult]:
        return [CheckResult(f, None, METHOD, None, verdict, reason, time.perf_counter() - t0,
                            (), work, kind=MethodKind.CHECKED_PROOF) for f in FIGURES]

    if a is None:
        return every(Verdict.NOT_APPLICABLE, "no oracle analysis given: no continuity to compare")
    if not ctx.exact.reachable:
        return every(Verdict.NOT_APPLICABLE, "the finish is unreachable: no final state")
    if c is None or not c.applicable:
        return every(Verdict.NOT_APPLICABLE, "a stage: continuity into another lap does not apply")
    res = independent_search(ctx.track, ctx.max_states)
    dag = res.dag
    if dag is None or res.m_star is None:
        return every(Verdict.TIMEOUT, f"the independent search gave no final states: {res.message}")
    k = ctx.track.opening.moves if ctx.track.opening else 0
    phase = min(res.m_star, k)
    race_sources = sorted({(int(dag.arrive_x[i]), int(dag.arrive_y[i]), int(dag.arrive_vx[i]),
                            int(dag.arrive_vy[i]), int(dag.arrive_layer[i]),
                            int(dag.arrive_progress[i])) for i in range(len(dag.arrive_src))})
    editor_sources = sorted({(*s[:5], 0) for s in race_sources})
    sources = sorted(set(race_sources) | set(editor_sources))
    proof_dir = None
    if ctx.out_dir is not None:
        ctx.out_dir.mkdir(parents=True, exist_ok=True)
        proof_dir = ctx.out_dir
    try:
        verdicts, work = decide_continuations(
            ctx.track, sources, phase, proof_dir=proof_dir,
            proof_stem=f"{track_slug(ctx.track.name)}-continuity",
            progress=lambda done, total: ctx.report(
                f"final states by SAT (conflict budget {DEFAULT_CONFLICT_BUDGET:,} per solve), "
                "DRUP proofs checked", done, total))
    except ContinuationBudget as exc:  # a size budget: the closure or a CNF too large
        return every(Verdict.SKIPPED, str(exc))
    except SolverBudgetExceeded as exc:  # a work budget: conflicts
        return every(Verdict.TIMEOUT, str(exc))
    by_source = {v.source: v for v in verdicts}
    out = []
    for figure, race, mine in ((FIGURES[0], True, race_sources),
                               (FIGURES[1], False, editor_sources)):
        out.append(_judge(ctx, figure, race, [by_source[s] for s in mine], phase, str(work),
                          time.perf_counter() - t0))
    return out


def _judge(ctx: CertifyContext, figure: str, race: bool, verdicts: list[SourceVerdict],
           phase: int, work: str, seconds: float) -> CheckResult:
    """One variant's verdict: the per-state evidence, the oracle's per-state answers and
    the continuable count."""
    bad = [f"{v.source}: {v.problem}" for v in verdicts if v.problem]
    theirs = _oracle_states(ctx, race)
    for v in verdicts:
        if v.source in theirs and v.continuable is not None \
                and theirs[v.source] != v.continuable:
            bad.append(f"{v.source}: oracle {'continues' if theirs[v.source] else 'stops'}, "
                       f"SAT {'continues' if v.continuable else 'stops'}")
    missing = set(theirs) ^ {v.source for v in verdicts}
    if missing:
        bad.append(f"final states differ from the oracle's: {sorted(missing)[:4]}")
    keyed = {(*v.source, phase): bool(v.continuable) for v in verdicts}
    oracle_count, method_count = continuable_counts(ctx, race, keyed)
    yes = sum(bool(v.continuable) for v in verdicts)
    proofs = [v.proof_path for v in verdicts if v.proof_path]
    reason = (f"{yes} of {len(verdicts)} final states continue"
              f"{'' if race else ' (progress 0: a later start crossing is needed)'}; "
              "each continuable one by a replayed model, each other by a checked refutation "
              "at H = E + 1; the count sums the independent search's arrival counts over "
              "the continuable ones")
    if oracle_count != method_count:
        bad.append(f"continuable trajectories: oracle {oracle_count}, independent "
                   f"{method_count}")
    arte = tuple((f"mismatch {i + 1}", m) for i, m in enumerate(bad[:10]))
    arte += tuple((f"proof {i + 1}", p) for i, p in enumerate(proofs))
    arte += tuple((f"final state {v.source}", ("continues" if v.continuable else "stops")
                   + f": {v.evidence}") for v in verdicts[:12])
    refuted = any(v.continuable is False for v in verdicts)
    return CheckResult(figure, _str(oracle_count), METHOD, _str(method_count),
                       Verdict.DISAGREE if bad else Verdict.AGREE, reason if not bad else
                       f"{reason}; {len(bad)} problems: {bad[0]}", seconds, arte, work,
                       kind=MethodKind.CHECKED_PROOF if refuted else MethodKind.SOLVER_MODEL)


def _str(v: int | None) -> str | None:
    return None if v is None else str(v)
