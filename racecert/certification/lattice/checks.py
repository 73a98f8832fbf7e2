"""The checks of a lattice certificate: each compares the lattice analysis (the oracle:
`LatticeRules` + `layered_bfs` + `RepresentativeDP`) with independent machinery.

- move validity: every move from the reachable states (capped), the profile's vectorised
  `expand` against the independent `LatticeGeometry` (validity, finish, net lap count),
  over the track's acceleration set as the independent side states it;
- m* by CP-SAT: no finish within m* - 1 moves, a witness at m* replayed by the
  independent geometry (tracks whose move table fits `MAX_TABLE_CANDIDATES`);
- the independent search (`count_trajectories`): m*, the exact count per start, the
  final states, and the least and greatest lengths with their ties.
"""

from __future__ import annotations

import time
from dataclasses import astuple
from itertools import repeat
from typing import Any

import numpy as np

from racecert.analysis.lattice.pipeline import LatticeAnalysis
from racecert.certification.context import (
    CertifyContext,
    CheckResult,
    MethodKind,
    NamedCheck,
    Verdict,
)
from racecert.independent.lattice.cpsat import build_table, solve, table_candidates
from racecert.independent.lattice.geometry import LatticeGeometry
from racecert.independent.lattice.search import SearchResult, count_trajectories
from racecert.independent.race_rules import lattice_accels
from racecert.independent.radical_forms import Sum
from racecert.model.cellpath.track import CellPathTrack
from racecert.model.lattice.rules import LatticeRules
from racecert.model.lattice.track import LatticeTrack, Point
from racecert.model.radicals import RadicalSum
from racecert.model.rules import StateArrays
from racecert.oracle.bfs import BfsResult

MAX_TABLE_CANDIDATES = 2_000_000
"""Above this many candidate moves the CP-SAT table is not built: a size budget, the check
says `skipped` with the count."""
CPSAT = "CP-SAT time-indexed model (move table: independent lattice geometry)"
SEARCH = "independent layered search (racecert.independent.lattice.search, exact ints)"
GEOMETRY = "racecert.independent.lattice.geometry (parametric segments, discriminants)"


SEARCH_MAX_STATES = 5_000_000
"""The independent search's state budget on lattice and cell-path tracks unless a user
says otherwise (`CertifyContext.max_states`)."""


def lattice_context(analysis: LatticeAnalysis, **limits: Any) -> CertifyContext:
    """The checks' context for a lattice or cell-path `analysis`: its track and BFS, no
    editor key, `limits` (`CertifyContext`'s fields) over this profile's defaults."""
    return CertifyContext(analysis.track, analysis.bfs, None, analysis=analysis,
                          **{"max_states": SEARCH_MAX_STATES, **limits})


def lattice_of(ctx: CertifyContext) -> tuple[Any, LatticeAnalysis]:
    """The track and the `LatticeAnalysis` of a start-list profile's context."""
    if not isinstance(ctx.analysis, LatticeAnalysis):
        raise TypeError("a lattice or cell-path check needs the context of a LatticeAnalysis "
                        "(lattice_context)")
    return ctx.track, ctx.analysis


def starts_text(track: LatticeTrack, starts: list[tuple[Point, int]]) -> str:
    """'(x, y): count; ...' in file coordinates: the optimal starts and their counts."""
    return "; ".join(f"{track.to_file(p)}: {c}" for p, c in starts)


def oracle_starts(a: LatticeAnalysis) -> str:
    return starts_text(a.track, [(s.position, s.optimal_count) for s in a.starts])


# -- move validity -----------------------------------------------------------------------


