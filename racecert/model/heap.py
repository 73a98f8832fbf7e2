"""Giving freed memory back to the system between the analysis's steps.

glibc's allocator keeps freed blocks for reuse, and after a large array is freed it
raises its threshold for allocating from the system directly (up to 32 MB), so the
arrays of a large BFS end up in a heap that holes keep from shrinking: on an open
700 x 700 analysis, 600 MB of RSS after the BFS was memory freed but not returned, and
the next steps' peaks stood on it. `trim_heap` (glibc's `malloc_trim`) returns the free
pages; the analysis calls it between its steps (`racecert.analysis.pipeline`). A fixed
low threshold (`M_MMAP_THRESHOLD`) returned more but cost an open 200 x 200 analysis
half again its CPU time in page faults, so it is not set.

>>> import platform
>>> platform.libc_ver()[0] != "glibc" or _MALLOC_TRIM is not None  # found where it exists
True
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable


def _find_malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (musl, macOS, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError, TypeError):  # TypeError: Windows' CDLL needs a name
        return None


_MALLOC_TRIM = _find_malloc_trim()


def trim_heap() -> bool:
    """Return the allocator's free pages to the system; whether anything was returned
    (False also where the C library cannot: nothing happens there)."""
    return bool(_MALLOC_TRIM(0)) if _MALLOC_TRIM is not None else False
