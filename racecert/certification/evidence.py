"""Independent evidence several checks use, computed once per track and budget.

The independent search is the most expensive piece of a certificate; the count,
final-state and continuity checks all read it, so it is cached here (keyed by the
frozen `Track` and the state budget) instead of one check importing another.
`continuable_counts` turns per-final-state continuation verdicts (CP-SAT's or the
SAT models') into the continuable-trajectory figures, from the same search.
"""

from __future__ import annotations

from functools import lru_cache

from racecert.certification.context import CertifyContext
from racecert.independent.search import SearchResult, explore
from racecert.model.track import Track


@lru_cache(maxsize=4)
def independent_search(track: Track, max_states: int) -> SearchResult:
    """`racecert.independent.search.explore` in the exact key, from the configured car."""
    return explore(track, "exact", max_states=max_states)


def continuable_counts(ctx: CertifyContext, race: bool,
                       verdicts: dict[tuple[int, ...], bool]) -> tuple[int | None, int | None]:
    """The oracle's continuable count (race rule or editor certification) and the same
    figure from independent pieces: the independent search's arrival counts summed over
    the arrivals whose arrived state the `verdicts` continue (None when a piece is missing).

    `verdicts` is keyed by the arrived state (x, y, vx, vy, layer, progress, phase), with
    progress 0 for the editor certification and phase min(m*, K).
    """
    a = ctx.analysis
    c = None if a is None else a.continuity
    oracle = None if c is None or not c.applicable else (
        c.continuable_count if race else c.continuable_count_editor)
    res = independent_search(ctx.track, ctx.max_states)
    dag = res.dag
    if dag is None or res.m_star is None:
        return oracle, None
    k = ctx.track.opening.moves if ctx.track.opening else 0
    phase = min(res.m_star, k)
    total = 0
    for i in range(len(dag.arrive_src)):
        key = (int(dag.arrive_x[i]), int(dag.arrive_y[i]), int(dag.arrive_vx[i]),
               int(dag.arrive_vy[i]), int(dag.arrive_layer[i]),
               int(dag.arrive_progress[i]) if race else 0, phase)
        if key not in verdicts:
            return oracle, None
        if verdicts[key]:
            total += int(dag.arrival_counts[i])
    return oracle, total
