"""racecert: compute and certify the optimal trajectories of vector-race tracks.

The Python API (see `racecert.api` and the README):

>>> import racecert
>>> track = racecert.load_track("tracks/tiny_straight.toml")
>>> racecert.analyze(track).bfs.m_star
3

Names are imported lazily, so `import racecert.model.track` stays light; so is
`__version__` (importlib.metadata is slow to import), read on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "load_track": "racecert.api",
    "analyze": "racecert.api",
    "certify": "racecert.api",
    "Track": "racecert.model.track",
    "TrackError": "racecert.model.errors",
    "BaseAnalysis": "racecert.analysis.base",
    "Analysis": "racecert.analysis.pipeline",
    "Judged": "racecert.certification.certificate",
    "Certificate": "racecert.certification.certificate",
    "LatticeAnalysis": "racecert.analysis.lattice.pipeline",
    "LatticeCertificate": "racecert.certification.lattice.certificate",
}
__all__ = ["__version__", *_LAZY]


def _version() -> str:
    """The installed distribution's version ("0+unknown" from a source tree that was never
    installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("racecert")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (and keep the name, so once only)."""
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'racecert' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