def reachable_states(rules: LatticeRules, starts: list, cap: int, depth: int
                      ) -> tuple[StateArrays, bool]:
    """Up to `cap` states reachable from `starts` within `depth` - 1 moves, breadth first
    (arrivals not continued): the states the oracle's BFS expanded; whether that is all
    of them. Each layer's new states come in the order `expand` first gives them (as
    plain tuples of the seven fields, read from the arrays at once)."""
    seen = {astuple(s) for s in starts}
    layer = StateArrays.of(list(starts))
    parts = [layer]
    count = len(layer)
    for _ in range(depth - 1):
        if not len(layer):
            break
        succ = rules.expand(layer).succ
        nxt = []
        for i, s in enumerate(zip(*(a.tolist() for a in succ.fields()), strict=True)):
            if s not in seen:
                seen.add(s)
                nxt.append(i)
        layer = succ.take(np.array(nxt[: cap - count], dtype=np.int64))
        parts.append(layer)
        count += len(layer)
        if len(nxt) > len(layer):
            return StateArrays.concat(parts), False
    return StateArrays.concat(parts), True


def check_geometry(ctx: CertifyContext) -> list[CheckResult]:
    """Every acceleration from the reachable states: expand vs the independent geometry.

    The candidates on the independent side come from its own statement of the track's
    acceleration set (`race_rules.lattice_accels`), so an oracle that used another set
    (a diagonal move on a von Neumann track, a missing one on a Moore track) differs."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    rules = LatticeRules(track)
    geo = LatticeGeometry(track)
    states, complete = reachable_states(
        rules, [rules.state_at(p) for p in a.considered], ctx.geometry_max_states,
        a.bfs.depth_explored)
    exp = rules.expand(states)
    s, arr = exp.succ, exp.arrive_state
    ours = set(zip(exp.src.tolist(), s.x.tolist(), s.y.tolist(), s.vx.tolist(), s.vy.tolist(),
                   (s.phase.astype(np.int64) - rules.deficit).tolist(),
                   repeat(False, len(exp.src)), strict=True))
    ours |= set(zip(exp.arrive_src.tolist(), arr.x.tolist(), arr.y.tolist(), arr.vx.tolist(),
                    arr.vy.tolist(), repeat(None, len(exp.arrive_src)),
                    repeat(True, len(exp.arrive_src)), strict=True))
    n = len(states)
    accels = lattice_accels(track.accelerations)
    ax = np.array([c[0] for c in accels], dtype=np.int64)
    ay = np.array([c[1] for c in accels], dtype=np.int64)
    src = np.repeat(np.arange(n), len(accels))
    vx = (states.vx.astype(np.int64)[:, None] + ax).ravel()
    vy = (states.vy.astype(np.int64)[:, None] + ay).ravel()
    px, py = states.x.astype(np.int64)[src], states.y.astype(np.int64)[src]
    ok = np.flatnonzero(geo.valid_moves(px, py, px + vx, py + vy))
    code = geo.finish_codes(px[ok], py[ok], px[ok] + vx[ok], py[ok] + vy[ok])
    fin = track.finish
    net = states.phase.astype(np.int64)[src[ok]] - rules.deficit
    if fin.laps is not None:
        net = net + code
        arrive = net == fin.laps
    else:
        arrive = code == 1
    arrives = arrive.tolist()
    theirs = set(zip(src[ok].tolist(), (px + vx)[ok].tolist(), (py + vy)[ok].tolist(),
                     vx[ok].tolist(), vy[ok].tolist(),
                     [None if a else n for a, n in zip(arrives, net.tolist(), strict=True)],
                     arrives, strict=True))
    return [compare_moves("racecert.model.lattice.rules (vectorised expand)", GEOMETRY, ours,
                          theirs, n, len(accels), complete,
                          f"all {len(accels)} accelerations of the {track.accelerations} set",
                          "validity, finishing and the net lap count", t0)]


def compare_moves(oracle: str, method: str, ours: set, theirs: set, n: int, per_state: int,
                  complete: bool, accelerations: str, compared: str,
                  t0: float) -> CheckResult:
    """The move-validity result of a start-list profile: the oracle's valid moves `ours`
    (`per_state` tried from each of the `n` reachable states: all of them when `complete`,
    else the first `n`, breadth first) against the independent side's `theirs`, as sets of
    comparable tuples; the first ten differences as artefacts."""
    differ = ours ^ theirs
    diff = sorted(differ)[:10]
    scope = ("every state the BFS expanded" if complete
             else f"the first {n:,} states the BFS expanded (breadth first; capped)")
    return CheckResult(
        "move_validity", oracle, method,
        f"{per_state * n:,} moves from {n:,} states, {len(differ)} differ",
        Verdict.DISAGREE if diff else Verdict.AGREE,
        f"{accelerations} from {scope}: {compared}; {len(theirs):,} valid",
        time.perf_counter() - t0,
        tuple((f"difference {i + 1}", str(d)) for i, d in enumerate(diff)),
        work=f"{n:,} states")


# -- m* by CP-SAT ------------------------------------------------------------------------


def check_m_star_cpsat(ctx: CertifyContext) -> list[CheckResult]:
    """No finish within m* - 1 moves (infeasible), a replayed witness at exactly m*."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    b = a.bfs
    m = b.m_star

    def result(verdict: Verdict, value: object, reason: str, arte: tuple = ()) -> list[CheckResult]:
        return [CheckResult("m_star", m, CPSAT, value, verdict, reason,  # type: ignore[arg-type]
                            time.perf_counter() - t0, arte)]

    if m is None:
        return result(Verdict.NOT_APPLICABLE, None, "the oracle finds no finish: the independent "
                      "search checks that")
    size = table_candidates(track, m)
    if size > MAX_TABLE_CANDIDATES:
        return result(Verdict.SKIPPED, None, f"the move table would hold {size:,} candidate "
                      f"moves, over its size budget of {MAX_TABLE_CANDIDATES:,} candidate "
                      "moves")
    table = build_table(track, m)
    starts = list(a.considered)
    arte: tuple = (("table rows", str(len(table.rows))), ("table scope", table.scope))
    if m >= 2:
        below = solve(track, table, m - 1, starts, "within", budget=ctx.cpsat_budget,
                      workers=ctx.workers)
        if below.status == "unknown":
            return result(Verdict.TIMEOUT, None, f"CP-SAT used its budget of {ctx.cpsat_budget:g} "
                          f"deterministic time units at T = {m - 1} ({below.solver_status})",
                          arte)
        if below.status == "feasible":
            ok, why, _ = LatticeGeometry(track).replay(list(below.positions))
            return result(Verdict.DISAGREE, f"<= {len(below.positions) - 1}",
                          f"a finish within {m - 1} moves (replay: {why})",
                          arte + (("witness", str(below.positions)),))
    at = solve(track, table, m, starts, "exact", budget=ctx.cpsat_budget, workers=ctx.workers)
    if at.status == "unknown":
        return result(Verdict.TIMEOUT, None, f"CP-SAT used its budget of {ctx.cpsat_budget:g} "
                      f"deterministic time units at T = {m} ({at.solver_status})", arte)
    if at.status == "infeasible":
        return result(Verdict.DISAGREE, f"> {m}", f"no finish within {m - 1} moves and none at {m}",
                      arte)
    ok, why, first = LatticeGeometry(track).replay(list(at.positions))
    witness = [track.to_file(p) for p in at.positions]
    arte += (("witness", str(witness)), ("witness replay (independent geometry)", why))
    if not ok or first != m:
        return result(Verdict.DISAGREE, None, f"the CP-SAT witness does not replay: {why}", arte)
    return result(Verdict.AGREE, m, f"infeasible within {m - 1} moves, feasible at {m}; witness "
                  "replayed", arte)


