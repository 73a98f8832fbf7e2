"""The child process that runs one analysis or certificate for the studio.

Each job runs in its own process, `python -m racecert.studio.worker`, started by
`racecert.studio.jobs`: the page can cancel it at any point, also in the middle
of a numpy kernel or a CP-SAT solve, by ending the process, and a job that runs
out of memory ends alone with a one-line message instead of taking the server
down. The job arrives as one JSON object on stdin ({kind, toml, options,
limits}); the events leave as JSON lines on stdout.

Bounds, in the project's deterministic work units: the BFS stops once it has
explored `max_states` states (`WorkLimitReached`); CP-SAT gets `cpsat_budget`
deterministic time per solve and enumerates at most `count_limit` solutions;
and the process's address space is capped at `memory_bytes`, which bounds the
steps that report no progress (yellow, laps, continuity). Every outcome is one
event on stdout: progress (`step`, `bfs`), then `result` or `error`.
"""

from __future__ import annotations

import importlib
import json
import os
import resource
import signal
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, TextIO

from racecert.collector import collect_less
from racecert.model.budget import LimitReached, StateBudget
from racecert.model.errors import TrackError
from racecert.model.parse import parse_track
from racecert.model.profiles import GRID, profile_of
from racecert.studio.race_job import race_error_types, race_payload

PROGRESS_INTERVAL = 0.1
"""Least seconds between two BFS progress events (the page redraws no faster)."""


@dataclass(frozen=True)
class JobLimits:
    """The work one job may do (see the module docstring)."""

    max_states: int = 20_000_000
    memory_bytes: int = 6 * 2**30
    cpsat_budget: float = 20.0
    count_limit: int = 20_000


class WorkLimitReached(Exception):
    """The BFS explored more states than the job's limit allows."""


class _Reporter:
    """Turns the engine's progress callbacks into throttled events on `out`."""

    def __init__(self, out: TextIO, limits: JobLimits) -> None:
        self.out, self.limits = out, limits
        self.last = 0.0

    def put(self, event: dict[str, Any]) -> None:
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    def step(self, name: str) -> None:
        self.put({"type": "step", "name": name})

    def bfs(self, depth: int, frontier: int, states: int) -> None:
        if states > self.limits.max_states:
            raise WorkLimitReached(f"resource limit reached: the BFS explored {states:,} "
                                   f"states (the studio's limit is "
                                   f"{self.limits.max_states:,})")
        now = time.monotonic()
        if now - self.last >= PROGRESS_INTERVAL:
            self.last = now
            self.put({"type": "bfs", "depth": depth, "frontier": frontier, "states": states})


MACHINERY = {"analyze": ("racecert.analysis.profiles", "racecert.studio.payload",  # no solver
                         "racecert.studio.view_payload"),
             "certify": ("racecert.certification.profiles", "racecert.studio.payload",
                         "racecert.studio.view_payload")}
"""What a job of each kind imports in its own process (`compute`), never in the server."""


def _import_machinery(kind: str) -> None:
    """Import what a `kind` job runs before its memory is capped (the cap bounds the work,
    as when these modules were imported with this one)."""
    for name in MACHINERY.get(kind, ()):
        importlib.import_module(name)


def _cap_memory(limit: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def compute(kind: str, toml: bytes, options: dict[str, Any], limits: JobLimits,
            report: _Reporter) -> dict[str, Any]:
    """Run the job in this process; the page's payload. The analysis and the certificate
    machinery (OR-Tools, sympy, pandas: about a second of imports) and the payloads built
    from them are imported here, in the job's own process, never by the server, which
    imports this module for `JobLimits` and `job_message` only.

    Every profile runs through its registry entry (`racecert.analysis.profiles`,
    `racecert.certification.profiles`), as on the command line; a grid track's result
    becomes the editor's payload, any other profile's the read-only view's
    (`racecert.studio.view_payload`)."""
    track = parse_track(toml, options.get("file", "track"))
    grid = profile_of(track) is GRID
    if kind == "race":
        if not grid:
            raise TrackError("track", "", "a race job runs on grid tracks only")
        report.step("race")
        return race_payload(track, options)
    from racecert.studio import payload, view_payload

    if kind == "analyze":
        from racecert.analysis.profiles import analysis_profile

        if not grid:
            report.step("analysis")
        a = analysis_profile(track).analyze(
            track, mode=options.get("mode", "exact") if grid else "exact",
            progress=report.bfs, step=report.step if grid else None)  # progress: the limit
        return payload.analysis_payload(a) if grid else view_payload.view_analysis_payload(a)
    from racecert.certification.profiles import certification_profile

    c = certification_profile(track).certify(
        track, step=report.step, cpsat_budget=limits.cpsat_budget,
        count_limit=limits.count_limit,
        budget=None if grid else StateBudget(limits.max_states, "--max-states"))
    return (payload.certificate_payload(c) if grid  # type: ignore[arg-type]
            else view_payload.view_certificate_payload(c))  # type: ignore[arg-type]


def run_job(job: dict[str, Any], out: TextIO) -> None:
    """Compute `job` ({kind, toml, options, limits}), then write exactly one `result` or
    `error` event after the progress events."""
    limits = JobLimits(**job.get("limits", {}))
    report = _Reporter(out, limits)
    try:
        _import_machinery(job["kind"])
        _cap_memory(limits.memory_bytes)
        data = compute(job["kind"], job["toml"].encode("utf-8"), job.get("options", {}), limits,
                       report)
        event = {"type": "result", "data": data}
    except (TrackError, *race_error_types()) as exc:
        event = {"type": "error", "message": " ".join(str(exc).split())}
    except (WorkLimitReached, LimitReached) as exc:
        event = {"type": "error", "message": str(exc), "limit": True}
    except MemoryError:
        event = {"type": "error", "limit": True,
                 "message": f"resource limit reached: the job needed more than "
                            f"{limits.memory_bytes / 2**30:.1f} GiB of memory"}
    except Exception as exc:  # noqa: BLE001 - reported to the page as one line, never a trace
        event = {"type": "error", "message": f"internal error: {type(exc).__name__}: {exc}"}
    report.put(event)


def job_message(kind: str, toml: str, options: dict[str, Any], limits: JobLimits) -> str:
    """The stdin line that starts a worker on this job."""
    return json.dumps({"kind": kind, "toml": toml, "options": options, "limits": asdict(limits)})


def main() -> None:
    """Read the job from stdin, run it, write events to stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    collect_less()  # racecert.collector: fewer full collections of a growing heap
    job = json.loads(sys.stdin.readline())
    events = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # anything else printed, by Python or a C library, goes to stderr
    sys.stdout = sys.stderr
    run_job(job, events)


if __name__ == "__main__":
    main()
