"""Independent evidence several checks use, computed once per track and budget.

The independent search is the most expensive piece of a certificate; the count,
final-state and continuity checks all read it, so it is cached here (keyed by the
frozen `Track` and the state budget) instead of one check importing another.
"""

from __future__ import annotations

from functools import lru_cache

from racecert.independent.search import SearchResult, explore
from racecert.model.track import Track


@lru_cache(maxsize=4)
def independent_search(track: Track, max_states: int) -> SearchResult:
    """`racecert.independent.search.explore` in the exact key, from the configured car."""
    return explore(track, "exact", max_states=max_states)
