"""Giving freed memory back to the system between the analysis's steps.

glibc's allocator keeps freed blocks for reuse, and after a large array is freed it
raises its threshold for allocating from the system directly (up to 32 MB), so the
arrays of a large BFS end up in a heap that holes keep from shrinking: on an open
700 x 700 analysis, 600 MB of RSS after the BFS was memory freed but not returned, and
the next steps' peaks stood on it. `trim_heap` (glibc's `malloc_trim`) returns the free
pages; the analysis calls it between its steps (`racecert.analysis.pipeline`), the BFS
after its forward pass and the green/blue DP between its passes, each time only where the
heap holds enough free room to be worth it (`TRIM_MIN_FREE`). A fixed
low threshold (`M_MMAP_THRESHOLD`) returned more but cost an open 200 x 200 analysis
half again its CPU time in page faults, so it is not set.

`fresh_zeros` is the other side: room that may stay mostly unused (a search's arrays,
sized for the largest track they might serve) as zero pages straight from the system,
which cost nothing until touched. `np.zeros` gives that only where the allocator maps
the block afresh; a block it reuses from its free lists it must clear, all of it.

>>> import platform
>>> platform.libc_ver()[0] != "glibc" or _MALLOC_TRIM is not None  # found where it exists
True
>>> a = fresh_zeros((2, 300_000), np.int32)
>>> a.shape, a.dtype, int(a.sum()), a.flags.writeable
((2, 300000), dtype('int32'), 0, True)
"""

from __future__ import annotations

import ctypes
import errno
import mmap
from collections.abc import Callable

import numpy as np


def _find_malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none (musl, macOS, Windows)."""
    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError, TypeError):  # TypeError: Windows' CDLL needs a name
        return None


_MALLOC_TRIM = _find_malloc_trim()


TRIM_MIN_FREE = 64 << 20
"""`trim_heap` leaves a heap with less free room than this as it is: giving back a small
analysis's few free megabytes made its next step fault every page in again (a sixth of
a corridor 1000 x 5's analysis), while a large one frees hundreds of megabytes. The free
room glibc reports still counts the pages a trim gave back from the middle of the heap,
so once a process has held that much free room every later call trims again: cheap
(under a millisecond where nothing new was freed), and the top `TRIM_PAD` stays."""


TRIM_PAD = 32 << 20
"""Free room `trim_heap` leaves at the top of the heap, where the next step allocates
first (what lies below it is given back either way)."""


class _MallInfo2(ctypes.Structure):
    """glibc's `struct mallinfo2` (every field a size_t)."""

    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _find_mallinfo2() -> Callable[[], _MallInfo2] | None:
    """glibc's `mallinfo2` (2.33 and later), or None."""
    try:
        f = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError, TypeError):
        return None
    f.restype = _MallInfo2
    return f  # type: ignore[no-any-return]


_MALLINFO2 = _find_mallinfo2()


def heap_free_bytes() -> int | None:
    """Bytes in the allocator's free blocks (glibc's arenas), or None where unknown."""
    return int(_MALLINFO2().fordblks) if _MALLINFO2 is not None else None


def trim_heap() -> bool:
    """Return the allocator's free pages to the system where it holds `TRIM_MIN_FREE` or
    more of them (or cannot say how many); whether anything was returned (False also
    where the C library cannot: nothing happens there)."""
    if _MALLOC_TRIM is None:
        return False
    free = heap_free_bytes()
    if free is not None and free < TRIM_MIN_FREE:
        return False
    return bool(_MALLOC_TRIM(TRIM_PAD))


FRESH_MIN_BYTES = 1 << 20
"""Below this, `fresh_zeros` is `np.zeros` (a page mapping per small array costs more than
clearing it)."""
FRESH_MAX_BYTES = 32 << 20
"""From this on, `fresh_zeros` is `np.zeros` too: glibc maps a block that large afresh
itself (its threshold for that never passes 32 MB), so its pages are fresh as well."""

_PRIVATE = (mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
            if hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MAP_ANONYMOUS") else None)


def fresh_zeros(shape: int | tuple[int, ...], dtype: np.typing.DTypeLike) -> np.ndarray:
    """A zeroed array whose pages come straight from the system (a private anonymous
    memory map, zero until written, freed with the array): untouched room costs neither
    time nor memory, whatever state the allocator's heap is in (module docstring).
    Outside `FRESH_MIN_BYTES` .. `FRESH_MAX_BYTES`, or where the system has no such maps,
    `np.zeros`.

    Huge pages are not asked for: each one faulted in is 2 MB cleared (or compacted
    first) at once, also where a search touches little of it. On the serpentine
    benchmark the first yellow search in a process spent 0.45-0.55 s of system time with
    them and about 0.1 s without, and later ones varied from 0.02 to 0.3 s with them."""
    dt = np.dtype(dtype)
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    size = int(np.prod(dims, dtype=np.int64)) * dt.itemsize
    if _PRIVATE is None or not FRESH_MIN_BYTES <= size < FRESH_MAX_BYTES:
        return np.zeros(dims, dtype=dt)
    try:
        pages = mmap.mmap(-1, size, flags=_PRIVATE)
    except OSError as e:  # no room to map (an address-space limit): as numpy says it
        if e.errno != errno.ENOMEM:
            raise
        raise MemoryError(f"cannot map {size} bytes for an array: {e.strerror}") from e
    return np.frombuffer(pages, dtype=dt).reshape(dims)
