"""Benchmark of `racecert batch` (issue #13): throughput with 1 and 2 workers, and the
overhead of the batch layer against the same analyses in one process.

`section()` generates COUNT tracks of 40x40 (`racecert.batch.generate`, seed 13;
RACECERT_BENCH_BATCH_COUNT overrides COUNT), analyses them one after the other in
this process (parse + `analyze`, exact key), then runs the batch layer on them
(`execute` into a fresh DuckDB file) on a local cluster of 1 and of 2
single-threaded worker processes. Wall times: the batch's `execute` (tasks
submitted to the last row committed) apart from the cluster's start (which
includes each worker importing racecert) and stop.
Every batch row's m* and optimal count are compared with the one-process run.
CPU seconds of the batch: every worker's and the client process's (it hosts the local
scheduler and the nannies), over `execute`.
Targets (issue #13): >= 1.7x throughput from 1 to 2 workers; batch overhead <= 10 %.
On a shared machine the load average (printed) bounds what 2 workers can gain.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import time
from pathlib import Path

from racecert.analysis import analyze
from racecert.batch.generate import generate_tracks
from racecert.batch.runner import BatchSettings, ClusterSpec, dask_client, execute, plan_batch
from racecert.batch.store import ResultStore
from racecert.model.parse import load_track

COUNT = int(os.environ.get("RACECERT_BENCH_BATCH_COUNT", "200"))
SIZE = (40, 40)
SEED = 13
TARGET_SCALING = 1.7
TARGET_OVERHEAD = 0.10


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def one_process(paths: list[str]) -> tuple[float, float, dict[str, tuple]]:
    """Wall and CPU seconds of parse + analyze of every path in this process; figures."""
    figures = {}
    w0, c0 = time.perf_counter(), time.process_time()
    for p in paths:
        a = analyze(load_track(p))
        figures[p] = (a.bfs.m_star, str(a.bfs.optimal_count))
    return time.perf_counter() - w0, time.process_time() - c0, figures


def batch(paths: list[str], folder: Path, workers: int
          ) -> tuple[float, float, float, dict[str, tuple]]:
    """(start-up s, execute wall s, execute CPU s of the workers and the client, figures)
    of one batch on `workers` workers."""
    db = folder / f"bench-{workers}.duckdb"
    with ResultStore(db) as store:
        jobs = plan_batch(paths, store, BatchSettings()).jobs
        t0 = time.perf_counter()
        with dask_client(ClusterSpec(workers=workers)) as client:
            client.wait_for_workers(workers)
            client.run(importlib.import_module, "racecert.batch.task")  # imports: start-up
            cpu0 = sum(client.run(time.process_time).values()) + time.process_time()
            t1 = time.perf_counter()
            execute(client, jobs, store)
            t2 = time.perf_counter()
            cpu1 = sum(client.run(time.process_time).values()) + time.process_time()
        rows = store.rows()
    return t1 - t0, t2 - t1, cpu1 - cpu0, {r.track: (r.m_star, r.optimal_count) for r in rows}


def section() -> str:
    load_before = _load()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = []
        for g in generate_tracks(SEED, COUNT, *SIZE):
            path = folder / g.filename
            path.write_text(g.text)
            paths.append(str(path))
        analyze(load_track(paths[0]))  # warm-up (imports, caches)
        wall0, cpu0, truth = one_process(paths)
        start1, run1, cpu1, got1 = batch(paths, folder, 1)
        start2, run2, cpu2, got2 = batch(paths, folder, 2)
    same = got1 == truth and got2 == truth
    scaling = run1 / run2
    overhead = run1 / wall0 - 1
    cpu_overhead = cpu1 / cpu0 - 1
    rows = [
        ("one process (parse + analyze, no batch)", "-", wall0, cpu0, ""),
        ("batch, 1 worker", f"{start1:.1f}", run1, cpu1,
         f"overhead {overhead * 100:+.1f} % wall, {cpu_overhead * 100:+.1f} % CPU"),
        ("batch, 2 workers", f"{start2:.1f}", run2, cpu2, f"scaling {scaling:.2f}x"),
    ]
    lines = [
        "## Batch on Dask (issue #13)",
        "",
        f"`benchmarks/bench_batch.py`: {COUNT} generated {SIZE[0]}x{SIZE[1]} tracks (seed "
        f"{SEED}), exact key. The batch times run from the first task submitted to the last "
        "row committed in DuckDB; the cluster's start-up (workers importing racecert "
        "included) is its own column. Load average "
        f"before: {load_before}; after: {_load()} ({os.cpu_count()} logical cores).",
        "",
        "| run | cluster start s | wall s | CPU s | tracks/s | note |",
        "|---|---|---|---|---|---|",
        *(f"| {name} | {start} | {wall:.1f} | {cpu:.1f} | {COUNT / wall:.2f} | {note} |"
          for name, start, wall, cpu, note in rows),
        "",
        f"- Figures (m*, optimal count) of every batch row equal the one-process run: "
        f"{'yes' if same else '**NO**'}.",
        f"- Scaling 1 -> 2 workers: {scaling:.2f}x (target >= {TARGET_SCALING}x): "
        f"{'met' if scaling >= TARGET_SCALING else 'not met'}.",
        f"- Batch overhead, 1 worker vs one process: {overhead * 100:+.1f} % in wall time "
        f"(target <= {TARGET_OVERHEAD * 100:.0f} %): "
        f"{'met' if overhead <= TARGET_OVERHEAD else 'not met'}; {cpu_overhead * 100:+.1f} % "
        "in CPU time (the workers' and the client process's, which hosts the local scheduler "
        "and the nannies; each task also writes its JSON report, which the one-process run "
        "does not).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(section())
