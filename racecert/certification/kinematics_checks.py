"""m* by CP-SAT over integer kinematics with counterexample cuts, at any grid size.

The table model of `checks_cpsat.check_m_star` needs every reachable move as a row and is
skipped past its size budget (open 200 x 200, a 5000 x 5 corridor). This check poses the
same question over integer positions and velocities (`racecert.independent.kinematics`):
the relaxation has no arrival within m* - 1 moves (a lower bound: every valid trajectory
is one of its solutions) and, at m*, a solution that the independent geometry replays as
a valid trajectory first arriving at move m* (the upper bound). Solutions that do not
replay are refined away (a family of conditions at every step: no standstill, the sample
family whose point of the invalid move lies off the track, a line wall; else a cut of the
move) and solved again, within one deterministic budget; where
no sound cut exists (a move invalid only on its layer, on tracks with a bridge) or the
cuts or families run out, the check says so and confirms nothing.

Where CP-SAT refutes T = m* - 1, the same model (with the same families and cuts) is
written as a CNF (`racecert.independent.kinematics_cnf`, order encoding) and solved again
with a proof-logging SAT solver; its DRUP proof, checked by `racecert.independent.drup`,
makes the lower bound a checked proof rather than CP-SAT's word (a second result, "m*
lower bound, kinematics CNF"). Where the full model runs out of its conflicts, the light
model (`kinematics.light`: the costlier axis's velocity free, no midpoints; a relaxation
of the full model, so its refutation is as good a lower bound) is tried with
`KINEMATICS_LIGHT_CONFLICTS` more: llanura (m* = 69) gets its checked proof that way. Its
budgets: those conflicts (a work budget: `timeout`) and the CNF's size (`skipped`, with
the size).
"""

from __future__ import annotations

import time

from racecert.certification.context import CertifyContext, CheckResult, MethodKind, Verdict
from racecert.certification.proof_files import NOT_WRITTEN, proof_target, track_slug
from racecert.independent.budgets import SizeBudgetExceeded
from racecert.independent.geometry import Geometry
from racecert.independent.kinematics import (
    MAX_CUTS,
    MAX_SAMPLES,
    NO_FAMILIES,
    Cut,
    Families,
    KinematicsModel,
    Refinement,
    light,
    refine,
)
from racecert.independent.kinematics_cnf import SatSolve, sat_backend
from racecert.model.track import Track

METHOD = ("CP-SAT integer kinematics (positions, velocities, end cells, line crossings; "
          "moves that replay invalid cut off)")
SAT_FIGURE = "m* lower bound, kinematics CNF"
SAT_METHOD = ("SAT (glucose4) on the integer kinematics as an order-encoded CNF, with "
              "CP-SAT's cuts + DRUP check")
KINEMATICS_SAT_CONFLICTS = 5_000
"""Conflicts the CNF's refinement may use at T = m* - 1 (a deterministic work budget):
open areas need none (unit propagation refutes them), the small bundled tracks at most
about 620 (tiny_spiral_stage), 4_esquinas 288; llanura (m* = 69) about 9,300, where the
light model does with 4,700 and a fifth of the clauses; espiral (m* = 58) about 20,000,
where checking the proof would cost some 15 s and the reachability-cut CNF already gives
a checked proof: there this check (and the light model) stops after about two seconds
with `timeout`."""
KINEMATICS_LIGHT_CONFLICTS = 10_000
"""Conflicts the light model's refinement (`kinematics.light`) may use where the full
model ran out of `KINEMATICS_SAT_CONFLICTS`, starting from its cuts and families (a
deterministic work budget): llanura (m* = 69) needs 4,667 (106,896 clauses, a proof of
8,429 lines checked in about 3 s)."""


def _work(*parts: Refinement) -> str:
    solves = sum(r.solves for r in parts)
    spent = sum(r.work for r in parts)
    return (f"{_n(solves, 'solve')}, {_refined(parts[-1])}, {spent:.2f} "
            f"{parts[-1].unit}")


def _refined(r: Refinement) -> str:
    """'3 cuts', or '3 cuts, 1 sample family, no standstill' where the refinement added
    families (`Families.describe`)."""
    families = r.families.describe()
    return _n(len(r.cuts), "cut") + (f", {families}" if families else "")


