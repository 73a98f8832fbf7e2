"""SAT certificates of m*: a checked UNSAT proof at m*-1 and a replayed model at m*.

For a track whose BFS oracle reports m*, this module

1. builds the allowed-move table with the independent geometry
   (`racecert.independent.movetable`), turns it into the successor function the
   CNF encoder needs (`racecert.independent.race_rules.table_successors`: the
   opening rule, the start/finish bookkeeping and arrival of docs/rules.md, not
   taken from racecert.model.rules);
2. encodes "arrive within T moves" (`racecert.independent.sat`) for T = m*-1,
   solves it with a proof-logging solver, writes the DRUP proof to a file and
   checks it with `racecert.independent.drup.check_drup` (the lower bound: no
   trajectory of fewer than m* moves);
3. solves T = m* and replays the model's trajectory move by move through the
   independent geometry (`racecert.independent.geometry.Geometry.replay`), checking
   that it first arrives at move m* (the upper bound).

The variable domain of the CNF is a relaxation (untimed closure of the move
table + per-axis kinematics), never the BFS's own states; the certificate
says so in its reason.

That reachability-cut CNF is refuted by unit propagation alone, so its proof has no
lemma. A second lower bound (`onehot_checks`) encodes the same question as the factored
one-hot CNF of `racecert.independent.onehot.build_onehot_cnf` (one-hot coordinates, velocities
and cells per time step): its refutation needs search, and the solver's DRUP proof, with
real lemmas, is written to a file and checked by `check_drup`. Its T = m* model is
replayed by the independent geometry as well (the encoding admits real trajectories).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from racecert.certification.context import CertifyContext, CheckResult, MethodKind, Verdict
from racecert.certification.evidence import closure_floor
from racecert.certification.proof_files import proof_target, track_slug
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.drup import DrupResult, check_drup
from racecert.independent.geometry import Geometry
from racecert.independent.movetable import MoveTable, race_table
from racecert.independent.onehot import (
    OneHotCnf,
    OneHotSolve,
    build_onehot_cnf,
    solve_onehot,
)
from racecert.independent.race_rules import (
    OpeningRule,
    State,
    Successors,
    initial_state,
    table_successors,
)
from racecert.independent.sat import (
    DEFAULT_CONFLICT_BUDGET,
    RESTRICTION,
    ClosureCapExceeded,
    SolverBudgetExceeded,
    build_reach_cnf,
    solve_reach,
    untimed_closure,
    write_dimacs,
)
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult

SAT_MAX_CELLS = 2_000_000
"""Size budget of the reachability-cut CNF: untimed closure states x m* (an upper bound on
its variables). Beyond it the check says `skipped` with the numbers: the pure-Python
encoder and checker need about 1.6 KB per variable (llanura: 6.4 M variables, 10.6 GB)."""
ONEHOT_MAX_MSTAR = 60
"""The one-hot lower bound runs on tracks with m* <= this (espiral, m* = 58: about 20 s of
CPU; a 1000x5 corridor, m* = 45, the only checked proof of its m*: about 45 s); beyond it
the check says `skipped`, with m*."""
ONEHOT_MAX_PROOF_BYTES = 100_000_000
"""A larger one-hot proof is not checked (the check runs at about 0.5-1 s per MB); the
result is then `skipped` (a size budget), with the measured size."""
PROVED, MODEL = MethodKind.CHECKED_PROOF, MethodKind.SOLVER_MODEL
LOWER_CUT = "m* lower bound, reachability-cut CNF"
UPPER_CUT = "m* upper bound, reachability-cut CNF"
LOWER_ONEHOT = "m* lower bound, one-hot CNF"
UPPER_ONEHOT = "m* upper bound, one-hot CNF"
ONEHOT_DOMAINS = ((True, True), (True, False), (False, False))
"""(backward, cells) options of build_onehot_cnf, strongest first: when the proof of one
is empty (refuted by unit propagation alone) the next, weaker domain is tried."""


@dataclass(frozen=True)
class SatCertificate:
    """Measurements of one track's SAT certificate (for the benchmark and the report)."""

    m_star: int
    lower: CheckResult
    upper: CheckResult
    table_rows: int
    table_seconds: float
    closure_states: int
    unsat_vars: int
    unsat_clauses: int
    unsat_literals: int
    unsat_solve_seconds: float
    proof_bytes: int
    proof_lines: int
    check_seconds: float
    sat_solve_seconds: float
    drup: DrupResult | None


