"""The Python API, for notebooks and scripts: load, analyze and certify a track.

Every function takes a `Track`, a path (`str` or `os.PathLike`) or the TOML text
itself, and validates it exactly as `racecert validate` does (a `Track` built in
code too); bad input raises `TrackError` with the same one-line message.

>>> import racecert
>>> track = racecert.load_track("tracks/tiny_straight.toml")
>>> track  # doctest: +ELLIPSIS
Track('Tiny straight', 10x3, layers=1, path='tracks/tiny_straight.toml', sha256='...')
>>> a = racecert.analyze(track)
>>> a
Analysis('Tiny straight', mode='exact', m_star=3, optimal_count=1, kind='stage', score=32.14)
>>> a.bfs.m_star, a.bfs.optimal_count, a.kind
(3, 1, 'stage')
>>> racecert.analyze("tracks/tiny_straight.toml").bfs.m_star
3
>>> a._repr_svg_().startswith("<svg")
True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from racecert.analysis.pipeline import Analysis
from racecert.analysis.pipeline import analyze as _analyze
from racecert.model.parse import load_track as _load_file
from racecert.model.parse import parse_track
from racecert.model.rules import RuleProfile
from racecert.model.track import Track
from racecert.model.validate import validate_track
from racecert.oracle.bfs import Mode

if TYPE_CHECKING:  # certification loads the solvers (OR-Tools, PySAT, sympy): only in certify
    from racecert.certification.certificate import Certificate

TrackLike = Track | str | bytes | os.PathLike[str]


def load_track(source: TrackLike) -> Track:
    """A validated `Track` from a path, TOML text/bytes, or a `Track` built in code.

    A `str` holding a newline or an `=` is TOML text; any other `str` is a path.
    """
    if isinstance(source, Track):
        return validate_track(source)
    if isinstance(source, bytes):
        return parse_track(source)
    if isinstance(source, os.PathLike):
        return _load_file(Path(source))
    if isinstance(source, str):
        if "\n" in source or "=" in source:
            return parse_track(source)
        return _load_file(source)
    raise TypeError(f"expected a Track, a path or TOML text, not {type(source).__name__}")


def analyze(track: TrackLike, mode: Mode = "exact", *, rules: RuleProfile | None = None,
            **options: Any) -> Analysis:
    """Every figure of `racecert analyze` as a typed `Analysis` (`to_json()` for the JSON)."""
    return _analyze(load_track(track), mode, rules=rules, **options)


def certify(track: TrackLike, **limits: Any) -> Certificate:
    """The certificate of `racecert certify`: every figure cross-examined independently.

    The certification (and its solvers) is imported here, on the first call, so that
    loading and analysing a track never pays for it."""
    from racecert.certification.certificate import certify as _certify

    return _certify(load_track(track), **limits)
