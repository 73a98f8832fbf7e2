"""The Python API, for notebooks and scripts: load, analyze and certify a track.

Every function takes a track (of any rule profile: `racecert.model.profiles`), a path
(`str` or `os.PathLike`), a bundled track's name or the TOML text itself, and validates
it exactly as `racecert validate` does (a `Track` built in code too); bad input raises
`TrackError` with the same one-line message. `analyze` and `certify` run the pipeline of
the track's profile through the same registries as the command line
(`racecert.analysis.profiles`, `racecert.certification.profiles`): every result is a
`BaseAnalysis` and a `Judged` certificate; a grid track gives an `Analysis` and a
`Certificate`, a lattice or cell-path track a `LatticeAnalysis` and a
`LatticeCertificate` (their figures are the profile's: docs/report.md).

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
>>> racecert.analyze("lattice/riddler", best_start=True)  # doctest: +ELLIPSIS
LatticeAnalysis('...', best_start=True, m_star=..., optimal_count=...)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from racecert.analysis.base import BaseAnalysis
from racecert.analysis.pipeline import StepFn
from racecert.analysis.profiles import analysis_profile
from racecert.model.budget import StateBudget
from racecert.model.bundled import track_path
from racecert.model.parse import load_track as _load_file
from racecert.model.parse import parse_track
from racecert.model.profiles import PROFILES, AnyTrack
from racecert.model.rules import RuleProfile
from racecert.model.track import Track
from racecert.model.validate import validate_track
from racecert.oracle.bfs import Mode, ProgressFn
from racecert.oracle.dijkstra import ProgressFn as YellowProgressFn

if TYPE_CHECKING:  # certification loads the solvers (OR-Tools, PySAT, sympy): only in certify
    from racecert.certification.certificate import Judged
    from racecert.certification.context import WorkFn

TrackLike = AnyTrack | str | bytes | os.PathLike[str]


def load_track(source: TrackLike) -> AnyTrack:
    """Read and validate a track, exactly as `racecert validate` does.

    Parameters
    ----------
    source : Track, LatticeTrack, CellPathTrack, str, bytes or os.PathLike
        A path to a track file (a ``.toml`` track or a cell-path ``.track`` map), the
        TOML text itself (a `str` holding a newline or an ``=``; any other `str` is a
        path), its bytes, or a `Track` built in code. A bare name without a suffix that
        is no file names a bundled track (``"ocho"``, ``"lattice/riddler"``,
        ``"cellpath/hairpin"``), as on the command line.

    Returns
    -------
    Track, LatticeTrack or CellPathTrack
        The validated track (frozen), of the profile its file names
        (`racecert.model.profiles.profile_of` tells which). A grid `Track` has its
        ``name``, size in cells (``width``,
        ``height``; ``layers`` 1 or 2 with a bridge), the surface rows (``ground``,
        ``elevated``), the ``car``, the ``start`` and ``finish`` lines, the ``opening``
        rule and the declared ``kind``; ``sha256`` (of the TOML bytes, the same for a
        file and its text) and ``path`` (empty for text) name it in every report.

    Raises
    ------
    TrackError
        Any problem with the file or the track, as the one line `racecert validate`
        prints (docs/track-format.md lists them).
    TypeError
        `source` is none of the above.

    Examples
    --------
    >>> import racecert
    >>> t = racecert.load_track("tracks/tiny_straight.toml")
    >>> t.name, t.width, t.height, t.car.position
    ('Tiny straight', 10, 3, (1, 1))
    >>> racecert.load_track("ocho").name
    'Ocho'
    >>> type(racecert.load_track("cellpath/hairpin")).__name__
    'CellPathTrack'
    >>> racecert.load_track('name = "x"')
    Traceback (most recent call last):
    ...
    racecert.model.errors.TrackError: <string>: map: missing required table [map]
    """
    if isinstance(source, Track):
        return validate_track(source)
    if isinstance(source, tuple(p.track_type for p in PROFILES)):
        return source  # a lattice or cell-path track: validated when it was read
    if isinstance(source, bytes):
        return parse_track(source)
    if isinstance(source, os.PathLike):
        return _load_file(Path(source))
    if isinstance(source, str):
        if "\n" in source or "=" in source:
            return parse_track(source)
        return _load_file(track_path(source))
    raise TypeError("expected a Track (of any profile), a path or TOML text, not "
                    f"{type(source).__name__}")


def analyze(track: TrackLike, mode: Mode = "exact", *, rules: RuleProfile | None = None,
            budget: StateBudget | None = None, progress: ProgressFn | None = None,
            yellow_progress: YellowProgressFn | None = None,
            step: StepFn | None = None, best_start: bool = False
            ) -> BaseAnalysis:
    """Every figure of `racecert analyze`, as a typed `BaseAnalysis` of the track's
    profile (an `Analysis` for a grid track, a `LatticeAnalysis` for a lattice or
    cell-path track).

    Parameters
    ----------
    track : a track of any profile, str, bytes or os.PathLike
        The track, or what `load_track` reads.
    mode : {"exact", "editor"}
        The state key of the searches (docs/rules.md); default "exact". Lattice and
        cell-path tracks have the exact key only (ValueError for "editor": every
        option a profile refuses is one, `AnalysisProfile.refusal`).
    rules : RuleProfile, optional
        The rule profile every solver uses; default the track's own (its profile's).
    budget : StateBudget, optional
        A bound on the states of every search (`--max-states`); below it every figure
        is the same as without it.
    progress : callable, optional
        ``progress(depth, frontier, states)`` after each BFS layer.
    yellow_progress : callable, optional
        ``yellow_progress(rounds, settled)`` during the least-length search.
    step : callable, optional
        ``step(name)`` as each pipeline step starts (grid tracks).
    best_start : bool
        Lattice and cell-path tracks: search from every start position at once
        (`--best-start`); False: from the first listed start only.

    Returns
    -------
    BaseAnalysis
        The figures (``bfs.m_star``, ``bfs.optimal_count``, ``kind``, ...);
        ``to_json()`` gives the JSON of `racecert analyze --json`; a notebook shows its
        picture beside a table of the headline figures (``_repr_html_``; the picture
        alone is ``_repr_svg_``).

    Raises
    ------
    TrackError
        The track does not load or validate.
    StateLimitReached
        A search went past `budget`.

    Examples
    --------
    >>> import racecert
    >>> racecert.analyze("tracks/tiny_straight.toml").bfs.m_star
    3
    >>> racecert.analyze("cellpath/hairpin").bfs.m_star
    15
    """
    loaded = load_track(track)
    return analysis_profile(loaded).analyze(
        loaded, mode=mode, best_start=best_start, progress=progress, step=step,
        yellow_progress=yellow_progress, rules=rules, budget=budget)


def certify(track: TrackLike, *, cpsat_budget: float | None = None,
            count_limit: int | None = None, max_states: int | None = None,
            geometry_max_states: int | None = None,
            continuity_max_states: int | None = None, workers: int | None = None,
            out_dir: str | os.PathLike[str] | None = None,
            budget: StateBudget | None = None, step: StepFn | None = None,
            progress: ProgressFn | None = None, work: WorkFn | None = None,
            best_start: bool = False) -> Judged:
    """The certificate of `racecert certify`: every figure cross-examined independently,
    by the checks of the track's profile (a `Certificate` for a grid track, a
    `LatticeCertificate` for a lattice or cell-path track; both are `Judged`).

    The certification (and its solvers) is imported on the first call, so that loading
    and analysing a track never pays for it. A limit left at None keeps the default of
    `racecert certify` (`racecert.certification.context.CertifyContext`, its one home).

    Parameters
    ----------
    track : a track of any profile, str, bytes or os.PathLike
        The track, or what `load_track` reads.
    cpsat_budget : float, optional
        CP-SAT deterministic time per solve (`--cpsat-budget`; never wall seconds).
    count_limit : int, optional
        The most optimal trajectories the independent count enumerates (`--count-limit`).
    max_states : int, optional
        The state budget of the independent searches.
    geometry_max_states : int, optional
        The state budget of the geometric checks.
    continuity_max_states : int, optional
        How many optimal final states the continuity check examines; None: every one.
    workers : int, optional
        CP-SAT workers; the default 1 keeps every verdict reproducible.
    out_dir : path, optional
        Where proof files are written (DRUP proofs; `certify --verify` re-checks them).
    budget : StateBudget, optional
        A bound on every search of the oracle (`--max-states`).
    step, progress, work : callable, optional
        Progress reports: ``step(name)`` before each step, ``progress(depth, frontier,
        states)`` per BFS layer, ``work(what, done, total)`` inside a check.

    Returns
    -------
    Judged
        Its ``status`` ("certified", "partial" or "disagree") and one entry per figure
        with the verdict of each independent check; ``to_json()`` gives the file of
        `racecert certify -o`; a notebook shows the headline above one row per figure
        (``_repr_html_``).

    Raises
    ------
    TrackError
        The track does not load or validate.
    StateLimitReached
        A search of the oracle went past `budget`.
    ValueError
        A keyword the profile's certificate does not use (`count_limit` on a cell-path
        track...), or `best_start` on a grid track.

    Examples
    --------
    >>> import racecert
    >>> racecert.certify("tracks/tiny_straight.toml", count_limit=100).status
    'certified'
    """
    from racecert.certification.profiles import certification_profile, profiles_using

    given: dict[str, Any] = {
        "cpsat_budget": cpsat_budget, "count_limit": count_limit, "max_states": max_states,
        "geometry_max_states": geometry_max_states,
        "continuity_max_states": continuity_max_states, "workers": workers,
        "out_dir": None if out_dir is None else Path(out_dir)}
    limits = {k: v for k, v in given.items() if v is not None}
    loaded = load_track(track)
    profile = certification_profile(loaded)
    unused = profile.unused([*limits, *(k for k, v in (("progress", progress),
                                                        ("work", work)) if v is not None)])
    if unused:
        users = " and ".join(p.name for p in profiles_using(unused[0]))
        raise ValueError(f"{profile.model.title}: {', '.join(unused)} apply to {users} "
                         "tracks only")
    return profile.certify(loaded, best_start=best_start, step=step, progress=progress,
                           work=work, budget=budget, **limits)
