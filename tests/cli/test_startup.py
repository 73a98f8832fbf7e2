"""Start-up cost: the light commands never import the heavy libraries (issue #18).

Every `racecert` process pays for what its imports load before it does any work,
and the suite starts hundreds of them. `--version`, `validate` and `analyze` need
none of the batch runner (Dask, DuckDB, matplotlib), the studio (Starlette,
Uvicorn), nor the certification's solvers (OR-Tools, PySAT, sympy); nor does
`import racecert` or its `load_track` and `analyze`; nor does the `studio` server,
whose jobs each run the certificate (or analysis) in a process of their own (the
server adds Starlette and Uvicorn only); nor does a `batch` that analyses, in its
client or its tasks; `validate` does not load numba either. The cases run in fresh
interpreters, so that nothing the test process already loaded can hide an import,
which write `sys.modules` to a file as they exit (`-X importtime` would not do: it
does not list the modules loaded through `importlib.import_module`); the cases that
must load no heavy library share one interpreter (what none of them loads, none of
them loads alone).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = "tracks/tiny_straight.toml"
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
HEAVY = ("dask", "distributed", "duckdb", "starlette", "uvicorn", "sympy", "ortools", "pysat",
         "matplotlib")
# Prepended to the code each child runs: at exit (SystemExit included), every module
# name in sys.modules, one a line, to the file named by the environment.
PROBE = """\
import atexit, os, sys
atexit.register(lambda: open(os.environ["STARTUP_MODULES"], "w").write("\\n".join(sys.modules)))
"""
# `python -m racecert ARGS...` itself, run by runpy after the probe is in place.
AS_MAIN = ("import runpy; sys.argv[0] = 'racecert'; "
           "runpy.run_module('racecert', run_name='__main__', alter_sys=True)")


def imported_modules(tmp: Path, code: str, *args: str
                     ) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `code` (with ARGS as sys.argv[1:]) in a fresh interpreter from the repository
    root; its result and the names of every module it had imported when it exited."""
    out = tmp / "modules.txt"
    res = subprocess.run([sys.executable, "-c", PROBE + code, *args], cwd=ROOT,
                         env=dict(ENV, STARTUP_MODULES=str(out)), capture_output=True,
                         text=True, timeout=300)
    return res, set(out.read_text().split())


def heavy_in(names: set[str]) -> list[str]:
    """The heavy top-level packages among `names`."""
    return sorted({n.partition(".")[0] for n in names} & set(HEAVY))


# Analyses as the other processes run them, one after the other in one interpreter: a
# batch task as a Dask worker runs it (`run_job`, after the `batch` client's modules are
# loaded), then a studio Analyse job as its worker process runs it; both of the tiny
# track, each printing its status.
ANALYSIS_JOBS = f"""\
import hashlib, io, json, racecert.cli.batch
from racecert.batch.task import TrackJob, racecert_version, run_job
data = open({TINY!r}, "rb").read()
job = TrackJob({TINY!r}, hashlib.sha256(data).hexdigest(), data, "exact", racecert_version())
print(run_job(job).status)
from racecert.studio import worker
out = io.StringIO()
worker.run_job(json.loads(worker.job_message("analyze", data.decode(), {{}},
                                             worker.JobLimits())), out)
print(json.loads(out.getvalue().splitlines()[-1])["type"])
"""


# The light cases, one after the other in one fresh interpreter, each printing a line that
# starts with its name: `python -m racecert --version` and `python -m racecert analyze`
# (runpy, as -m runs them; each must exit 0), `import racecert`, and the API's
# analysis; then ANALYSIS_JOBS. A heavy library (or the certificate) absent when all have
# run is absent after each of them: one interpreter checks them all (five, before: each
# paid the interpreter's start-up and numba's cached kernels, ~0.9 CPU s).
LIGHT = f"""\
import contextlib, io, runpy
def as_main(*argv):
    sys.argv[:] = ["racecert", *argv]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_module("racecert", run_name="__main__", alter_sys=True)
    except SystemExit as exit:
        assert exit.code in (0, None), (argv, exit.code)  # else this process exits 1
    return out.getvalue()
print("--version", as_main("--version"), end="")
print("analyze", as_main("analyze", {TINY!r}), end="")
import racecert
print("import", racecert.__version__, racecert.TrackError.__name__)
print("api-analyze", racecert.analyze(racecert.load_track({TINY!r})))
""" + ANALYSIS_JOBS


@pytest.fixture(scope="module")
def light_run(tmp_path_factory: pytest.TempPathFactory
              ) -> tuple[subprocess.CompletedProcess, set[str]]:
    return imported_modules(tmp_path_factory.mktemp("light"), LIGHT)