def _n(count: int, noun: str) -> str:
    """'1 solve', '3 solves'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def check_m_star_kinematics(ctx: CertifyContext) -> list[CheckResult]:
    """m* by the kinematics relaxation: nothing within m* - 1 moves, a replayed witness
    at m*; `skipped` where the model is over its size budget."""
    try:
        return _check(ctx)
    except SizeBudgetExceeded as e:
        b = ctx.exact
        return [CheckResult("m*", b.m_star, METHOD, None, Verdict.SKIPPED, str(e), 0.0)]


def _check(ctx: CertifyContext) -> list[CheckResult]:
    t0 = time.perf_counter()
    track, b = ctx.track, ctx.exact

    sat: list[CheckResult] = []

    def result(value: object, verdict: Verdict, reason: str, *parts: Refinement,
               arte: tuple[tuple[str, str], ...] = ()) -> list[CheckResult]:
        return [CheckResult("m*", b.m_star, METHOD, value, verdict, reason,
                            time.perf_counter() - t0, arte,
                            work=_work(*parts) if parts else ""), *sat]

    if not b.reachable or not b.m_star:
        return result(None, Verdict.NOT_APPLICABLE, "the finish is unreachable: the "
                      "relaxation bounds m* only within a horizon")
    m, g = b.m_star, Geometry(track)
    model = KinematicsModel.of(track, m, g)  # built once for both horizons
    budget = ctx.cpsat_budget
    parts: list[Refinement] = []
    cuts: tuple[Cut, ...] = ()
    families = NO_FAMILIES
    if m >= 2:
        ctx.report(f"CP-SAT kinematics at T = {m - 1} (budget {budget:g} deterministic time "
                   f"units, at most {MAX_CUTS} cuts and {MAX_SAMPLES} sample families)",
                   0, None)
        below = refine(track, m - 1, budget=budget, workers=ctx.workers, geometry=g,
                       model=model)
        parts.append(below)
        if below.status == "feasible":
            return result(f"<= {len(below.positions) - 1}", Verdict.DISAGREE,
                          f"a valid trajectory arriving within {m - 1} moves (replayed by "
                          "the independent geometry)", below,
                          arte=(("witness", str(below.positions)),))
        if below.status != "infeasible":  # unknown (its budget) or stuck (no sound cut)
            sat.append(CheckResult(SAT_FIGURE, m, SAT_METHOD, None, Verdict.TIMEOUT,
                                   "not attempted: CP-SAT's refinement at T = "
                                   f"{m - 1} found no refuting set of cuts ({below.reason})",
                                   0.0, kind=MethodKind.CHECKED_PROOF))
            return result(None, Verdict.TIMEOUT, f"at T = {m - 1}: {below.reason}", below)
        cuts, families = below.cuts, below.families
        sat.append(sat_lower_bound(ctx, track, g, model, m, cuts, families))
    spent = sum(r.work for r in parts)
    at = refine(track, m, budget=max(budget - spent, 0.0), workers=ctx.workers, cuts=cuts,
                families=families, geometry=g, model=model)
    parts.append(at)
    if at.status == "infeasible":
        return result(f"> {m}", Verdict.DISAGREE, f"no arrival within {m} moves even in the "
                      "relaxation", *parts)
    if at.status != "feasible":
        return result(f">= {m}" if m >= 2 else None, Verdict.TIMEOUT,
                      f"no arrival within {m - 1} moves; at T = {m}: {at.reason}", *parts)
    moves = len(at.positions) - 1
    arte = (("witness", str(at.positions)),
            ("witness replay (independent geometry)", "ok"))
    if moves != m:
        return result(moves, Verdict.DISAGREE, f"a valid trajectory arriving in {moves} "
                      "moves (replayed by the independent geometry)", *parts, arte=arte)
    return result(m, Verdict.AGREE, f"the relaxation has no arrival within {m - 1} moves; "
                  f"a witness at {m} replayed", *parts, arte=arte)


def sat_lower_bound(ctx: CertifyContext, track: Track, g: Geometry, model: KinematicsModel,
                    m: int, cuts: tuple[Cut, ...], families: Families = NO_FAMILIES
                    ) -> CheckResult:
    """The lower bound again, by SAT with a checked DRUP proof over the same model, cuts
    and families (more of them if the SAT solver finds a relaxed solution that CP-SAT did
    not); where that runs out of its conflicts, over the light model (`kinematics.light`)
    with `KINEMATICS_LIGHT_CONFLICTS` more."""
    t0 = time.perf_counter()
    ctx.report(f"SAT kinematics CNF at T = {m - 1} ({_n(len(cuts), 'cut')}"
               f"{', ' + families.describe() if families.describe() else ''}, budget "
               f"{KINEMATICS_SAT_CONFLICTS:,} conflicts) with a DRUP proof check", 0, None)
    record: list[SatSolve] = []
    path = proof_target(ctx.out_dir, f"{track_slug(track.name)}-kinematics-T{m - 1}.drup")

    def out(value: object, verdict: Verdict, reason: str, work: str = "",
            arte: tuple[tuple[str, str], ...] = ()) -> CheckResult:
        return CheckResult(SAT_FIGURE, m, SAT_METHOD, value, verdict, reason,
                           time.perf_counter() - t0, arte, work=work,
                           kind=MethodKind.CHECKED_PROOF)

    def attempt(on: KinematicsModel, budget: int, cuts: tuple[Cut, ...],
                families: Families) -> Refinement:
        return refine(track, m - 1, budget=budget, cuts=cuts, families=families, geometry=g,
                      model=on, backend=sat_backend(record=record, proof_path=path))

    try:
        r = attempt(model, KINEMATICS_SAT_CONFLICTS, cuts, families)
        parts = [r]
        if r.status == "unknown" and not any(s.rejected for s in record):
            lm = light(model)
            ctx.report(f"SAT kinematics CNF at T = {m - 1}, the light model ({lm.free_axes} "
                       f"velocity free, no midpoints; budget "
                       f"{KINEMATICS_LIGHT_CONFLICTS:,} conflicts)", 0, None)
            r = attempt(lm, KINEMATICS_LIGHT_CONFLICTS, r.cuts, r.families)
            parts.append(r)
    except SizeBudgetExceeded as e:
        return out(None, Verdict.SKIPPED, str(e))
    last = record[-1] if record else None
    spent = sum(p.work for p in parts)
    work = (f"{_n(sum(p.solves for p in parts), 'solve')}, {_refined(r)}, {spent:,.0f} "
            "conflicts")
    if len(parts) > 1:
        work += f" (the light model: {r.work:,.0f}, {lm.free_axes} velocity free)"
    if last is not None:
        work += (f"; CNF {last.nvars:,} vars, {last.clauses:,} clauses; proof "
                 f"{last.proof_lines:,} lines, {last.proof_bytes:,} bytes")
    if r.status == "feasible":
        return out(f"<= {len(r.positions) - 1}", Verdict.DISAGREE,
                   f"a valid trajectory arriving within {m - 1} moves (a SAT model replayed "
                   "by the independent geometry)", work, (("witness", str(r.positions)),))
    if last is not None and last.rejected:  # a rejected proof ends the refinement
        return out("unproven", Verdict.DISAGREE, f"at T = {m - 1} the solver answered UNSAT "
                   f"but its DRUP proof was rejected ({last.checker})", work,
                   (("proof", str(path) if path else NOT_WRITTEN),
                    ("proof check", "rejected")))
    if r.status != "infeasible":
        reasons = "; then ".join(p.reason for p in parts)
        return out(None, Verdict.TIMEOUT, f"at T = {m - 1}: {reasons}", work)
    checker = last.checker if last is not None else ""
    model_note = (f" (the light model: {lm.free_axes} velocity free, no midpoints, after "
                  f"the full model used its {KINEMATICS_SAT_CONFLICTS:,} conflicts)"
                  if len(parts) > 1 else "")
    return out(f"> {m - 1}", Verdict.AGREE, f"T = {m - 1} UNSAT{model_note}; DRUP proof "
               f"checked ({checker})", work, (("proof", str(path) if path else NOT_WRITTEN),
                                              ("proof check", "verified")))
