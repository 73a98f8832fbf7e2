"""`racecert batch TRACKS... [--certify] [--db FILE] [--scheduler ADDRESS] [--workers N]
[--dashboard PORT] [--report]`: analyse or certify many tracks as Dask tasks, results kept
in DuckDB.

TRACKS are files, folders (every .toml below), glob patterns or bundled tracks'
names. Each track not yet in the database for this mode and racecert version becomes
one Dask task; each finished task's row is committed in this process as it arrives,
so a crash or Ctrl-C loses nothing that finished and the same command resumes
(docs/batch.md). `--report` prints the table of the given tracks' rows (or of
the whole database, without TRACKS) and writes it as CSV with a PNG plot.

When the cluster is up, one line on stderr gives the address of Dask's dashboard
(`--dashboard PORT`, default 8787, on 127.0.0.1; another free port when that one is
in use, and the line says so; `--dashboard 0` serves none and prints nothing; with
`--scheduler`, the address of the scheduler's own dashboard).

Exit status, over the rows of every given track (new or already there): 1 some
certificate disagrees; 2 some track file is bad input (or an argument, a path);
4 some track could not be finished (its state limit, a lost worker, an unexpected
error: the row's error says which); 3 some certificate is partial; else 0.
130 on Ctrl-C (what finished is kept), with one line that says how many tasks
finished. `--report` alone (no TRACKS) exits 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from racecert.batch.inputs import expand_tracks
from racecert.batch.report import csv_text, plot_png, report_cells, summary_text, table_text
from racecert.batch.runner import (
    DEFAULT_MAX_STATES,
    BatchError,
    BatchSettings,
    ClusterSpec,
    dashboard_missing,
    dashboard_url,
    dask_client,
    execute,
    plan_batch,
)
from racecert.batch.store import ResultRow, ResultStore, StoreError
from racecert.batch.task import TrackJob, TrackOutcome
from racecert.certification.context import (
    DEFAULT_COUNT_LIMIT,
    DEFAULT_CPSAT_BUDGET,
    MAX_COUNT_LIMIT,
    MAX_CPSAT_BUDGET,
)
from racecert.cli.arguments import integer, print_error, seconds
from racecert.cli.output import (
    OutputError,
    check_output_file,
    check_output_suffix,
    write_bytes_atomic,
    write_text_atomic,
)
from racecert.cli.progress import progress
from racecert.model.bundled import track_inputs

if TYPE_CHECKING:
    from distributed import Client

DEFAULT_DB = "racecert.duckdb"
DEFAULT_DASHBOARD = 8787  # Dask's own default port for the dashboard
EXIT_INTERRUPTED = 130  # as `racecert.cli.main` returns on Ctrl-C
MAX_WORKERS = 4096
MAX_STATES = 10**11
REPORT_SUFFIXES = {".csv": "the table as CSV", ".png": "the plot"}
SHOWN_ERRORS = 20


def register(b: argparse.ArgumentParser) -> None:
    """Add the subcommand's arguments and handler to its parser (`racecert.cli`
    names it and gives its help line)."""
    b.add_argument("tracks", nargs="*", metavar="TRACK",
                   help="track files, folders (every .toml below) or glob patterns")
    b.add_argument("--certify", action="store_true",
                   help="certify each track (exact key) instead of analysing it")
    b.add_argument("--mode", choices=("editor", "exact"), default="exact",
                   help="state key of the analysis (default exact)")
    b.add_argument("--db", metavar="FILE", default=DEFAULT_DB,
                   help=f"the DuckDB database (default {DEFAULT_DB}; created if missing)")
    b.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask cluster (e.g. tcp://host:8786) instead of a "
                        "local one")
    b.add_argument("--workers", metavar="N", type=integer(1, MAX_WORKERS, "a number of workers"),
                   help="local cluster: single-threaded worker processes (default: one per "
                        "core)")
    b.add_argument("--worker-memory", metavar="GIB",
                   type=seconds(0.0, 65536.0, "GiB"),
                   help="local cluster: memory limit per worker in GiB (default: the "
                        "machine's memory shared by the workers); a worker past it is "
                        "restarted and its task tried again elsewhere")
    b.add_argument("--dashboard", metavar="PORT", type=integer(0, 65535, "a port"),
                   help=f"local cluster: serve Dask's dashboard on 127.0.0.1:PORT (default "
                        f"{DEFAULT_DASHBOARD}; a port in use: another, free one; 0: no "
                        f"dashboard); its address is printed on stderr")
    b.add_argument("--max-states", metavar="N", default=DEFAULT_MAX_STATES,
                   type=integer(1, MAX_STATES, "a number of states"),
                   help=f"per task: stop a BFS run past N states (default {DEFAULT_MAX_STATES:,}):"
                        " the track's row records the limit")
    b.add_argument("--cpsat-budget", metavar="UNITS", default=DEFAULT_CPSAT_BUDGET,
                   type=seconds(0.0, MAX_CPSAT_BUDGET, "deterministic time units"),
                   help="with --certify: CP-SAT deterministic time per solve "
                        f"(default {DEFAULT_CPSAT_BUDGET:g})")
    b.add_argument("--count-limit", metavar="N", default=DEFAULT_COUNT_LIMIT,
                   type=integer(0, MAX_COUNT_LIMIT, "a count"),
                   help="with --certify: largest optimal count enumerated by CP-SAT "
                        f"(default {DEFAULT_COUNT_LIMIT})")
    b.add_argument("--retry-errors", action="store_true",
                   help="run again the tracks whose row records an error")
    b.add_argument("-v", "--verbose", action="store_true",
                   help="one line on stderr per finished track (after its row is committed)")
    b.add_argument("--report", action="store_true",
                   help="print the table of results and write it as CSV with a PNG plot")
    b.add_argument("-o", "--out", metavar="PATH", action="append", default=[],
                   help="with --report: .csv the table, .png the plot (default: both, next "
                        "to the database, named after it)")
    b.set_defaults(func=cmd_batch, parser=b)


def _check_combinations(args: argparse.Namespace) -> None:
    fail = args.parser.error
    if not args.tracks and not args.report:
        fail("give TRACK files, folders or patterns, or --report")
    if args.certify and args.mode == "editor":
        fail("--certify certifies the exact key; leave out --mode editor")
    if args.scheduler and (args.workers or args.worker_memory):
        fail("--workers and --worker-memory set up the local cluster; with --scheduler the "
             "workers are the cluster's (see docs/batch.md)")
    if args.scheduler and args.dashboard:
        fail("--dashboard sets up the local cluster's dashboard; with --scheduler the "
             "dashboard is the scheduler's (dask scheduler --dashboard-address)")
    if args.out and not args.report:
        fail("-o/--out names report files: add --report")


def report_outputs(args: argparse.Namespace, db: Path) -> dict[str, Path]:
    """Suffix -> path of each report file, checked before any work (one-line OutputError)."""
    if not args.report:
        return {}
    if not args.out:
        return {s: check_output_file(db.with_suffix(s)) for s in REPORT_SUFFIXES}
    out: dict[str, Path] = {}
    for value in args.out:
        path, suffix = check_output_suffix(value, REPORT_SUFFIXES)
        if suffix in out:
            raise OutputError(f"-o/--out {' '.join(value.split())}: a second {suffix} file")
        out[suffix] = path
    return out


def _settings(args: argparse.Namespace) -> BatchSettings:
    return BatchSettings("certify" if args.certify else args.mode, args.max_states,
                         args.cpsat_budget, args.count_limit, args.retry_errors)


def _cluster(args: argparse.Namespace) -> ClusterSpec:
    memory = "auto" if args.worker_memory is None else int(args.worker_memory * 2**30)
    port = DEFAULT_DASHBOARD if args.dashboard is None else args.dashboard
    return ClusterSpec(args.scheduler, args.workers, True, memory,
                       None if port == 0 or args.scheduler else port)


def _announce_dashboard(client: Client, spec: ClusterSpec, quiet: bool) -> None:
    """One line on stderr with the dashboard's address (module docstring); none when
    `quiet` (--dashboard 0)."""
    if quiet:
        return
    url = dashboard_url(client, spec)
    if spec.scheduler is not None:
        if url:
            print(f"racecert batch: the scheduler's Dask dashboard (if it serves one): {url}",
                  file=sys.stderr)
        return
    missing = dashboard_missing()
    if missing or not url:
        print(f"racecert batch: no Dask dashboard: {missing or 'the cluster reports none'}",
              file=sys.stderr)
        return
    port = urlsplit(url).port
    taken = f" (port {spec.dashboard} is in use)" if spec.dashboard and port != spec.dashboard \
        else ""
    print(f"racecert batch: Dask dashboard at {url}{taken}", file=sys.stderr, flush=True)


def _run(args: argparse.Namespace, store: ResultStore, paths: list[str]
         ) -> list[ResultRow] | None:
    """Run the tracks not yet in `store`; the rows of every given track, or None after
    Ctrl-C, which prints the one line that says what is kept (in place of the plain
    "interrupted" of the other subcommands, so that Ctrl-C is one line here as well)."""
    plan = plan_batch(paths, store, _settings(args))
    print(f"racecert batch: {len(paths)} track file(s): {len(plan.jobs)} to run, "
          f"{len(plan.already)} already in {args.db} ({plan.mode}, racecert {plan.version}), "
          f"{len(plan.duplicates)} duplicate(s) of another file", file=sys.stderr)
    if plan.jobs:
        try:
            _execute(args, store, plan.jobs)
        except KeyboardInterrupt:
            kept = len(store.rows(plan.keys)) - len(plan.already)
            print(f"interrupted: {kept} of {len(plan.jobs)} task(s) finished and are kept in "
                  f"{args.db}; the same command resumes", file=sys.stderr)
            return None
    return store.rows(plan.keys)


def _execute(args: argparse.Namespace, store: ResultStore, jobs: tuple[TrackJob, ...]) -> None:
    errors = 0
    done: list[TrackOutcome] = []
    t0 = time.perf_counter()

    def arrived(outcome: TrackOutcome) -> None:
        nonlocal errors
        done.append(outcome)
        errors += outcome.status == "error"
        bar.set_postfix_str(f"{errors} error(s)", refresh=False)
        bar.update(1)
        if args.verbose:
            print(f"{outcome.status} {outcome.path} ({outcome.seconds:.2f} s)"
                  + (f": {outcome.error}" if outcome.error else ""), file=sys.stderr, flush=True)

    spec = _cluster(args)
    with dask_client(spec) as client:
        _announce_dashboard(client, spec, quiet=args.dashboard == 0)
        workers = len(client.scheduler_info().get("workers", {}))
        bar = progress("batch", " track", total=len(jobs))
        try:
            execute(client, jobs, store, arrived)
        finally:
            bar.close()
    wall = time.perf_counter() - t0
    print(f"ran {len(done)} task(s) in {wall:.1f} s on {workers} worker(s) "
          f"({len(done) / wall:.2f} tracks/s), {errors} error(s)", file=sys.stderr)


def exit_status(rows: list[ResultRow]) -> int:
    """The batch's exit status over `rows` (module docstring)."""
    statuses = {r.status for r in rows}
    kinds = {r.error_kind for r in rows if r.status == "error"}
    if "disagree" in statuses:
        return 1
    if "input" in kinds:
        return 2
    if kinds:
        return 4
    if "partial" in statuses:
        return 3
    return 0


