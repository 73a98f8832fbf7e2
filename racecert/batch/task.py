"""One batch task: analyse or certify one track file, bounded by a state limit, never raising.

`run_job(job)` runs on a Dask worker. The job carries the file's bytes (read once
by the client, which hashed them: the worker needs no access to the file, and what
is analysed is what the row's sha256 names). It validates them, then runs
`analyze` (mode `exact` or `editor`) or `certify` (mode `certify`, exact key),
and returns a `TrackOutcome`: the figures for the database row, the full JSON,
or the error that stopped it. Every failure a track can cause becomes an outcome
(status `error` with a one-line message) so that the batch goes on:

- `input`: the validator rejects the file (its one-line message);
- `limit`: a search of the oracle (the BFS, yellow, the lap search, continuity)
  stored more than `max_states` states (a `StateBudget`, checked after each layer
  or round, a deterministic count: the same track stops at the same place on any
  machine), or the process ran out of memory;
- `setup`: the worker runs another racecert version than the client (the row is
  keyed by the client's version, so it would be wrong);
- `internal`: any other exception (a bug): its type and message.

A worker lost under a task (killed by the worker memory limit or a crash) cannot
answer; the client records it (`racecert.batch.runner`).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any, Literal

from racecert.certification.context import DEFAULT_COUNT_LIMIT, DEFAULT_CPSAT_BUDGET
from racecert.collector import collect_less
from racecert.model.budget import LimitReached, StateBudget
from racecert.model.errors import TrackError
from racecert.model.parse import parse_track

if TYPE_CHECKING:
    from racecert.analysis.base import BaseAnalysis
    from racecert.certification.certificate import Judged

BatchMode = Literal["exact", "editor", "certify"]
ErrorKind = Literal["input", "limit", "lost", "setup", "internal"]


def racecert_version() -> str:
    """The installed racecert version ("unknown" from a bare source tree)."""
    try:
        return version("racecert")
    except PackageNotFoundError:
        return "unknown"


def one_line(text: object) -> str:
    return " ".join(str(text).split())


@dataclass(frozen=True)
class TrackJob:
    """What one task does: which file (its path for messages, its bytes), which mode,
    and its limits."""

    path: str
    sha256: str
    data: bytes = field(repr=False)
    mode: BatchMode = "exact"
    version: str = ""
    max_states: int = 20_000_000
    cpsat_budget: float = DEFAULT_CPSAT_BUDGET
    count_limit: int = DEFAULT_COUNT_LIMIT


@dataclass(frozen=True)
class TrackOutcome:
    """The result of one task: the figures of one database row (see `racecert.batch.store`)."""

    path: str
    sha256: str
    mode: BatchMode
    version: str
    status: str  # ok | error | certified | partial | disagree
    error: str | None = None
    error_kind: ErrorKind | None = None
    m_star: int | None = None
    optimal_count: str | None = None
    kind: str | None = None
    score: float | None = None
    reachable: bool | None = None
    states_explored: int | None = None
    width: int | None = None
    height: int | None = None
    verdicts: tuple[tuple[str, str], ...] = ()
    seconds: float = 0.0
    timings: tuple[tuple[str, float], ...] = ()
    json: str | None = None
    worker: str = ""


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _figures(a: BaseAnalysis) -> dict[str, Any]:
    """The database row's figures; `kind` and `score` only where the profile defines them
    (a lattice or cell-path analysis has neither: docs/report.md, "Lattice tracks")."""
    b = a.bfs
    score = a.design_score
    return {
        "m_star": b.m_star if b.reachable else None,
        "optimal_count": str(b.optimal_count),
        "kind": a.kind,
        "score": None if score is None else float(score),
        "reachable": b.reachable,
        "states_explored": b.states_explored,
        "width": a.track.width,
        "height": a.track.height,
        "timings": tuple((k, round(v, 4)) for k, v in a.timings.items()),
    }


def _analysis_outcome(a: BaseAnalysis) -> dict[str, Any]:
    return {**_figures(a), "status": "ok", "json": json.dumps(a.to_json())}


def _certificate_outcome(c: Judged) -> dict[str, Any]:
    data = {"analysis": c.analysis.to_json(), "certificate": c.to_json()}
    return {**_figures(c.analysis), "status": c.status,
            "verdicts": tuple((f.name, f.verdict) for f in c.figures),
            "json": json.dumps(data)}


def _run(job: TrackJob) -> dict[str, Any]:
    """One task through the registries of every profile: the analysis
    (`racecert.analysis.profiles`) or the certificate (`racecert.certification.profiles`)
    of the track's profile. A mode the profile refuses (`editor` on a start-list track: no
    opening phase) is bad input, as `racecert analyze --mode editor` refuses it."""
    if hashlib.sha256(job.data).hexdigest() != job.sha256:  # a corrupted job, never a track
        raise RuntimeError("the job's bytes do not match its SHA-256")
    track = parse_track(job.data, job.path)
    budget = StateBudget(job.max_states, "--max-states")
    if job.mode == "certify":
        # the certificate's solvers (OR-Tools, sympy, pandas: about a second of imports)
        # only where a task certifies: a batch that analyses never loads them, in the
        # client (`racecert batch`) nor in its workers
        from racecert.certification.profiles import certification_profile

        cert = certification_profile(track).certify(
            track, budget=budget, cpsat_budget=job.cpsat_budget, count_limit=job.count_limit)
        return _certificate_outcome(cert)
    # the analysis (numba and the compiled kernels' modules: about 0.3 s of imports) only
    # where a task runs: the client (`racecert batch`, `--report`) never analyses a track
    from racecert.analysis.profiles import analysis_profile

    profile = analysis_profile(track)
    refused = profile.refusal(mode=job.mode)
    if refused is not None:
        raise TrackError(job.path, "rules", f"--mode {job.mode}: {refused[1]}; run the batch "
                         "with --mode exact or certify")
    return _analysis_outcome(profile.analyze(track, mode=job.mode, budget=budget))


def run_job(job: TrackJob) -> TrackOutcome:
    """Run one task (module docstring); every track failure is returned, never raised."""
    collect_less()  # racecert.collector: the worker's process, as a racecert command's
    t0 = time.perf_counter()
    base = {"path": job.path, "sha256": job.sha256, "mode": job.mode,
            "version": job.version, "worker": _worker_name()}
    mine = racecert_version()
    try:
        if mine != job.version:
            fields = {"status": "error", "error_kind": "setup",
                      "error": f"the worker runs racecert {mine}, the client {job.version}: "
                               "install the same version on every worker"}
        else:
            fields = _run(job)
    except TrackError as exc:
        fields = {"status": "error", "error": one_line(exc), "error_kind": "input"}
    except LimitReached as exc:
        fields = {"status": "error", "error": one_line(exc), "error_kind": "limit"}
    except MemoryError:
        fields = {"status": "error", "error": "out of memory", "error_kind": "limit"}
    except Exception as exc:  # a bug: recorded with its type, the batch goes on
        fields = {"status": "error", "error": one_line(f"{type(exc).__name__}: {exc}"),
                  "error_kind": "internal"}
    return TrackOutcome(**base, **fields, seconds=round(time.perf_counter() - t0, 4))


def lost_outcome(job: TrackJob, reason: str) -> TrackOutcome:
    """The outcome the client records for a task whose worker was lost (no answer came)."""
    return TrackOutcome(job.path, job.sha256, job.mode, job.version, "error",
                        error=one_line(reason), error_kind="lost", worker="")
