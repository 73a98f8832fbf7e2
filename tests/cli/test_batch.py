"""`racecert batch` on the command line: rows and report files, bad input and arguments in one
line, an existing scheduler by address, and a batch stopped by Ctrl-C and by SIGKILL that
the same command then completes without a duplicate row; a damaged database file and one
another process holds are one line each, and the file is left as it was."""

from __future__ import annotations

import csv
import dataclasses
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from racecert.batch.report import report_cells, table_text
from racecert.batch.store import ResultRow, ResultStore
from racecert.batch.task import TrackOutcome
from racecert.certification.certificate import certify
from racecert.cli import batch as cli_batch
from racecert.cli import main
from racecert.cli.batch import exit_status
from racecert.model.parse import load_track
from tests.batch.conftest import BAD_TRACK, write_tracks

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture
def scheduler() -> str:
    """An in-process Dask cluster (threads) reached by its address, as `--scheduler` is."""
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


def test_batch_and_report_on_a_scheduler(tmp_path: Path, scheduler: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    tracks = tmp_path / "tracks"
    write_tracks(tracks, 5)
    (tracks / "broken.toml").write_text(BAD_TRACK)
    db, out_csv, out_png = tmp_path / "r.duckdb", tmp_path / "t.csv", tmp_path / "p.png"
    argv = ["batch", str(tracks), "--db", str(db), "--scheduler", scheduler]
    assert main(argv) == 2  # the malformed track is bad input; the others ran
    out = capsys.readouterr().out
    assert out.startswith("6 track(s): 1 error, 5 ok")
    assert "[input] " + str(tracks / "broken.toml") + ": map: missing required table" in out

    assert main([*argv, "--report", "-o", str(out_csv), "-o", str(out_png)]) == 2
    captured = capsys.readouterr()
    assert "0 to run, 6 already in" in captured.err
    with ResultStore(db, read_only=True) as store:
        rows = store.rows()
    cells = report_cells(rows)
    assert table_text(cells) in captured.out
    with open(out_csv, newline="") as fh:
        read = [tuple(r) for r in csv.reader(fh)]
    assert read == cells
    by_track = {r.track: r for r in rows}
    for line in read[1:]:
        r = by_track[line[0]]
        assert line[3] == r.status and line[4] == ("" if r.m_star is None else str(r.m_star))
        assert line[5] == (r.optimal_count or "")
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_certify_rows_carry_the_certificate_status(tmp_path: Path, scheduler: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    track = ROOT / "tracks" / "tiny_straight.toml"
    db = tmp_path / "c.duckdb"
    code = main(["batch", str(track), "--certify", "--cpsat-budget", "20", "--db", str(db),
                 "--scheduler", scheduler])
    with ResultStore(db, read_only=True) as store:
        (row,) = store.rows()
    expected = certify(load_track(track), cpsat_budget=20.0).status
    assert (row.mode, row.status) == ("certify", expected)
    assert code == {"certified": 0, "partial": 3, "disagree": 1}[expected]
    assert capsys.readouterr().out.startswith(f"1 track(s): 1 {expected}")


def test_report_alone_reads_the_database(tmp_path: Path, scheduler: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    write_tracks(tmp_path / "tracks", 2)
    db = tmp_path / "lib.duckdb"
    assert main(["batch", str(tmp_path / "tracks"), "--db", str(db), "--scheduler",
                 scheduler]) == 0
    capsys.readouterr()
    assert main(["batch", "--report", "--db", str(db)]) == 0
    assert (tmp_path / "lib.csv").is_file() and (tmp_path / "lib.png").is_file()
    assert "2 result(s): exact ok 2" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    ([], "give TRACK files, folders or patterns, or --report"),
    (["x.toml", "--certify", "--mode", "editor"], "--certify certifies the exact key"),
    (["x.toml", "--scheduler", "tcp://h:1", "--workers", "2"], "with --scheduler the workers"),
    (["x.toml", "-o", "a.csv"], "-o/--out names report files: add --report"),
    (["x.toml", "--workers", "0"], "--workers: 0 is out of range"),
    (["x.toml", "--max-states", "-5"], "--max-states: -5 is out of range"),
])
def test_bad_arguments_are_one_line(extra: list[str], message: str,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["batch", *extra])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and message in err


def test_bad_paths_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tracks(tmp_path / "tracks", 1)
    t = str(tmp_path / "tracks")
    cases = [
        (["batch", t, "--db", str(tmp_path / "no" / "r.duckdb")], "does not exist"),
        (["batch", str(tmp_path / "missing"), "--db", str(tmp_path / "r.duckdb")],
         "no such file or folder"),
        (["batch", t, "--db", str(tmp_path / "r.duckdb"), "--report", "-o",
          str(tmp_path / "x.txt")], "unknown suffix '.txt'"),
        (["batch", "--report", "--db", str(tmp_path / "none.duckdb")], "no such database"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "r.duckdb").exists()


def _database(path: Path, rows: int = 40) -> bytes:
    """A real results database written by the project's store (`rows` rows); its bytes."""
    with ResultStore(path) as store:
        for i in range(rows):
            store.record(TrackOutcome(f"t{i}.toml", f"{i:064x}", "exact", "1", "ok", m_star=i,
                                      optimal_count=str(3**i), json=f'{{"m_star": {i}}}'))
    return path.read_bytes()


def _truncated(data: bytes) -> bytes:
    return data[:len(data) // 3]


def _bit_flipped(data: bytes) -> bytes:
    damaged = bytearray(data)
    damaged[3 * 4096 + 64] ^= 0x10  # inside the first block after DuckDB's three headers
    return bytes(damaged)


@pytest.mark.parametrize("damage", [_truncated, _bit_flipped])
@pytest.mark.parametrize("report", [False, True])
def test_a_damaged_database_is_one_line_and_left_as_it_was(
        tmp_path: Path, damage, report: bool, capsys: pytest.CaptureFixture[str]) -> None:
    """A truncated or bit-flipped file: `batch` and `batch --report` say it is damaged (not
    "in use": DuckDB's checksum message says "block"), name it, suggest moving it aside,
    exit 2, and write nothing: the file keeps its bytes and nothing appears beside it."""
    write_tracks(tmp_path / "tracks", 1)
    db = tmp_path / "r.duckdb"
    damaged = damage(_database(db))
    db.write_bytes(damaged)
    before = sorted(tmp_path.iterdir())
    argv = ["batch", "--report", "--db", str(db)] if report else \
        ["batch", str(tmp_path / "tracks"), "--db", str(db), "--workers", "1"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    assert captured.err.startswith(f"error: {db}: the database file is damaged")
    assert f"move it aside (e.g. mv {db} {db}.damaged)" in captured.err
    assert "in use by another process" not in captured.err
    assert db.read_bytes() == damaged
    assert sorted(tmp_path.iterdir()) == before


def test_a_database_another_process_holds_is_in_use(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    """DuckDB's lock conflict (another process has the file open to write) is told apart
    from damage: one line saying it is in use, exit 2, for `batch` and `batch --report`
    (run in-process: the other process is the holder)."""
    write_tracks(tmp_path / "tracks", 1)
    db = tmp_path / "r.duckdb"
    _database(db, rows=2)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, duckdb; con = duckdb.connect(sys.argv[1]); "
         "print('HELD', flush=True); sys.stdin.read()", str(db)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "HELD"
        for argv in (["batch", "--report", "--db", str(db)],
                     ["batch", str(tmp_path / "tracks"), "--db", str(db), "--workers", "1"]):
            code = main(argv)
            err = capsys.readouterr().err
            assert code == 2, err
            assert len(err.splitlines()) == 1, err
            assert err.startswith(f"error: {db}: it is in use by another process")
            assert "damaged" not in err
    finally:
        holder.communicate("", timeout=60)


def test_exit_status_order() -> None:
    def row(status: str, kind: str | None = None) -> ResultRow:
        return ResultRow("t", "s", "certify", "v", status, None, kind, *[None] * 9, 0.0,
                         None, None, None)

    assert exit_status([row("ok"), row("certified")]) == 0
    assert exit_status([row("certified"), row("partial")]) == 3
    assert exit_status([row("partial"), row("error", "limit")]) == 4
    assert exit_status([row("error", "lost"), row("error", "input")]) == 2
    assert exit_status([row("error", "input"), row("disagree")]) == 1


def _rows(db: Path) -> tuple[int, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*), count(DISTINCT sha256) FROM results").fetchone()
    finally:
        con.close()


def _start(tracks: Path, db: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "racecert", "batch", str(tracks), "--db", str(db),
         "--workers", "1", "-v", *extra], cwd=ROOT, env=ENV, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)


def _stop_after(proc: subprocess.Popen, finished: int, sig: int) -> str:
    """Read stderr until `finished` tracks are reported done (committed), then send `sig`
    to the whole process group (as a terminal's Ctrl-C does); return all of stderr."""
    seen, lines = 0, []
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)
        seen += line.startswith("ok ")
        if seen == finished:
            os.killpg(proc.pid, sig)
            break
    rest = proc.communicate(timeout=120)[1]
    return "".join(lines) + rest


def test_ctrl_c_and_kill_lose_nothing_and_the_rerun_completes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C and SIGKILL stop real processes; the rerun that completes runs in-process,
    its local cluster's workers threads of this process (what is checked is what the
    database holds, not the workers: no worker processes to start). Ctrl-C stops a batch
    as run by default (its Dask dashboard served, closed on the way out); the SIGKILL run
    serves none (--dashboard 0: no bokeh to import, ~0.5 CPU s), since a process killed
    so runs no code of its own on the way out and what is checked is the database."""
    tracks, db = tmp_path / "tracks", tmp_path / "r.duckdb"
    write_tracks(tracks, 10, seed=8, size=(20, 16))

    proc = _start(tracks, db)
    err = _stop_after(proc, 2, signal.SIGINT)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    count, distinct = _rows(db)
    assert count == distinct and 2 <= count < 10
    # one line, the last, as every subcommand reports Ctrl-C (not a second "interrupted")
    assert [line for line in err.splitlines() if "interrupted" in line] == \
        [err.rstrip().splitlines()[-1]]
    assert err.rstrip().splitlines()[-1] == (
        f"interrupted: {count} of 10 task(s) finished and are kept in {db}; the same command "
        "resumes")

    proc = _start(tracks, db, "--dashboard", "0")
    err = _stop_after(proc, 2, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    assert f"{10 - count} to run, {count} already in" in err
    after_kill, distinct = _rows(db)
    assert after_kill == distinct and count + 2 <= after_kill

    real_cluster = cli_batch._cluster
    monkeypatch.setattr(cli_batch, "_cluster",
                        lambda args: dataclasses.replace(real_cluster(args), processes=False))
    code = main(["batch", str(tracks), "--db", str(db), "--workers", "1"])
    done = capsys.readouterr()
    assert code == 0, done.err
    assert f"{10 - after_kill} to run, {after_kill} already in" in done.err
    assert done.out.startswith("10 track(s): 10 ok")
    assert _rows(db) == (10, 10)