# -- the independent search ------------------------------------------------------------


def _same_length(ours: RadicalSum, theirs: Sum) -> bool:
    return ours == RadicalSum.from_terms(theirs.items())


def check_search(ctx: CertifyContext) -> list[CheckResult]:
    """m*, counts, finals, optimal starts, green and blue by the independent search."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    r = count_trajectories(track, list(a.considered), max_states=ctx.max_states,
                           extremes=True)
    return search_results(track, a, r, time.perf_counter() - t0)


def search_results(track: LatticeTrack | CellPathTrack, a: LatticeAnalysis,
                   r: SearchResult, spent: float, method: str = SEARCH) -> list[CheckResult]:
    """The results of a profile's independent search `r` (its `SearchResult`: the lattice
    search's, or the cell-path search's of the same shape) against the analysis: timeouts
    when it did not finish, else reachability and, where both reach, every figure
    (`search_figures`), each result naming `method` (the search that ran)."""
    b = a.bfs
    work = f"{r.states:,} states"

    def res(figure: str, ours: object, theirs: object, equal: bool, reason: str
            ) -> CheckResult:
        return CheckResult(figure, ours, method, theirs,  # type: ignore[arg-type]
                           Verdict.AGREE if equal else Verdict.DISAGREE, reason, spent, work=work)

    if not r.complete:
        return [CheckResult(f, None, method, None, Verdict.TIMEOUT, r.reason, spent, work=work)
                for f in ("reachable", "m_star", "optimal_count")]
    out = [res("reachable", b.reachable, r.reachable, b.reachable == r.reachable, r.reason)]
    if not r.reachable or not b.reachable:
        return out
    return out + search_figures(track, a, b, r, res)


def search_figures(track: LatticeTrack, a: LatticeAnalysis, b: BfsResult, r: SearchResult, res
                ) -> list[CheckResult]:
    mine_starts = starts_text(track, [(p, c) for p, c in zip(r.starts, r.counts, strict=True)
                                      if c])
    finals = {k[:4]: c for k, c in b.final_state_list()}
    out = [
        res("m_star", b.m_star, r.m_star, b.m_star == r.m_star, r.reason),
        res("optimal_count", str(b.optimal_count), str(r.total), b.optimal_count == r.total,
            "every trajectory of m* moves from the searched starts, counted exactly"),
        res("final_states", b.final_states, len(r.finals),
            finals == r.finals, "distinct (x, y, vx, vy) after the finishing move, each with "
            "its count"),
        res("optimal_starts", oracle_starts(a), mine_starts, oracle_starts(a) == mine_starts,
            "the starts that finish in m* moves, each with its count"),
    ]
    for name, ext, mine in (("green", a.green, r.shortest), ("blue", a.blue, r.longest)):
        if ext is None or mine is None:  # both reach: each side must have the extreme
            who = "neither side" if ext is None and mine is None else "only one side"
            out += [res(f"{name}_{part}", None if ext is None else "present",
                        None if mine is None else "present", False,
                        f"{who} found a {name} trajectory") for part in ("length", "ties")]
            continue
        ours_text = str(ext.length)
        theirs_text = str(RadicalSum.from_terms(mine[0].items()))
        out.append(res(f"{name}_length", ours_text, theirs_text,
                       _same_length(ext.length, mine[0]),
                       "exact sums of square roots; equal iff identical canonical forms"))
        out.append(res(f"{name}_ties", str(ext.ties), str(mine[1]), ext.ties == mine[1],
                       f"optimal trajectories of exactly the {name} length"))
    return out


CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity: the profile's expand vs the independent lattice geometry",
               check_geometry, MethodKind.SECOND_IMPLEMENTATION),
    NamedCheck("m* by CP-SAT: nothing within m*-1 moves, a replayed witness at m*",
               check_m_star_cpsat, MethodKind.SOLVER_MODEL),
    NamedCheck("independent search: m*, exact counts, finals, green and blue", check_search,
               MethodKind.SECOND_IMPLEMENTATION),
)
"""The lattice profile's checks, in order (`racecert.certification.profiles` registers
them): the same `NamedCheck`s over the same `CertifyContext` as the grid's
(`lattice_context`)."""