def _lower_bound(track: Track, successors: Successors, s0: State, m_star: int, k: int,
                 closure: set, proof_path: Path | None, solver: str
                 ) -> tuple[CheckResult, dict]:
    """UNSAT of 'arrive within m*-1 moves', with a checked proof."""
    t0 = time.perf_counter()
    stats: dict = {"vars": 0, "clauses": 0, "literals": 0, "solve": 0.0, "bytes": 0,
                   "lines": 0, "check": 0.0, "drup": None}
    if m_star <= 1:
        return CheckResult(LOWER_CUT, m_star, f"SAT ({solver}) + DRUP check", None,
                           Verdict.NOT_APPLICABLE, "m* = 1: no shorter horizon to refute",
                           time.perf_counter() - t0), stats
    cnf = build_reach_cnf(track, successors, s0, m_star - 1, k, closure)
    res = solve_reach(cnf, solver, proof_path)
    stats.update(vars=cnf.nvars, clauses=len(cnf.clauses), literals=cnf.literals,
                 solve=res.seconds, bytes=res.proof_bytes, lines=len(res.proof_lines))
    if res.satisfiable:
        traj = res.trajectory or ()
        why = (f"the CNF for T = {m_star - 1} is satisfiable: a trajectory of "
               f"{len(traj) - 1} moves arrives, shorter than m*")
        return CheckResult(LOWER_CUT, m_star, f"SAT ({solver})",
                           f"arrives in {len(traj) - 1}", Verdict.DISAGREE, why,
                           time.perf_counter() - t0), stats
    drup = check_drup(cnf.clauses, list(res.proof_lines))
    stats.update(check=drup.seconds, drup=drup)
    verdict = Verdict.AGREE if drup.verified else Verdict.DISAGREE
    why = (f"T = {m_star - 1} UNSAT ({cnf.nvars} vars, {len(cnf.clauses)} clauses); "
           f"DRUP proof {res.proof_bytes} bytes, checker: {drup.reason}; {RESTRICTION}")
    value = f"> {m_star - 1}" if drup.verified else "unproven"
    return CheckResult(LOWER_CUT, m_star, f"SAT ({solver}) + DRUP check",
                       value, verdict, why, time.perf_counter() - t0,
                       (("proof", str(proof_path) if proof_path else "(not written)"),
                        ("proof check", "verified" if drup.verified else "rejected")),
                       timings=(("solve", res.seconds), ("proof check", drup.seconds))), stats


def _upper_bound(track: Track, successors: Successors, s0: State, m_star: int, k: int,
                 closure: set, solver: str) -> tuple[CheckResult, float]:
    """SAT of 'arrive within m* moves', the model replayed by the independent geometry."""
    t0 = time.perf_counter()
    cnf = build_reach_cnf(track, successors, s0, m_star, k, closure)
    res = solve_reach(cnf, solver)
    method = f"SAT ({solver}) + geometry replay"
    if not res.satisfiable or res.trajectory is None:
        return CheckResult(UPPER_CUT, m_star, method, "unsatisfiable",
                           Verdict.DISAGREE, f"no trajectory arrives within {m_star} moves",
                           time.perf_counter() - t0), res.seconds
    positions = [(s[0], s[1]) for s in res.trajectory]
    ok, why = Geometry(track).replay(positions)
    moves = len(positions) - 1
    agree = ok and moves == m_star
    reason = (f"model trajectory of {moves} moves replayed: {why}; positions "
              + " ".join(f"({x},{y})" for x, y in positions))
    return CheckResult(UPPER_CUT, m_star, method, moves,
                       Verdict.AGREE if agree else Verdict.DISAGREE, reason,
                       time.perf_counter() - t0), res.seconds


