"""Checks that scale: the independent layered search and the vectorised second geometry.

- `check_move_validity`: every move of every state the oracle explores (all states
  within m* moves) judged by the model's rules and by `racecert.independent.fastgeom`
  (`fast_geometry_check`); no size cap, a deterministic state budget.
- `check_search`: `racecert.independent.search.explore` (its own key, its own
  geometry, exact limb counts) gives reachable, m*, the optimal count and the final
  states with their counts; `racecert.independent.countcheck` then re-derives every
  move of its optimal DAG and re-adds every count with Python ints (the count
  certificate). The optimal count and the final states agree only when the
  certificate holds as well as the values.
"""

from __future__ import annotations

import time

from racecert.certification.context import CertifyContext, CheckResult, Verdict
from racecert.certification.evidence import (
    expected_states,
    independent_search,
    search_progress,
)
from racecert.certification.fast_geometry_check import crosscheck_fast_geometry
from racecert.independent.countcheck import check_count_certificate
from racecert.independent.search import SearchResult

GEOMETRY_METHOD = ("racecert.independent.fastgeom (touched cells by corner signs, integer "
                   "entry order; vectorised) vs the model's rules")
SEARCH_METHOD = "racecert.independent.search (own key, fastgeom moves, exact limb counts)"


def check_move_validity(ctx: CertifyContext) -> list[CheckResult]:
    """Move validity on every state within m* moves (the oracle's explored space)."""
    t0 = time.perf_counter()
    b = ctx.exact
    depth = b.m_star if b.reachable else None
    expected = expected_states(ctx)
    r = crosscheck_fast_geometry(
        ctx.track, depth, max_states=ctx.max_states,
        progress=lambda states, layer: ctx.report(
            f"moves of every state within {depth} moves: layer {layer}, {states:,} states "
            f"checked (state budget {ctx.max_states:,})", states, expected))
    scope = (f"every state within {depth} moves" if depth is not None
             else "every reachable state")
    value = f"{r.moves:,} moves from {r.states:,} states, {len(r.disagreements)} differ"
    work = f"{r.states:,} states"
    arte = tuple((f"disagreement {i + 1}", d) for i, d in enumerate(r.disagreements[:10]))
    if r.disagreements:
        return [CheckResult("move validity", "the model's rules", GEOMETRY_METHOD, value,
                            Verdict.DISAGREE, f"{len(r.disagreements)} moves differ ({scope})",
                            time.perf_counter() - t0, arte, work)]
    if not r.complete:
        return [CheckResult("move validity", "the model's rules", GEOMETRY_METHOD, value,
                            Verdict.TIMEOUT, f"state budget of {ctx.max_states:,} reached after "
                            f"{r.depth} layers", time.perf_counter() - t0, (), work)]
    return [CheckResult("move validity", "the model's rules", GEOMETRY_METHOD, value, Verdict.AGREE,
                        f"all 9 accelerations from {scope}: {r.valid_moves:,} valid, "
                        f"{r.arriving_moves:,} arriving", time.perf_counter() - t0, (), work)]


def _finals(res: SearchResult) -> dict[tuple[int, ...], int]:
    dag = res.dag
    if dag is None:
        return {}
    return {dag.finals.row(i): c for i, c in enumerate(dag.final_counts)}


def check_search(ctx: CertifyContext) -> list[CheckResult]:
    """Reachable, m*, the optimal count (with a checked count certificate) and the final
    states (with their counts) by the independent layered search."""
    t0 = time.perf_counter()
    b = ctx.exact
    res = independent_search(ctx.track, ctx.max_states,
                             search_progress(ctx, "independent layered search"))
    work = f"{res.states_explored:,} states"
    seconds = time.perf_counter() - t0
    labels = ("reachable", "m_star", "optimal_count", "final_states")
    oracle = (b.reachable, b.m_star, str(b.optimal_count) if b.reachable else None,
              b.final_states if b.reachable else None)
    if res.status in ("budget", "depth"):
        return [CheckResult(f, v, SEARCH_METHOD, None, Verdict.TIMEOUT, res.message, seconds, (),
                            work) for f, v in zip(labels, oracle, strict=True)]
    out = [CheckResult("reachable", b.reachable, SEARCH_METHOD, res.reachable,
                       Verdict.AGREE if res.reachable == b.reachable else Verdict.DISAGREE,
                       res.message, seconds, (), work)]
    if not res.reachable or not b.reachable or res.dag is None:
        why = "the finish is unreachable: nothing to count"
        return out + [CheckResult(f, v, SEARCH_METHOD, None, Verdict.NOT_APPLICABLE, why, 0.0)
                      for f, v in zip(labels[1:], oracle[1:], strict=True)]
    out.append(CheckResult("m_star", b.m_star, SEARCH_METHOD, res.m_star,
                           Verdict.AGREE if res.m_star == b.m_star else Verdict.DISAGREE,
                           f"first arrival of the independent search at depth {res.m_star}",
                           seconds, (), work))
    t1 = time.perf_counter()
    cert = check_count_certificate(ctx.track, res.dag)
    cert_work = f"{work}; certificate: {cert.states:,} states, {cert.moves_derived:,} moves"
    cert_note = ("count certificate verified (every move re-derived, every count re-added)"
                 if cert.ok else f"count certificate FAILS: {cert.reason}")
    count_ok = cert.ok and res.optimal_count == b.optimal_count
    out.append(CheckResult("optimal_count", str(b.optimal_count), SEARCH_METHOD,
                           str(res.optimal_count), Verdict.AGREE if count_ok else Verdict.DISAGREE,
                           cert_note, seconds + time.perf_counter() - t1, (), cert_work))
    ours = dict(b.final_state_list())
    theirs = _finals(res)
    same = ours == theirs
    why = (f"{len(theirs)} final states with the same counts" if same else
           f"final states differ: oracle {len(ours)}, independent {len(theirs)}; "
           f"{len(set(ours) ^ set(theirs))} not shared, "
           f"{sum(ours[k] != theirs[k] for k in set(ours) & set(theirs))} counts differ")
    out.append(CheckResult("final_states", b.final_states, SEARCH_METHOD, len(theirs),
                           Verdict.AGREE if same and cert.ok else Verdict.DISAGREE,
                           f"{why}; {cert_note}", seconds, (), cert_work))
    return out
