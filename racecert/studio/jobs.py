"""Analyses and certificates as cancellable background jobs, one child process each.

`JobManager.start` runs `python -m racecert.studio.worker` (the same interpreter
and the same racecert as the server), sends it the job on stdin, and starts a
thread that moves the JSON-line events it prints into `Job.events` (a list the
event stream reads by index, so a reconnecting page resumes where it was).
`cancel` ends the process (SIGTERM, then SIGKILL) and records a `cancelled`
event; a child that dies without a result (killed by the system, out of memory)
gets an `error` event saying so, with the last line it wrote on stderr. At most
`max_running` jobs run at once; the last `keep_finished` finished jobs are kept
for their results.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import racecert
from racecert.studio.worker import JobLimits, job_message

TERMINAL = ("result", "error", "cancelled")


class JobsBusy(Exception):
    """Too many jobs are running; the message says how to go on."""


@dataclass
class Job:
    """One running or finished job: its events so far and its state."""

    id: str
    kind: str
    process: subprocess.Popen
    events: list[dict[str, Any]] = field(default_factory=list)
    state: str = "running"  # running | done | failed | cancelled
    lock: threading.Lock = field(default_factory=threading.Lock)
    stderr: deque = field(default_factory=lambda: deque(maxlen=20))

    @property
    def finished(self) -> bool:
        return self.state != "running"

    def add(self, event: dict[str, Any]) -> bool:
        """Record an event (the first terminal one ends the job); False once finished."""
        with self.lock:
            if self.finished:
                return False
            self.events.append(event)
            if event["type"] in TERMINAL:
                self.state = {"result": "done", "error": "failed"}.get(event["type"],
                                                                      "cancelled")
            return True

    def to_json(self, since: int = 0) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "state": self.state,
                "events": self.events[since:]}


def _child_env() -> dict[str, str]:
    """The environment with this racecert first on the path (the child imports the same)."""
    env = dict(os.environ)
    root = str(Path(racecert.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


class JobManager:
    """Starts, follows and cancels jobs (see the module docstring)."""

    def __init__(self, limits: JobLimits | None = None, max_running: int = 2,
                 keep_finished: int = 16) -> None:
        self.limits = limits or JobLimits()
        self.max_running = max_running
        self.keep_finished = keep_finished
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    def running(self) -> int:
        return sum(not j.finished for j in self.jobs.values())

    def start(self, kind: str, toml: str, options: dict[str, Any]) -> Job:
        """Start a job; `JobsBusy` when `max_running` are running."""
        with self.lock:
            if self.running() >= self.max_running:
                raise JobsBusy(f"{self.max_running} jobs are running; wait for one or "
                               "cancel it")
            self._forget_old()
            process = subprocess.Popen(
                [sys.executable, "-m", "racecert.studio.worker"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_child_env(),
                text=True, encoding="utf-8", start_new_session=True)
            job = Job(secrets.token_hex(8), kind, process)
            self.jobs[job.id] = job
        assert process.stdin is not None
        with contextlib.suppress(OSError):  # the child died at once: _follow reports it
            process.stdin.write(job_message(kind, toml, options, self.limits) + "\n")
            process.stdin.close()
        threading.Thread(target=self._errors, args=(job,), daemon=True).start()
        threading.Thread(target=self._follow, args=(job,), daemon=True).start()
        return job

    def _forget_old(self) -> None:
        finished = [j for j in self.jobs.values() if j.finished]
        for job in finished[: max(0, len(finished) - self.keep_finished + 1)]:
            del self.jobs[job.id]

    def _errors(self, job: Job) -> None:
        """Keep the child's last stderr lines (for a child that dies without a result)."""
        assert job.process.stderr is not None
        for line in job.process.stderr:
            if line.strip():
                job.stderr.append(line.strip())

    def _follow(self, job: Job) -> None:
        """Move the child's events into `job.events` until its terminal event or its end."""
        assert job.process.stdout is not None
        for line in job.process.stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not job.add(event) or event["type"] in TERMINAL:
                break
        code = job.process.wait()
        last = f": {job.stderr[-1]}" if job.stderr else ""
        job.add({"type": "error", "message": "the job's process ended without a result "
                 f"(exit status {code}{last})"})

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def cancel(self, job: Job) -> None:
        """End the job's process; record `cancelled` unless it had finished already."""
        if job.add({"type": "cancelled"}):
            _end(job.process)

    def shutdown(self) -> None:
        """Cancel every running job (the server is stopping)."""
        for job in list(self.jobs.values()):
            self.cancel(job)


def _end(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=3)