def sat_certificate(track: Track, m_star: int, out_dir: str | Path | None = None,
                    solver: str = "glucose4", table: MoveTable | None = None,
                    reachable_at_least: int = 0) -> SatCertificate:
    """Both SAT checks of m* for `track`, with measurements; the proof goes to `out_dir`.
    `reachable_at_least` as in `racecert.independent.movetable.closure_table`."""
    t0 = time.perf_counter()
    if table is None:
        table = race_table(track, reachable_at_least)
    table_s = time.perf_counter() - t0
    successors = table_successors(table, track)
    k = OpeningRule.of(track).moves
    s0 = initial_state(track)
    # closure states x m* > budget <=> closure states > budget // m*: the closure search
    # stops as soon as it passes that many (llanura's 160,426 were built in full before)
    cap = SAT_MAX_CELLS // m_star
    try:
        closure = untimed_closure(successors, s0, k, cap=cap)
    except ClosureCapExceeded:  # not any ValueError: only the cap is a size verdict
        raise SizeBudgetExceeded(
            "the reachability-cut CNF", (cap + 1) * m_star, SAT_MAX_CELLS,
            "closure states x steps", at_least=True,
            note=f"the closure search stopped past {cap:,} closure states, x m* = {m_star}; "
                 "pure-Python encoder and proof checker") from None
    proof_path = proof_target(out_dir, f"{track_slug(track.name)}-T{m_star - 1}.drup")
    lower, st = _lower_bound(track, successors, s0, m_star, k, closure, proof_path, solver)
    upper, sat_s = _upper_bound(track, successors, s0, m_star, k, closure, solver)
    return SatCertificate(m_star, lower, upper, len(table), table_s, len(closure), st["vars"],
                          st["clauses"], st["literals"], st["solve"], st["bytes"], st["lines"],
                          st["check"], sat_s, st["drup"])


@dataclass(frozen=True)
class OneHotCertificate:
    """Measurements of one track's one-hot lower bound (for the benchmark and the report).

    `backward` / `cells`: the domain options of `build_onehot_cnf` that produced the proof
    (see ONEHOT_DOMAINS); `lemmas_used`: lemmas the backward checker had to verify.
    """

    m_star: int
    lower: CheckResult
    upper: CheckResult
    backward: bool
    cells: bool
    vars: int
    clauses: int
    build_seconds: float
    solve_seconds: float
    proof_lines: int
    proof_bytes: int
    lemmas_used: int
    check_seconds: float
    sat_solve_seconds: float
    drup: DrupResult | None


def _domain_words(cnf: OneHotCnf) -> str:
    parts = ["per-axis forward kinematics"]
    if cnf.backward:
        parts.append("per-axis backward bound")
    if cnf.cells:
        parts.append("speed-capped cell relaxation")
    return " + ".join(parts)


def judge_onehot_lower(cnf: OneHotCnf, res: OneHotSolve, m_star: int, track: Track,
                       started: float) -> tuple[CheckResult, DrupResult | None]:
    """The lower-bound verdict on a solver's answer for T = m*-1: its DRUP proof is checked.

    Kept apart from solving so that a test can hand it a corrupted proof: a rejected proof
    (or a satisfiable CNF) is a disagreement, never an agreement.
    """
    method = f"SAT ({res.solver}) on the one-hot CNF + DRUP check (racecert.independent.drup)"
    T = cnf.horizon
    size = (f"T = {T}: {cnf.nvars:,} vars, {len(cnf.clauses):,} clauses "
            f"(domain: {_domain_words(cnf)})")
    if res.satisfiable:
        where = f"; its model does not decode: {res.decode_error}"
        if res.positions is not None:
            ok, why = Geometry(track).replay(list(res.positions))
            where = f"; its trajectory of {len(res.positions) - 1} moves replays: {why}"
        return CheckResult(LOWER_ONEHOT, m_star, method, f"arrives within {T}",
                           Verdict.DISAGREE,
                           f"{size} is satisfiable{where}",
                           time.perf_counter() - started), None
    proof = f"proof {len(res.proof_lines):,} lines, {res.proof_bytes:,} bytes"
    arte = [("proof", res.proof_path or "(not written)"),
            ("proof lines", str(len(res.proof_lines))), ("proof bytes", str(res.proof_bytes)),
            ("domain", cnf.domain)]
    if res.proof_bytes > ONEHOT_MAX_PROOF_BYTES:
        return CheckResult(LOWER_ONEHOT, m_star, method, None, Verdict.SKIPPED,
                           f"{size}; {proof}: over the proof checker's size budget of "
                           f"{ONEHOT_MAX_PROOF_BYTES:,} bytes, not checked",
                           time.perf_counter() - started, tuple(arte),
                           timings=(("solve", res.seconds),)), None
    drup = check_drup(cnf.clauses, list(res.proof_lines))
    arte += [("proof check", "verified" if drup.verified else "rejected"),
             ("lemmas checked", f"{drup.lemmas_checked} of {drup.lemmas}")]
    why = f"{size} UNSAT; {proof}; checker: {drup.reason}"
    if drup.verified and drup.lemmas_checked == 0:
        why += " (no lemma needed: the formula is refuted by unit propagation alone)"
    return CheckResult(LOWER_ONEHOT, m_star, method,
                       f"> {T}" if drup.verified else "unproven",
                       Verdict.AGREE if drup.verified else Verdict.DISAGREE, why,
                       time.perf_counter() - started, tuple(arte),
                       timings=(("solve", res.seconds), ("proof check", drup.seconds))), drup


