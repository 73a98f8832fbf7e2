"""The BFS's visited set (`oracle.visited`) against a Python set, tables grown many times."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from racecert.oracle.visited import VisitedSet


def _check(cells: int, batches: list[list[int]], take_every: int = 1) -> None:
    """Add the batches; every `take_every` batches the fresh keys must be exactly the
    keys new since the last take, sorted."""
    v = VisitedSet(cells)
    seen: set[int] = set()
    fresh: set[int] = set()
    for i, batch in enumerate(batches):
        keys = np.array(batch, dtype=np.int64)
        new = set(batch) - seen
        assert v.add(keys) == len(new)
        seen |= new
        fresh |= new
        if (i + 1) % take_every == 0:
            assert v.take_fresh().tolist() == sorted(fresh)
            fresh = set()
    assert v.take_fresh().tolist() == sorted(fresh)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.integers(1, 3000), st.lists(st.lists(st.integers(0, 10**7), max_size=300),
                                       max_size=6))
def test_matches_a_python_set(cells: int, batches: list[list[int]]) -> None:
    _check(cells, batches)
    _check(cells, batches, take_every=2)


def test_every_table_grows() -> None:
    """Thousands of blocks and tiles: the block table, the rows, the tile pool and the
    fresh tiles each outgrow their first size (64 slots, 16 rows, 256 tiles, 64 fresh
    tiles) and nothing is lost."""
    rng = np.random.default_rng(7)
    cells = 5000
    keys = rng.integers(0, 4000 * cells, size=60_000).tolist()
    _check(cells, [keys[:30_000], keys[30_000:], keys[::7]])
    v = VisitedSet(cells)
    arr = np.array(keys, dtype=np.int64)
    v.add(arr)
    assert v._rows.shape[0] > 16 and v._tiles.shape[0] > 256 and len(v._bkeys) > 64
    assert v._fresh.shape[0] > 64
    assert v.take_fresh().tolist() == sorted(set(keys))
    assert v.add(arr) == 0  # everything is in the set now
    assert len(v.take_fresh()) == 0
