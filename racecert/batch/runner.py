"""A batch on Dask: plan the tasks against the database, run one task per track, record each
outcome the moment it arrives.

`plan_batch` reads every file once (its SHA-256 is its identity, and its bytes
travel in the job: workers need no access to the files), leaves out the
files whose bytes were already given under another path (`duplicates`) and the
tracks whose row for this mode and racecert version is already in the database
(`already`: a re-run resumes), and makes one `TrackJob` per remaining track.

`execute` submits the jobs to a Dask cluster (`dask_client`: a `LocalCluster`
of single-threaded worker processes on this machine, or an existing scheduler
at an address) and, in the client process, records each outcome in the
`ResultStore` as `as_completed` yields it, so every finished task is committed
before the next is awaited. A worker that dies under a task (the worker memory
limit, a crash) makes Dask run the task again on another worker; after
`distributed.scheduler.allowed-failures` losses (3 by default) the task is
recorded as `lost`. Ctrl-C cancels the remaining tasks and closes the cluster;
what was recorded stays.

The local cluster's Dask dashboard (`ClusterSpec.dashboard`, bokeh's pages of the
task stream, progress and worker memory) listens on 127.0.0.1 only; `dashboard_url`
is its address, or that of an existing scheduler's dashboard.

`distributed` is imported only when a cluster is started (it takes a second or two).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from racecert.atomic import sweep_stale
from racecert.batch.store import ResultRow, ResultStore
from racecert.batch.task import (
    BatchMode,
    TrackJob,
    TrackOutcome,
    lost_outcome,
    one_line,
    racecert_version,
    run_job,
)
from racecert.certification.context import DEFAULT_COUNT_LIMIT, DEFAULT_CPSAT_BUDGET
from racecert.model.errors import TrackError

if TYPE_CHECKING:
    from distributed import Client

DEFAULT_MAX_STATES = 20_000_000
"""Default state limit per BFS run of a task (about 2 GB of BFS memory at ~100 B/state)."""
LOCAL_HOST = "127.0.0.1"
"""The local cluster's dashboard listens here only (like the scheduler): not on the network."""
CONNECT_TIMEOUT = "20s"
"""How long the client waits for a scheduler given by address (a connection, not a search)."""

OutcomeFn = Callable[[TrackOutcome], None]


class BatchError(Exception):
    """The batch cannot run (e.g. no scheduler at the address); one line."""


@dataclass(frozen=True)
class BatchSettings:
    """What every task of a batch does, and its limits."""

    mode: BatchMode = "exact"
    max_states: int = DEFAULT_MAX_STATES
    cpsat_budget: float = DEFAULT_CPSAT_BUDGET
    count_limit: int = DEFAULT_COUNT_LIMIT
    retry_errors: bool = False


@dataclass(frozen=True)
class ClusterSpec:
    """Where the tasks run: an existing scheduler's address, or a local cluster of
    `workers` single-threaded workers (`processes=False`: threads of this process,
    for tests) with `memory_limit` per worker (bytes, or Dask's "auto")."""

    scheduler: str | None = None
    workers: int | None = None
    processes: bool = True
    memory_limit: int | str = "auto"
    dashboard: int | None = None
    """Local cluster: the port of the Dask dashboard on 127.0.0.1 (a port in use: another,
    free one; 0: any free port), or None for no dashboard."""


@dataclass(frozen=True)
class BatchPlan:
    """The tasks to run, and the given files that need none."""

    version: str
    mode: BatchMode
    jobs: tuple[TrackJob, ...]
    already: tuple[str, ...]
    duplicates: tuple[tuple[str, str], ...]
    keys: tuple[tuple[str, str, str], ...]  # (sha256, mode, version) of every given track


def plan_batch(paths: list[str], store: ResultStore, settings: BatchSettings,
               version: str | None = None) -> BatchPlan:
    """The plan for `paths` (module docstring). An unreadable file is a one-line TrackError."""
    version = version or racecert_version()
    done = store.done(settings.mode, version, include_errors=not settings.retry_errors)
    first: dict[str, str] = {}
    jobs: list[TrackJob] = []
    already: list[str] = []
    duplicates: list[tuple[str, str]] = []
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise TrackError(path, "", f"cannot read file: {exc.strerror or exc}") from None
        sha = hashlib.sha256(data).hexdigest()
        if sha in first:
            duplicates.append((path, first[sha]))
            continue
        first[sha] = path
        if sha in done:
            already.append(path)
        else:
            jobs.append(TrackJob(path, sha, data, settings.mode, version, settings.max_states,
                                 settings.cpsat_budget, settings.count_limit))
    keys = tuple((sha, settings.mode, version) for sha in first)
    return BatchPlan(version, settings.mode, tuple(jobs), tuple(already), tuple(duplicates),
                     keys)


