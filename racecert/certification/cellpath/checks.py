"""The checks of a cell-path certificate: the analysis (the oracle: `CellPathRules` +
`layered_bfs` + `RepresentativeDP`) against the independent cell-path machinery.

- move validity: every acceleration from the reachable states (capped), the profile's
  vectorised `expand` against the independent walk (`racecert.independent.cellpath.walk`,
  exact rationals): validity, arrival and the state the move ends in;
- the independent search (`racecert.independent.cellpath.search`): m*, the exact count
  per start, the final states, and the least and greatest lengths with their ties.

No solver model covers this profile yet: m* and the counts are confirmed by the second
implementation only, and the certificate's headline says so.
"""

from __future__ import annotations

import time

from racecert.certification.context import (
    CertifyContext,
    CheckResult,
    MethodKind,
    NamedCheck,
    Verdict,
)
from racecert.certification.lattice.checks import lattice_of, reachable_states, search_results
from racecert.independent.cellpath.search import count_trajectories
from racecert.independent.cellpath.walk import accelerations, successor
from racecert.model.cellpath.rules import CellPathRules

WALK = "racecert.independent.cellpath.walk (exact rational ticks)"
SEARCH = "independent cell-path search (racecert.independent.cellpath.search, dicts, exact ints)"


def check_geometry(ctx: CertifyContext) -> list[CheckResult]:
    """Every acceleration from the reachable states: expand vs the independent walk."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    rules = CellPathRules(track)
    states, complete = reachable_states(
        rules, [rules.state_at(p) for p in a.considered], ctx.geometry_max_states,
        a.bfs.depth_explored)
    exp = rules.expand(states)
    ours = {(int(i), int(s.x[j]), int(s.y[j]), int(s.vx[j]), int(s.vy[j]), arrives)
            for s, src, arrives in ((exp.succ, exp.src, False),
                                    (exp.arrive_state, exp.arrive_src, True))
            for j, i in enumerate(src)}
    theirs = set()
    accs = accelerations(track)
    for i in range(len(states)):
        s = (int(states.x[i]), int(states.y[i]), int(states.vx[i]), int(states.vy[i]))
        for acc in accs:
            r = successor(track, s, acc)
            if r is not None:
                theirs.add((i, *r[0], r[1]))
    diff = sorted(ours ^ theirs)[:10]
    n = len(states)
    scope = ("every state the BFS expanded" if complete
             else f"the first {n:,} states the BFS expanded (breadth first; capped)")
    return [CheckResult(
        "move_validity", "racecert.model.cellpath.rules (vectorised expand)", WALK,
        f"{len(accs) * n:,} moves from {n:,} states, {len(ours ^ theirs)} differ",
        Verdict.DISAGREE if diff else Verdict.AGREE,
        f"all {len(accs)} accelerations from {scope}: validity, arrival and the end state; "
        f"{len(theirs):,} valid", time.perf_counter() - t0,
        tuple((f"difference {i + 1}", str(d)) for i, d in enumerate(diff)),
        work=f"{n:,} states")]


def check_search(ctx: CertifyContext) -> list[CheckResult]:
    """m*, counts, finals, optimal starts, green and blue by the independent search."""
    t0 = time.perf_counter()
    track, a = lattice_of(ctx)
    r = count_trajectories(track, list(a.considered), max_states=ctx.max_states)
    return search_results(track, a, r, time.perf_counter() - t0, SEARCH)  # type: ignore[arg-type]


CHECKS: tuple[NamedCheck, ...] = (
    NamedCheck("move validity: the profile's expand vs the independent cell-path walk",
               check_geometry, MethodKind.SECOND_IMPLEMENTATION),
    NamedCheck("independent cell-path search: m*, exact counts, finals, green and blue",
               check_search, MethodKind.SECOND_IMPLEMENTATION),
)
"""The cell-path profile's checks, in order (`racecert.certification.profiles` registers
them; its certificate is the start-list one, `LatticeCertificate`)."""
