"""Independent evidence several checks use, computed once per track and budget.

The independent search is the most expensive piece of a certificate; the count,
final-state and continuity checks all read it, so it is cached here (keyed by the
frozen `Track` and the state budget) instead of one check importing another.
`continuable_counts` turns per-final-state continuation verdicts (CP-SAT's or the
SAT models') into the continuable-trajectory figures, from the same search.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from racecert.certification.context import CertifyContext
from racecert.independent.search import ProgressFn, SearchResult, explore
from racecert.model.track import Track


class Uncached:
    """A value handed through a cached function without being part of its key: every
    `Uncached` equals every other, so a progress callback does not defeat the cache (the
    first caller's callback sees the work; a later caller gets the cached result)."""

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Uncached)

    def __hash__(self) -> int:
        return 0


def search_progress(ctx: CertifyContext, what: str) -> ProgressFn:
    """A search's per-layer report as the running check's work: stored states against the
    state budget, with `expected_states` as the total where it is known."""
    expected = expected_states(ctx)

    def report(depth: int, states: int) -> None:
        ctx.report(f"{what}: depth {depth}, {states:,} states stored (state budget "
                   f"{ctx.max_states:,})", states, expected)

    return report


def expected_states(ctx: CertifyContext) -> int | None:
    """How many states an exact-key search within m* stores, known in advance when the
    editor key is the exact key (no opening rule): the editor-key BFS's, which is not
    pruned (the analysis's BFS is); None otherwise, or on an unreachable track. Only the
    progress display's estimate uses it."""
    op = ctx.track.opening
    if (op is not None and op.moves > 0) or not ctx.editor.reachable:
        return None
    return ctx.editor.states_explored


def independent_search(track: Track, max_states: int,
                       progress: ProgressFn | None = None) -> SearchResult:
    """`racecert.independent.search.explore` in the exact key, from the configured car
    (cached per track and budget; `progress` sees the work when it is done)."""
    return _search(track, max_states, Uncached(progress))


@lru_cache(maxsize=4)
def _search(track: Track, max_states: int, progress: Uncached) -> SearchResult:
    report, progress.value = progress.value, None  # the cache keeps the key, not the display
    return explore(track, "exact", max_states=max_states, progress=report)


def closure_floor(ctx: CertifyContext) -> int:
    """A lower bound on the states (x, y, vx, vy, layer) of the reachable-move closure from
    the car (`racecert.independent.movetable.race_table`), from the independent search:
    its stored states are distinct and reached by valid moves, and each (x, y, vx, vy,
    layer) stands for at most 2 (K + 1) of them (progress 0 or 1, opening phase 0..K).
    A closure known to be over its budget is then refused without building it."""
    res = independent_search(ctx.track, ctx.max_states)
    k = ctx.track.opening.moves if ctx.track.opening else 0
    return -(-res.states_explored // (2 * (k + 1)))


def clear_search_cache() -> None:
    """Forget the cached searches (a test that changes a budget's outcome)."""
    _search.cache_clear()


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
