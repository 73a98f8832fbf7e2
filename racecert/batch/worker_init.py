"""Preloaded by the workers of racecert's local Dask cluster: they ignore SIGINT.

Ctrl-C in a terminal reaches every process of the foreground group, the local
workers included. The client handles it (it cancels the remaining tasks and
closes the cluster, which stops the workers); a worker handling it too would
only die noisily mid-task. Workers of a cluster started with `dask worker`
(`--scheduler`) do not load this module.
"""

from __future__ import annotations

import signal
import threading
from typing import Any


def dask_setup(worker: Any) -> None:
    """Called by Dask in each worker process as it starts (also after a restart)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