def _print_outcome(rows: list[ResultRow]) -> None:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    print(f"{len(rows)} track(s): " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    errors = [r for r in rows if r.status == "error"]
    for r in errors[:SHOWN_ERRORS]:
        error = r.error or ""
        print(f"  [{r.error_kind}] " + (error if error.startswith(r.track) else
                                         f"{r.track}: {error}"))
    if len(errors) > SHOWN_ERRORS:
        print(f"  ... and {len(errors) - SHOWN_ERRORS} more (see --report or the database)")


def _write_report(rows: list[ResultRow], outputs: dict[str, Path], db: str) -> None:
    cells = report_cells(rows)
    print(table_text(cells))
    print()
    print(summary_text(rows))
    for suffix, path in outputs.items():
        if suffix == ".csv":
            write_text_atomic(path, csv_text(cells))
        else:
            write_bytes_atomic(path, plot_png(rows, f"racecert batch: {len(rows)} result(s) "
                                                    f"in {Path(db).name}"))
        print(f"wrote {path}", file=sys.stderr)


def cmd_batch(args: argparse.Namespace) -> int:
    """Run the batch; a batch that cannot run or a database that cannot be used is one
    line and exit status 2 (caught here, so that `racecert.cli` need not import the
    batch machinery to recognise these errors)."""
    try:
        return _batch(args)
    except (BatchError, StoreError) as exc:
        return print_error(exc)


def _batch(args: argparse.Namespace) -> int:
    _check_combinations(args)
    report_only = not args.tracks
    db = Path(args.db) if report_only else check_output_file(args.db)
    outputs = report_outputs(args, db)
    paths = expand_tracks(track_inputs(args.tracks))
    with ResultStore(db, read_only=report_only) as store:
        rows = store.rows() if report_only else _run(args, store, paths)
    if rows is None:
        return EXIT_INTERRUPTED
    if not report_only:
        _print_outcome(rows)
    if args.report:
        _write_report(rows, outputs, args.db)
    return 0 if report_only else exit_status(rows)