def _onehot_upper(track: Track, rows: Sequence[tuple[int, ...]], m_star: int,
                  solver: str) -> tuple[CheckResult, float]:
    """T = m*: the one-hot CNF admits a real trajectory, replayed by the independent geometry."""
    t0 = time.perf_counter()
    cnf = build_onehot_cnf(track, rows, m_star)
    res = solve_onehot(cnf, solver)
    method = f"SAT ({solver}) on the one-hot CNF + geometry replay"
    if not res.satisfiable or res.positions is None:
        why = (f"the model does not decode: {res.decode_error}" if res.satisfiable else
               f"the one-hot CNF admits no trajectory within {m_star} moves")
        return CheckResult(UPPER_ONEHOT, m_star, method, "unsatisfiable" if not res.satisfiable
                           else "undecodable", Verdict.DISAGREE, why,
                           time.perf_counter() - t0), res.seconds
    ok, why = Geometry(track).replay(list(res.positions))
    moves = len(res.positions) - 1
    return CheckResult(UPPER_ONEHOT, m_star, method, moves,
                       Verdict.AGREE if ok and moves == m_star else Verdict.DISAGREE,
                       f"model trajectory of {moves} moves replayed: {why}; positions "
                       + " ".join(f"({x},{y})" for x, y in res.positions),
                       time.perf_counter() - t0), res.seconds


def onehot_certificate(track: Track, m_star: int, out_dir: str | Path | None = None,
                       solver: str = "glucose4", table: MoveTable | None = None,
                       reachable_at_least: int = 0) -> OneHotCertificate:
    """The one-hot lower bound (checked proof at T = m*-1) and upper bound (replay at m*).

    The domains of ONEHOT_DOMAINS are tried strongest first; a weaker one only when the
    stronger one's proof is empty, so the certificate holds a proof with lemmas wherever
    one of them needs search (when none does, the strongest is reported).
    """
    if m_star < 2:
        raise ValueError("m* must be at least 2 for a lower bound at m*-1")
    if table is None:
        table = race_table(track, reachable_at_least)
    proof_path = proof_target(out_dir, f"{track_slug(track.name)}-onehot-T{m_star - 1}.drup")
    t0 = time.perf_counter()
    tried: list[tuple[OneHotCnf, OneHotSolve, float]] = []
    for backward, cells in ONEHOT_DOMAINS:
        tb = time.perf_counter()
        cnf = build_onehot_cnf(track, table.rows, m_star - 1, backward=backward, cells=cells)
        build_s = time.perf_counter() - tb
        res = solve_onehot(cnf, solver)
        tried.append((cnf, res, build_s))
        if res.satisfiable or res.proof_lines:
            break
    else:  # every domain is refuted by unit propagation alone: report the strongest
        cnf, res, build_s = tried[0]
    if proof_path is not None and not res.satisfiable:
        proof_path.write_text("".join(line + "\n" for line in res.proof_lines))
        write_dimacs(cnf.clauses, proof_path.with_suffix(".cnf"))
    res = replace(res, proof_path=None if res.satisfiable or proof_path is None
                  else str(proof_path))
    lower, drup = judge_onehot_lower(cnf, res, m_star, track, t0)
    upper, sat_s = _onehot_upper(track, table.rows, m_star, solver)
    return OneHotCertificate(m_star, lower, upper, cnf.backward, cnf.cells, cnf.nvars,
                             len(cnf.clauses), build_s, res.seconds, len(res.proof_lines),
                             res.proof_bytes, drup.lemmas_checked if drup else 0,
                             drup.seconds if drup else 0.0, sat_s, drup)


