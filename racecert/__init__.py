"""racecert: compute and certify the optimal trajectories of vector-race tracks.

The Python API (see `racecert.api` and the README):

>>> import racecert
>>> track = racecert.load_track("tracks/tiny_straight.toml")
>>> racecert.analyze(track).bfs.m_star
3

Names are imported lazily, so `import racecert.model.track` stays light.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("racecert")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

_LAZY = {
    "load_track": "racecert.api",
    "analyze": "racecert.api",
    "certify": "racecert.api",
    "Track": "racecert.model.track",
    "TrackError": "racecert.model.errors",
    "Analysis": "racecert.analysis.pipeline",
    "Certificate": "racecert.certification.certificate",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'racecert' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