@contextmanager
def dask_client(spec: ClusterSpec) -> Iterator[Client]:
    """A Dask client on the cluster `spec` names; the local cluster is closed on exit."""
    from distributed import Client, LocalCluster

    if spec.scheduler is not None:
        try:
            client = Client(spec.scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise BatchError(f"--scheduler {one_line(spec.scheduler)}: cannot connect: "
                             f"{one_line(exc)}") from None
        with client:
            yield client
        return
    preload = ["racecert.batch.worker_init"] if spec.processes else []
    # the workers' scratch space in a folder of our own, removed on exit (also on Ctrl-C):
    # Dask's default leaves dask-scratch-space/ behind in the temp folder. One left by a
    # batch killed with SIGKILL is removed by the next batch once a day old (its name
    # holds the process id, so that of a batch still running is kept)
    import dask

    sweep_stale(Path(tempfile.gettempdir()))
    with tempfile.TemporaryDirectory(prefix=f"racecert-dask-{os.getpid()}-") as scratch, \
            dask.config.set({"temporary-directory": scratch}):
        # Dask's warning for a dashboard port in use is several lines on stderr:
        # `dashboard_url` says which port was taken instead. Without a dashboard the
        # scheduler still serves its health routes: on any free port, not on 8787
        wanted = spec.dashboard is not None
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            cluster = LocalCluster(n_workers=spec.workers or os.cpu_count() or 1,
                                   threads_per_worker=1, processes=spec.processes,
                                   memory_limit=spec.memory_limit,
                                   dashboard_address=f"{LOCAL_HOST}:{spec.dashboard or 0}",
                                   scheduler_kwargs={"dashboard": wanted},
                                   silence_logs=logging.CRITICAL, preload=preload,
                                   local_directory=scratch)
        with cluster, Client(cluster) as client:
            yield client


def dashboard_missing() -> str | None:
    """Why the local cluster cannot serve a dashboard (bokeh absent or too old), or None."""
    from distributed.versions import BOKEH_REQUIREMENT

    try:
        version = importlib.metadata.version("bokeh")
    except importlib.metadata.PackageNotFoundError:
        return f"bokeh is not installed (the dashboard needs {BOKEH_REQUIREMENT})"
    if not BOKEH_REQUIREMENT.specifier.contains(version, prereleases=True):
        return f"bokeh {version} is installed (the dashboard needs {BOKEH_REQUIREMENT})"
    return None


def dashboard_url(client: Client, spec: ClusterSpec) -> str | None:
    """The address of the dashboard of the cluster `client` is on: the local cluster's
    (None when `spec` asks for none, or bokeh is missing: `dashboard_missing`), or the
    one an existing scheduler reports (its HTTP port, at the scheduler's host: whether it
    serves the dashboard's pages or only its health routes is the scheduler's setting)."""
    from distributed.comm import get_address_host
    from distributed.utils import format_dashboard_link

    if spec.scheduler is None and (spec.dashboard is None or dashboard_missing()):
        return None
    port = client.scheduler_info(n_workers=0).get("services", {}).get("dashboard")
    if port is None:
        return None
    host = LOCAL_HOST if spec.scheduler is None else get_address_host(client.scheduler.address)
    return str(format_dashboard_link(host, port))


def job_key(job: TrackJob) -> str:
    """The Dask key of a job (unique within a plan: one job per sha256)."""
    return f"racecert-{job.mode}-{job.sha256[:20]}"


def execute(client: Client, jobs: tuple[TrackJob, ...], store: ResultStore,
            on_outcome: OutcomeFn | None = None) -> list[TrackOutcome]:
    """Run `jobs` on `client`, recording each outcome in `store` as it arrives."""
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    if not jobs:
        return []
    futures = client.map(run_job, list(jobs), key=[job_key(j) for j in jobs], pure=False)
    job_of = {f.key: j for f, j in zip(futures, jobs, strict=True)}
    outcomes: list[TrackOutcome] = []
    try:
        for future in as_completed(futures):
            job = job_of[future.key]
            try:
                outcome = future.result()
            except KilledWorker:
                outcome = lost_outcome(job, "its worker was lost on every try (killed by the "
                                            "worker memory limit, or a crash)")
            except Exception as exc:  # the task itself never raises: the worker could not run it
                outcome = lost_outcome(job, f"the worker could not run the task: "
                                            f"{type(exc).__name__}: {exc}")
            store.record(outcome)
            outcomes.append(outcome)
            future.release()
            if on_outcome is not None:
                on_outcome(outcome)
    finally:
        pending = [f for f in futures if not f.done()]
        if pending:
            client.cancel(pending)
    return outcomes


@dataclass(frozen=True)
class BatchRun:
    """What `run_batch` did: the plan, the outcomes of this run, and the rows of every
    given track (new and already there)."""

    plan: BatchPlan
    outcomes: tuple[TrackOutcome, ...]
    rows: tuple[ResultRow, ...]


def run_batch(paths: list[str], store: ResultStore, settings: BatchSettings,
              cluster: ClusterSpec, on_outcome: OutcomeFn | None = None,
              version: str | None = None) -> BatchRun:
    """Plan, run on a cluster started for it (only when there is work), and read back."""
    plan = plan_batch(paths, store, settings, version)
    outcomes: list[TrackOutcome] = []
    if plan.jobs:
        with dask_client(cluster) as client:
            outcomes = execute(client, plan.jobs, store, on_outcome)
    return BatchRun(plan, tuple(outcomes), tuple(store.rows(plan.keys)))