def sat_checks(track: Track, bfs: BfsResult, out_dir: str | Path | None = None,
               reachable_at_least: int = 0) -> list[CheckResult]:
    """The SAT checks of certify: reachability-cut lower bound (checked DRUP proof) and upper
    bound (replay), then the one-hot lower and upper bounds (`onehot_checks`).

    Not applicable when the track is unreachable; `skipped` past the size budgets (the
    move table's closure, the CNF's closure states x steps), `timeout` past the conflict
    budget. Lower bounds are `CHECKED_PROOF`s, upper bounds (replayed models) `SOLVER_MODEL`s.
    """
    if not bfs.reachable or bfs.m_star is None:
        return [CheckResult("m*", "unreachable", "SAT", None, Verdict.NOT_APPLICABLE,
                            "the BFS reports no arrival; nothing to bound", 0.0, kind=PROVED)]
    try:
        cert = sat_certificate(track, bfs.m_star, out_dir,
                               reachable_at_least=reachable_at_least)
        cut = [cert.lower, cert.upper]
    except SizeBudgetExceeded as exc:
        cut = [CheckResult(LOWER_CUT, bfs.m_star, "SAT", None, Verdict.SKIPPED, str(exc), 0.0)]
    except SolverBudgetExceeded as exc:
        cut = [CheckResult(LOWER_CUT, bfs.m_star, "SAT", None, Verdict.TIMEOUT, str(exc), 0.0)]
    return [_kinded(r) for r in (*cut, *onehot_checks(track, bfs, out_dir,
                                                       reachable_at_least))]


def _kinded(r: CheckResult) -> CheckResult:
    """A lower bound (a refutation with a checked proof) or an upper bound (a replayed
    model, no proof) with its method kind."""
    return r if r.kind is not None else replace(
        r, kind=MODEL if r.figure in (UPPER_CUT, UPPER_ONEHOT) else PROVED)


def onehot_checks(track: Track, bfs: BfsResult, out_dir: str | Path | None = None,
                  reachable_at_least: int = 0) -> list[CheckResult]:
    """The one-hot lower and upper bounds of m*; not applicable beyond ONEHOT_MAX_MSTAR."""
    m = bfs.m_star
    method = "SAT on the one-hot CNF + DRUP check"
    if not bfs.reachable or m is None:
        return [CheckResult(LOWER_ONEHOT, None, method, None, Verdict.NOT_APPLICABLE,
                            "the BFS reports no arrival; nothing to bound", 0.0)]
    if m > ONEHOT_MAX_MSTAR:
        return [CheckResult(LOWER_ONEHOT, m, method, None, Verdict.SKIPPED,
                            f"m* = {m}, over the one-hot encoding's size budget of m* <= "
                            f"{ONEHOT_MAX_MSTAR} (time steps)", 0.0)]
    if m < 2:
        return [CheckResult(LOWER_ONEHOT, m, method, None, Verdict.NOT_APPLICABLE,
                            "m* = 1: no shorter horizon to refute", 0.0)]
    try:
        cert = onehot_certificate(track, m, out_dir, reachable_at_least=reachable_at_least)
    except SizeBudgetExceeded as exc:
        return [CheckResult(LOWER_ONEHOT, m, method, None, Verdict.SKIPPED, str(exc), 0.0)]
    except SolverBudgetExceeded as exc:
        return [CheckResult(LOWER_ONEHOT, m, method, None, Verdict.TIMEOUT, str(exc), 0.0)]
    return [cert.lower, cert.upper]


def check_sat(ctx: CertifyContext) -> list[CheckResult]:
    """certify's entry point: the SAT checks of the exact key's m*."""
    m = ctx.exact.m_star
    ctx.report(f"SAT lower bounds at T = m*-1 = {m - 1 if m else '-'} (conflict budget "
               f"{DEFAULT_CONFLICT_BUDGET:,} per solve) with DRUP proof checks, upper "
               "bounds replayed")
    return sat_checks(ctx.track, ctx.exact, ctx.out_dir, closure_floor(ctx))


