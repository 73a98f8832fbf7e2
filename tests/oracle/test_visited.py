"""The BFS's visited set (`oracle.visited`) against a Python set, tables grown many times."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from racecert.oracle.visited import VisitedSet


def _check(cells: int, batches: list[list[int]]) -> None:
    v = VisitedSet(cells)
    seen: set[int] = set()
    for batch in batches:
        keys = np.array(batch, dtype=np.int64)
        out = np.empty(len(keys), dtype=np.int64)
        n = v.add_new(keys, out)
        want = []
        for key in batch:
            if key not in seen:
                seen.add(key)
                want.append(key)
        assert out[:n].tolist() == want


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.integers(1, 3000), st.lists(st.lists(st.integers(0, 10**7), max_size=300),
                                       max_size=6))
def test_matches_a_python_set(cells: int, batches: list[list[int]]) -> None:
    _check(cells, batches)


def test_every_table_grows() -> None:
    """Thousands of blocks and tiles: the block table, the rows and the tile pool each
    outgrow their first size (64 slots, 16 rows, 256 tiles) and nothing is lost."""
    rng = np.random.default_rng(7)
    cells = 5000
    keys = rng.integers(0, 4000 * cells, size=60_000).tolist()
    _check(cells, [keys[:30_000], keys[30_000:], keys[::7]])
    v = VisitedSet(cells)
    arr = np.array(keys, dtype=np.int64)
    v.add_new(arr, np.empty(len(arr), dtype=np.int64))
    assert v._rows.shape[0] > 16 and v._tiles.shape[0] > 256 and len(v._bkeys) > 64
    again = np.empty(len(arr), dtype=np.int64)
    assert v.add_new(arr, again) == 0  # everything is in the set now
