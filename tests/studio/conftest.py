"""Fixtures of the studio tests: an app over a temporary folder, its test client, tracks.

Jobs: the studio runs each job in a child process (`python -m racecert.studio.worker`),
which imports the analysis or the certificate machinery afresh, about a second of CPU a
job. Where that process is not what a test is about, the job runs in a thread of the test
process instead (`_jobs_in_threads`, automatic): the same `worker.run_job` on the same JSON
job line, its events read back through a pipe by the same `JobManager`. A test of what
only a process does (Ctrl-C, cancelling, a child's start-up and end) asks for the
`job_processes` fixture and gets real children.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import types
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from racecert.studio import jobs, worker
from racecert.studio.app import StudioConfig, create_app
from racecert.studio.files import Roots, bundled_tracks

TRACKS = Path(__file__).resolve().parent.parent.parent / "tracks"


def open_field(width: int, height: int, name: str = "Open field") -> str:
    """A valid stage: walls around an open rectangle, S near the left, F near the right."""
    rows = ["#" * width] + ["#" + "." * (width - 2) + "#"] * (height - 2) + ["#" * width]
    grid = "\n".join(rows)
    return (f'name = "{name}"\n\n[car]\nposition = [2, {height // 2}]\ndirection = "+x"\n\n'
            f'[start]\nx = 3\ny = [1, {height - 2}]\ndir = "+x"\n\n'
            f'[finish]\nx = {width - 4}\ny = [1, {height - 2}]\ndir = "+x"\n\n'
            f'[map]\nground = """\n{grid}\n"""\n')


def make_app(folder: Path, initial: Path | None = None, **config):
    return create_app(StudioConfig(Roots.of([folder], bundled_tracks()), initial=initial,
                                   **config))


def studio_client(app) -> TestClient:
    """A test client of `app` that sends the session's token, as the page does."""
    return TestClient(app, base_url="http://127.0.0.1",
                      headers={"X-Racecert-Token": app.state.token})


@pytest.fixture
def client(tmp_path: Path):
    with studio_client(make_app(tmp_path)) as c:
        yield c


class ThreadJob:
    """What `JobManager.start` uses of a `subprocess.Popen` of the worker, run as a thread:
    the job line arrives on `stdin` (a pipe), `worker.run_job` writes its events to `stdout`
    (a pipe), as the child's `main` does; there is no process to end, so cancelling is for
    tests with `job_processes`."""

    def __init__(self, args: list[str], *, encoding: str = "utf-8", **_: object) -> None:
        assert args[1:] == ["-m", "racecert.studio.worker"], args
        job_r, job_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self.stdin = open(job_w, "w", encoding=encoding)  # noqa: SIM115 - the caller closes it
        self.stdout = open(out_r, encoding=encoding)  # noqa: SIM115
        self.stderr = open(err_r, encoding=encoding)  # noqa: SIM115
        self.returncode: int | None = None
        self._thread = threading.Thread(target=self._run, args=(job_r, out_w, err_w, encoding),
                                        daemon=True)
        self._thread.start()

    def _run(self, job_r: int, out_w: int, err_w: int, encoding: str) -> None:
        with open(job_r, encoding=encoding) as job, \
                open(out_w, "w", encoding=encoding) as events, open(err_w, "w"):
            line = job.readline()
            if line:
                worker.run_job(json.loads(line), events)
        self.returncode = 0

    def wait(self, timeout: float | None = None) -> int:
        self._thread.join(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired("racecert.studio.worker (thread)", timeout or 0)
        return self.returncode

    def poll(self) -> int | None:
        return self.returncode

    def terminate(self) -> None:
        raise AssertionError("a job run as a thread cannot be cancelled: ask for the "
                             "job_processes fixture")

    kill = terminate


@pytest.fixture
def job_processes() -> None:
    """Real worker processes for this test's jobs (see the module docstring)."""


@pytest.fixture(autouse=True)
def _jobs_in_threads(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Jobs as threads of this process unless the test asks for `job_processes`; the job's
    address-space cap (`worker._cap_memory`, its own process's) is left out there."""
    if "job_processes" in request.fixturenames:
        return
    monkeypatch.setattr(jobs, "subprocess", types.SimpleNamespace(
        Popen=ThreadJob, PIPE=subprocess.PIPE, TimeoutExpired=subprocess.TimeoutExpired))
    monkeypatch.setattr(worker, "_cap_memory", lambda limit: None)