@pytest.mark.parametrize(("case", "expected_out"), [
    ("--version", "racecert "), ("analyze", "track "), ("import", ""),
    ("api-analyze", "Analysis('Tiny straight'"),
], ids=["--version", "analyze", "import", "api-analyze"])
def test_light_commands_import_no_heavy_library(
        case: str, expected_out: str,
        light_run: tuple[subprocess.CompletedProcess, set[str]]) -> None:
    res, names = light_run
    assert res.returncode == 0, res.stderr[-2000:]
    assert any(line.startswith(f"{case} {expected_out}") for line in res.stdout.splitlines()), \
        res.stdout
    assert "racecert" in names  # the probe really sees the process's imports
    assert heavy_in(names) == [], f"{case} (with the other light cases) imported " \
        f"{heavy_in(names)}"


def test_the_probe_sees_a_heavy_import(
        tmp_path: Path, light_run: tuple[subprocess.CompletedProcess, set[str]]) -> None:
    """The same probe on a command that needs a heavy library does list it (`studio
    --help` loads Starlette and Uvicorn): an empty list above is the imports' absence,
    not a probe that sees nothing; and it sees numba where it loads (the light cases'
    analysis, for the validate test below)."""
    res, names = imported_modules(tmp_path, AS_MAIN, "studio", "--help")
    assert res.returncode == 0 and {"starlette", "uvicorn"} <= set(heavy_in(names))
    assert {"numba", "racecert.model.rules"} <= light_run[1]


def test_validate_loads_only_its_own_command_and_no_compiler(tmp_path: Path) -> None:
    """`validate` (of a track of each profile) builds its own subcommand's parser only: the
    other subcommands' modules (whose imports are heavier) stay unloaded; it loads no
    heavy library, and not numba either: the profiles' rules (whose kernels are compiled)
    load at a profile's first `rules()` call, which validating never makes
    (racecert/model/profiles.py; the probe does see numba where it loads, above)."""
    tracks = [TINY, "tracks/lattice/riddler.toml", "tracks/cellpath/hairpin.toml"]
    res, names = imported_modules(tmp_path, AS_MAIN, "validate", *tracks)
    assert res.returncode == 0, res.stderr[-2000:]
    assert [line.partition(": ok")[0] for line in res.stdout.splitlines()] == tracks
    assert {"racecert.model.lattice.track", "racecert.model.cellpath.track"} <= names
    assert heavy_in(names) == []
    commands = {n for n in names if n.startswith("racecert.cli.")}
    assert "racecert.cli.validate" in commands
    assert not commands & {"racecert.cli.analyze", "racecert.cli.certify", "racecert.cli.batch",
                           "racecert.cli.studio", "racecert.cli.race"}
    assert not {n for n in names if n.partition(".")[0] == "numba"}
    assert not {"racecert.model.rules", "racecert.model.lattice.rules",
                "racecert.model.cellpath.rules"} & names


def test_batch_and_studio_analyses_load_no_certificate(
        light_run: tuple[subprocess.CompletedProcess, set[str]]) -> None:
    """`racecert batch` (mode exact) with its tasks, and a studio Analyse job's worker,
    need the analysis only: the certificate's modules and solvers load where a task or
    job certifies."""
    res, names = light_run  # ANALYSIS_JOBS ran last, after the light cases
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.splitlines()[-2:] == ["ok", "result"]
    assert {"racecert.cli.batch", "racecert.batch.task", "racecert.studio.payload",
            "racecert.analysis.pipeline"} <= names  # the probe saw them
    assert heavy_in(names) == []
    assert "racecert.certification.certificate" not in names


def test_the_studio_server_loads_no_certificate(tmp_path: Path) -> None:
    """`racecert studio` starts, serves the page's session (a track read and checked, the
    race's drivers listed) and ends at Ctrl-C without the certificate and its solvers:
    each job imports them in its own `racecert.studio.worker` process."""
    out = tmp_path / "modules.txt"
    proc = subprocess.Popen([sys.executable, "-c", PROBE + AS_MAIN, "studio", TINY,
                             "--port", "0", "--folder", str(tmp_path)], cwd=ROOT,
                            env=dict(ENV, STARTUP_MODULES=str(out)), stderr=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stderr.readline()
        assert line.startswith("racecert studio: http://127.0.0.1:"), line
        url, _, token = line.split()[2].partition("/?token=")
        session = json.loads(urllib.request.urlopen(urllib.request.Request(
            url + "/api/session", headers={"X-Racecert-Token": token}), timeout=30).read())
        assert session["initial"]["document"]["name"] == "Tiny straight"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    names = set(out.read_text().split())
    assert {"racecert.studio.app", "racecert.studio.worker"} <= names  # the probe saw it
    assert heavy_in(names) == ["starlette", "uvicorn"]
    assert not {"racecert.certification.certificate", "racecert.studio.payload"} & names
