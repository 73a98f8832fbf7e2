"""Freed memory goes back to the system between the analysis's steps (racecert.model.heap)."""

from __future__ import annotations

import doctest
import resource

import pytest

from racecert.analysis import pipeline
from racecert.model import heap
from racecert.model.parse import load_track


def test_heap_doctest() -> None:
    failures, tries = doctest.testmod(heap)
    assert tries > 0 and failures == 0


def test_the_analysis_trims_the_heap_before_every_step(monkeypatch) -> None:
    """One trim before each step the analysis runs, and the steps see the heap trimmed
    before they start (the trim comes before the step callback)."""
    events: list[str] = []
    monkeypatch.setattr(pipeline, "trim_heap", lambda: events.append("trim") or True)
    pipeline.analyze(load_track("tracks/ocho.toml"), step=events.append)
    steps = [e for e in events if e != "trim"]
    assert steps == list(pipeline.STEPS)
    assert events == [x for s in steps for x in ("trim", s)]


def test_freed_blocks_are_returned_on_glibc() -> None:
    """On glibc, memory freed in the heap is returned: after a few hundred megabytes of
    small blocks are freed, `trim_heap` reports that it gave pages back."""
    import platform

    import pytest

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("malloc_trim is glibc's")
    blocks = [bytearray(4000) for _ in range(50_000)]  # below the mmap threshold: the heap
    keep = blocks[-1]
    del blocks
    free = heap.heap_free_bytes()
    assert free is not None and free >= 150 << 20  # what was just freed is counted
    assert heap.trim_heap() is True
    assert len(keep) == 4000


def test_a_heap_with_little_free_room_is_left_alone(monkeypatch) -> None:
    """Below `TRIM_MIN_FREE` of free room `trim_heap` does nothing (a small analysis would
    only fault its pages in again); where the free room is unknown it trims."""
    import pytest

    monkeypatch.setattr(heap, "_MALLOC_TRIM", lambda pad: pytest.fail("trimmed"))
    monkeypatch.setattr(heap, "heap_free_bytes", lambda: heap.TRIM_MIN_FREE - 1)
    assert heap.trim_heap() is False
    calls: list[int] = []
    monkeypatch.setattr(heap, "_MALLOC_TRIM", lambda pad: calls.append(pad) or 1)
    for free in (heap.TRIM_MIN_FREE, None):
        monkeypatch.setattr(heap, "heap_free_bytes", lambda free=free: free)
        assert heap.trim_heap() is True
    assert calls == [heap.TRIM_PAD, heap.TRIM_PAD]


def test_fresh_zeros_are_zero_writable_and_their_own() -> None:
    """Large requests are fresh memory maps, small ones plain arrays; every one is zero,
    writable and shares nothing with another."""
    import mmap

    import numpy as np

    def root(a: np.ndarray) -> object:
        """What the array's memory belongs to (past views and numpy's memoryview)."""
        while isinstance(a.base, np.ndarray):
            a = a.base
        return a.base.obj if isinstance(a.base, memoryview) else a.base

    small = heap.fresh_zeros(10, np.int64)
    big = [heap.fresh_zeros((3, heap.FRESH_MIN_BYTES // 4), np.int32) for _ in range(2)]
    assert not isinstance(root(small), mmap.mmap) and small.tolist() == [0] * 10
    for a in big:
        assert isinstance(root(a), mmap.mmap) and a.flags.c_contiguous and a.flags.writeable
        assert a.shape == (3, heap.FRESH_MIN_BYTES // 4) and not a.any()
    big[0][2, -1] = 5
    assert int(big[0].sum()) == 5 and not big[1].any()


@pytest.mark.skipif(heap._PRIVATE is None or not hasattr(resource, "RLIMIT_AS"),
                    reason="no private anonymous maps or no address-space limit here")
def test_fresh_zeros_out_of_address_space_is_a_memory_error() -> None:
    """Under an address-space limit (ulimit -v) the map fails with ENOMEM: that is a
    MemoryError, as numpy's own allocations give, so the command line ends it with exit
    4 and its one line instead of a traceback. Run in a child, whose limit cannot reach
    the suite."""
    import subprocess
    import sys

    code = (
        "import resource, numpy as np\n"
        "from racecert.model import heap\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))\n"
        "try:\n"
        "    heap.fresh_zeros(heap.FRESH_MAX_BYTES // 8 - 1, np.int64)\n"
        "    [heap.fresh_zeros(heap.FRESH_MAX_BYTES // 8 - 1, np.int64) for _ in range(200)]\n"
        "except MemoryError as e:\n"
        "    print('MemoryError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.startswith("MemoryError cannot map"), out
