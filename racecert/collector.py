"""The cyclic garbage collector's thresholds of a racecert process, in one place.

CPython's defaults (700, 10, 10) make a full collection each time the surviving heap
grows by a quarter, and a certify run grows it by millions of objects (CNF clauses, proof
text, exact geometry): on llanura 20 full collections, 2.6 of 28 CPU s in the collector.
With `GC_THRESHOLDS`, young collections are rarer and larger and a full one waits for 100
of the middle generation's: 0.5 s there, and cyclic garbage is still collected while
young. Every process that runs racecert's work sets them at its entry point (the
`racecert` command, the studio's job worker, a batch task on its worker), never a library
call; the test suite's process uses the same (tests/conftest.py).

>>> import gc
>>> saved = gc.get_threshold()
>>> collect_less()
>>> gc.get_threshold() == GC_THRESHOLDS
True
>>> gc.set_threshold(*saved)
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (10_000, 20, 100)
"""`gc.set_threshold` of a racecert process (module docstring)."""


def collect_less() -> None:
    """Set this process's collector thresholds to `GC_THRESHOLDS`."""
    gc.set_threshold(*GC_THRESHOLDS)
