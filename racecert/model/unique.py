"""Distinct values of an integer array, sorted: a sort and one comparison pass.

numpy 2's `np.unique` without `return_*` arguments hashes: on this project's machines it
took 6.0 s CPU for 7.5 million int64 keys, against 0.5 s for `np.sort` and a scan (the
hot callers pass millions of state or move keys). `unique_sorted` gives the same array
as `np.unique` for integer input (flattened, ascending, each value once).

>>> unique_sorted(np.array([5, 1, 5, 3, 1])).tolist(), unique_sorted(np.array([], int)).size
([1, 3, 5], 0)
"""

from __future__ import annotations

import numpy as np


def unique_sorted(a: np.ndarray) -> np.ndarray:
    """The distinct values of integer array `a` (flattened), ascending."""
    s = np.sort(np.asarray(a).ravel())
    if s.size < 2:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
