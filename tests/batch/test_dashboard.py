"""The Dask dashboard of `racecert batch` (issue #22): its address is printed on stderr when
the batch starts and answers HTTP GET with 200 while the batch runs; a port in use gives
another one, and the line says so; `--dashboard 0` prints nothing and serves no dashboard.

The batches run in-process (the local cluster's workers as threads, one tiny track), so
each test costs a cluster start and no worker process."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import racecert.cli.batch as cli_batch
from racecert.batch.runner import ClusterSpec, dashboard_missing
from racecert.cli import main
from racecert.model.parse import load_track

TRACK = Path(__file__).resolve().parents[2] / "tracks" / "tiny_straight.toml"
URL = re.compile(r"^racecert batch: Dask dashboard at (http://127\.0\.0\.1:(\d+)/status)"
                 r"( \(port (\d+) is in use\))?$", re.M)


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@dataclasses.dataclass
class Seen:
    """What the batch printed before its tasks ran, and the HTTP status of the dashboard
    (or of /status on the scheduler's HTTP port) at that moment."""

    err: str = ""
    status: int | None = None
    http_port: int | None = None


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Seen:
    """Threads instead of worker processes; just before the tasks run, read what was
    printed and GET the printed address (else /status on the scheduler's HTTP port)."""
    got = Seen()
    real_cluster, real_execute = cli_batch._cluster, cli_batch.execute

    def threads(args: Any) -> ClusterSpec:
        return dataclasses.replace(real_cluster(args), processes=False)

    def execute(client: Any, *rest: Any) -> Any:
        got.err = capsys.readouterr().err
        got.http_port = client.scheduler_info(n_workers=0)["services"].get("dashboard")
        found = URL.search(got.err)
        url = found.group(1) if found else f"http://127.0.0.1:{got.http_port}/status"
        got.status = http_status(url)
        return real_execute(client, *rest)

    monkeypatch.setattr(cli_batch, "_cluster", threads)
    monkeypatch.setattr(cli_batch, "execute", execute)
    return got


@pytest.fixture
def port_in_use() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def batch(tmp_path: Path, *extra: str) -> int:
    return main(["batch", str(TRACK), "--workers", "1", "--db", str(tmp_path / "r.duckdb"),
                 *extra])


def test_the_dashboard_address_is_printed_and_answers(tmp_path: Path, seen: Seen) -> None:
    port = free_port()
    assert batch(tmp_path, "--dashboard", str(port)) == 0
    found = URL.search(seen.err)
    assert found, seen.err
    assert found.group(1) == f"http://127.0.0.1:{port}/status" and found.group(3) is None
    assert seen.status == 200
    assert seen.err.count("Dask dashboard") == 1  # Dask's own warnings and logs stay silent


def test_a_port_in_use_gives_another_and_says_so(tmp_path: Path, seen: Seen,
                                                 port_in_use: int) -> None:
    assert batch(tmp_path, "--dashboard", str(port_in_use)) == 0
    found = URL.search(seen.err)
    assert found, seen.err
    assert int(found.group(2)) != port_in_use and int(found.group(4)) == port_in_use
    assert seen.status == 200
    assert "already in use" not in seen.err


def test_dashboard_0_prints_nothing_and_serves_none(tmp_path: Path, seen: Seen) -> None:
    assert batch(tmp_path, "--dashboard", "0") == 0
    assert "Dask dashboard" not in seen.err and "/status" not in seen.err, seen.err
    assert seen.http_port not in (None, 8787)  # only the health routes, on a free port
    assert seen.status == 404


def test_dashboard_with_scheduler_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["batch", str(TRACK), "--scheduler", "tcp://127.0.0.1:1", "--dashboard", "9000"])
    assert exc.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("racecert batch: error: --dashboard sets up the local cluster's "
                           "dashboard; with --scheduler the dashboard is the scheduler's")


def test_dashboard_port_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        batch(tmp_path, "--dashboard", "70000")
    assert "--dashboard: 70000 is out of range: a port from 0 to 65,535" in capsys.readouterr().err


def test_a_missing_bokeh_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    assert dashboard_missing() is None  # bokeh is a dependency (pyproject.toml)
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "bokeh":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert dashboard_missing() == ("bokeh is not installed (the dashboard needs "
                                   "bokeh>=3.1.0)")
    monkeypatch.setattr(importlib.metadata, "version",
                        lambda name: "2.4.3" if name == "bokeh" else real(name))
    assert dashboard_missing() == "bokeh 2.4.3 is installed (the dashboard needs bokeh>=3.1.0)"


def test_the_track_is_analysed_as_usual(tmp_path: Path, seen: Seen,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The dashboard changes nothing in the rows."""
    from racecert.analysis import analyze
    from racecert.batch.store import ResultStore

    assert batch(tmp_path, "--dashboard", "0") == 0
    with ResultStore(tmp_path / "r.duckdb", read_only=True) as store:
        (row,) = store.rows()
    assert row.m_star == analyze(load_track(TRACK)).bfs.m_star


def test_on_a_scheduler_its_own_dashboard_is_named(tmp_path: Path, seen: Seen) -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address="127.0.0.1:0") as cluster:
        port = cluster.scheduler.http_server.port
        assert main(["batch", str(TRACK), "--db", str(tmp_path / "r.duckdb"),
                     "--scheduler", cluster.scheduler_address]) == 0
    assert (f"racecert batch: the scheduler's Dask dashboard (if it serves one): "
            f"http://127.0.0.1:{port}/status\n") in seen.err


@pytest.mark.parametrize("extra, port", [([], 8787), (["--dashboard", "9123"], 9123),
                                         (["--dashboard", "0"], None),
                                         (["--scheduler", "tcp://h:1"], None)])
def test_the_cluster_gets_the_port(extra: list[str], port: int | None) -> None:
    """Dask's own default port unless told otherwise; none for 0 or an existing scheduler
    (whose dashboard is its own)."""
    from racecert.cli import build_parser

    args = build_parser().parse_args(["batch", "x.toml", *extra])
    assert cli_batch._cluster(args).dashboard == port
