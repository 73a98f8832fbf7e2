"""The batch layer through its Python API on an in-process cluster (threads): one row per
track with the figures of a one-by-one `analyze`, re-runs skip, failures are rows, the
state limit, certificates, and a worker process killed mid-batch (Dask retries)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
from pathlib import Path

import duckdb
import pytest

from racecert.analysis import analyze
from racecert.batch.inputs import expand_tracks
from racecert.batch.runner import (
    BatchSettings,
    ClusterSpec,
    dask_client,
    execute,
    plan_batch,
    run_batch,
)
from racecert.batch.store import COLUMN_NAMES, ResultStore, StoreError
from racecert.batch.task import TrackJob, racecert_version, run_job
from racecert.certification.certificate import certify
from racecert.model.errors import TrackError
from racecert.model.parse import load_track
from tests.batch.conftest import BAD_TRACK, write_tracks
from tests.certification.test_lattice_certificate import SMALL

THREADS = ClusterSpec(workers=2, processes=False)
VOLATILE = ("seconds", "timings")  # wall-clock fields: differ between two runs


def _stable(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in VOLATILE}


def test_one_row_per_track_with_the_figures_of_analyze(tmp_path: Path) -> None:
    """Issue #13: a batch of 50 generated tracks on a 2-worker local cluster gives the same
    figures (and the same JSON report, timings aside) as one-by-one `analyze`."""
    write_tracks(tmp_path / "tracks", 50, seed=50, size=(10, 8))
    paths = expand_tracks([str(tmp_path / "tracks")])
    with ResultStore(tmp_path / "r.duckdb") as store:
        run = run_batch(paths, store, BatchSettings(), THREADS)
        assert len(run.outcomes) == len(paths) == 50
        assert sorted(r.track for r in run.rows) == sorted(paths)
        columns = [c for (c,) in store.query(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'results'")]
        count, distinct = store.query("SELECT count(*), count(DISTINCT sha256) FROM results")[0]
        stored = dict(store.query("SELECT track, json FROM results"))
    assert set(COLUMN_NAMES) <= set(columns)
    assert count == distinct == 50
    for row in run.rows:
        a = analyze(load_track(row.track))
        assert row.status == "ok" and row.error is None and row.mode == "exact"
        assert row.sha256 == a.track.sha256
        assert (row.m_star, row.optimal_count, row.kind) == (
            a.bfs.m_star, str(a.bfs.optimal_count), a.kind)
        assert row.score == float(a.score.total)
        assert row.states_explored == a.bfs.states_explored
        assert _stable(json.loads(stored[row.track])) == _stable(a.to_json())


def test_rerun_skips_what_is_done(track_folder: Path, tmp_path: Path) -> None:
    paths = expand_tracks([str(track_folder)])
    with ResultStore(tmp_path / "r.duckdb") as store:
        run_batch(paths[:4], store, BatchSettings(), THREADS)
        plan = plan_batch(paths, store, BatchSettings())
        assert sorted(plan.already) == sorted(paths[:4])
        assert sorted(j.path for j in plan.jobs) == sorted(paths[4:])
        run_batch(paths, store, BatchSettings(), THREADS)
        again = run_batch(paths, store, BatchSettings(), THREADS)
        assert again.outcomes == () and len(again.plan.already) == 6
        assert store.query("SELECT count(*) FROM results")[0][0] == 6
        # another mode is another row of the same track
        editor = plan_batch(paths, store, BatchSettings(mode="editor"))
        assert len(editor.jobs) == 6


def test_duplicate_bytes_run_once(track_folder: Path, tmp_path: Path) -> None:
    first = sorted(track_folder.iterdir())[0]
    copy = tmp_path / "copy.toml"
    copy.write_bytes(first.read_bytes())
    with ResultStore(tmp_path / "r.duckdb") as store:
        plan = plan_batch([str(first), str(copy)], store, BatchSettings())
    assert [j.path for j in plan.jobs] == [str(first)]
    assert plan.duplicates == ((str(copy), str(first)),)


def test_a_failing_track_is_a_row_and_the_others_succeed(track_folder: Path,
                                                         tmp_path: Path) -> None:
    (track_folder / "broken.toml").write_text(BAD_TRACK)
    with ResultStore(tmp_path / "r.duckdb") as store:
        run = run_batch(expand_tracks([str(track_folder)]), store, BatchSettings(), THREADS)
    by_name = {Path(r.track).name: r for r in run.rows}
    bad = by_name.pop("broken.toml")
    assert bad.status == "error" and bad.error_kind == "input"
    assert bad.error == f"{track_folder / 'broken.toml'}: map: missing required table [map]"
    assert bad.m_star is None
    assert len(by_name) == 6 and all(r.status == "ok" for r in by_name.values())


def test_state_limit_is_a_deterministic_error(track_folder: Path, tmp_path: Path) -> None:
    path = sorted(track_folder.iterdir())[0]
    states = analyze(load_track(path)).bfs.states_explored
    with ResultStore(tmp_path / "r.duckdb") as store:
        job = plan_batch([str(path)], store, BatchSettings(max_states=states - 1)).jobs[0]
    low = run_job(job)
    assert low.status == "error" and low.error_kind == "limit"
    assert low.error.startswith("state limit reached: the ")
    assert low.error.endswith(f"(--max-states {states - 1})")
    assert run_job(job).error == low.error  # the same search, the same place every time
    enough = dataclasses.replace(job, max_states=10**9)
    done = run_job(enough)
    assert done.status == "ok" and done.states_explored == states


def test_the_state_limit_stops_certify_too(track_folder: Path, tmp_path: Path) -> None:
    path = sorted(track_folder.iterdir())[0]
    with ResultStore(tmp_path / "r.duckdb") as store:
        job = plan_batch([str(path)], store, BatchSettings(mode="certify", max_states=3)).jobs[0]
    out = run_job(job)
    assert out.status == "error" and out.error_kind == "limit"
    assert out.error.startswith("state limit reached: ") and "(--max-states 3)" in out.error


def test_the_planned_bytes_are_analysed(track_folder: Path, tmp_path: Path) -> None:
    """The job carries the bytes the client hashed: editing the file later changes nothing,
    and a job whose bytes do not match its hash is refused, never recorded under it."""
    path = sorted(track_folder.iterdir())[0]
    original = analyze(load_track(path))
    with ResultStore(tmp_path / "r.duckdb") as store:
        job = plan_batch([str(path)], store, BatchSettings()).jobs[0]
    path.write_text(BAD_TRACK)
    out = run_job(job)
    assert out.status == "ok" and out.sha256 == original.track.sha256
    assert (out.m_star, out.optimal_count) == (original.bfs.m_star,
                                               str(original.bfs.optimal_count))
    corrupted = run_job(dataclasses.replace(job, data=BAD_TRACK.encode()))
    assert corrupted.status == "error" and "do not match its SHA-256" in corrupted.error


def test_other_worker_version_is_refused() -> None:
    data = BAD_TRACK.encode()
    job = TrackJob("x.toml", hashlib.sha256(data).hexdigest(), data, "exact", "0.0.0-other")
    out = run_job(job)
    assert out.status == "error" and out.error_kind == "setup" and "0.0.0-other" in out.error


def test_certify_fills_status_and_verdicts(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2] / "tracks"
    paths = [str(root / "tiny_straight.toml"), str(root / "mini_arcen.toml")]
    settings = BatchSettings(mode="certify", cpsat_budget=20.0)
    with ResultStore(tmp_path / "r.duckdb") as store:
        run = run_batch(paths, store, settings, THREADS)
        stored = dict(store.query("SELECT track, json FROM results"))
    for row in run.rows:
        cert = certify(load_track(row.track), cpsat_budget=20.0)
        assert row.mode == "certify" and row.status == cert.status
        assert json.loads(row.verdicts) == {f.name: f.verdict for f in cert.figures}
        data = json.loads(stored[row.track])
        assert data["certificate"]["status"] == cert.status
        assert data["analysis"]["m_star"] == row.m_star == cert.analysis.bfs.m_star


RIDDLER = Path(__file__).resolve().parents[2] / "tracks" / "lattice" / "riddler.toml"


def lattice_job(mode: str, max_states: int = 20_000_000, data: bytes | None = None,
                path: Path = RIDDLER) -> TrackJob:
    data = RIDDLER.read_bytes() if data is None else data
    return TrackJob(str(path), hashlib.sha256(data).hexdigest(), data, mode,  # type: ignore[arg-type]
                    racecert_version(), max_states)


@pytest.mark.parametrize("mode", ["exact", "certify"])
def test_a_lattice_track_runs_on_its_own_profile(mode: str, tmp_path: Path) -> None:
    """The README's batch over tracks/ includes the lattice riddler: it is analysed (or
    certified) by the lattice pipeline, not refused with an internal TypeError. The
    certificate is the small ring's of tests/certification/test_lattice_certificate.py
    (a tenth of a second; the riddler's, about two seconds, is tested there and in
    tests/test_public_tracks.py)."""
    if mode == "exact":
        out = run_job(lattice_job(mode))
        figures = (12, "322", 8153)
    else:
        out = run_job(lattice_job(mode, data=SMALL.encode(), path=tmp_path / "ring.toml"))
        figures = (8, "19", 456)
    assert out.error is None, out.error
    assert out.status == ("ok" if mode == "exact" else "certified")
    assert (out.m_star, out.optimal_count, out.states_explored) == figures
    assert out.kind is None and out.score is None  # the lattice profile has neither
    data = json.loads(out.json or "")
    assert (data if mode == "exact" else data["analysis"])["rules"] == "lattice"
    if mode == "certify":
        assert dict(out.verdicts)["optimal_count"] == "agree"


def test_a_lattice_track_keeps_the_state_limit_and_refuses_the_editor_key() -> None:
    low = run_job(lattice_job("exact", max_states=1))
    assert (low.status, low.error_kind) == ("error", "limit")
    assert low.error == ("state limit reached: the BFS stored 9 states at depth 1 "
                         "(--max-states 1)")
    editor = run_job(lattice_job("editor"))
    assert (editor.status, editor.error_kind) == ("error", "input")
    assert "only the exact key" in (editor.error or "")


def test_store_refuses_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    text = tmp_path / "notes.duckdb"
    text.write_text("hello\n")
    with pytest.raises(StoreError, match="notes.duckdb: the database file is damaged or is not a "
                                         "DuckDB database"):
        ResultStore(text)
    assert text.read_text() == "hello\n"
    with pytest.raises(StoreError, match="no such database file"):
        ResultStore(tmp_path / "missing.duckdb", read_only=True)
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE results (track VARCHAR)")
    con.close()
    with pytest.raises(StoreError, match="lacks the columns sha256, mode"):
        ResultStore(other)
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    with pytest.raises(StoreError, match="has no table 'results'"):
        ResultStore(empty, read_only=True)
    ResultStore(empty).close()  # a DuckDB file without the table gets it, as a new file does
    with ResultStore(empty, read_only=True) as store:
        assert store.rows() == []


def test_expand_tracks(track_folder: Path, tmp_path: Path) -> None:
    (track_folder / "sub").mkdir()
    (track_folder / "sub" / "x.toml").write_text(BAD_TRACK)
    (track_folder / ".hidden.toml").write_text(BAD_TRACK)
    every = expand_tracks([str(track_folder)])
    assert len(every) == 7 and every == sorted(every)
    assert not any(".hidden" in p for p in every)
    pattern = expand_tracks([str(track_folder / "gen-*-000[0-2].toml"), every[0]])
    assert len(pattern) == 3  # the file given again is not repeated
    with pytest.raises(TrackError, match="no such file or folder"):
        expand_tracks([str(tmp_path / "nothing.toml")])
    with pytest.raises(TrackError, match="no file matches"):
        expand_tracks([str(tmp_path / "*.nothing")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(TrackError, match="holds no .toml or .track"):
        expand_tracks([str(tmp_path / "empty")])


def test_a_worker_killed_mid_batch_loses_nothing(tmp_path: Path) -> None:
    """Two worker processes; the first result kills one worker: Dask reruns its task on
    the restarted or the other worker, every track gets its ok row, none twice."""
    paths = [str(p) for p in write_tracks(tmp_path / "t", 8, seed=4, size=(20, 16))]
    with ResultStore(tmp_path / "r.duckdb") as store, \
            dask_client(ClusterSpec(workers=2, processes=True)) as client:
        jobs = plan_batch(paths, store, BatchSettings()).jobs
        pids = client.run(os.getpid)
        killed: list[int] = []

        def kill_one(outcome: object) -> None:
            if not killed:
                victim = next(pid for pid in pids.values() if str(pid) not in
                              getattr(outcome, "worker", ""))
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        outcomes = execute(client, jobs, store, kill_one)
        rows = store.rows()
    assert killed
    assert sorted(o.path for o in outcomes) == sorted(paths)
    assert all(r.status == "ok" for r in rows) and len(rows) == 8


def test_a_local_batch_leaves_nothing_in_the_temp_folder(
        track_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Dask's scratch space (dask-scratch-space/, its lock files) goes to a folder of the
    batch's own, removed at the end (`racecert batch` in-process, TMPDIR a fresh folder for
    it and its worker processes)."""
    import tempfile

    from racecert.cli import main

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    code = main(["batch", "--workers", "1", "--db", str(tmp_path / "r.duckdb"),
                 str(track_folder)])
    assert code == 0, capsys.readouterr().err
    assert list(tmp.iterdir()) == []


def test_a_lattice_search_over_its_cap_is_a_limit(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    """The lattice pipeline's own cap (`LatticeLimitError`, a `LimitReached`) is recorded
    as a limit, not as an internal error."""
    from racecert.analysis.lattice import pipeline
    from racecert.model.bundled import track_path

    monkeypatch.setattr(pipeline, "MAX_STATES", 5)
    with ResultStore(tmp_path / "r.duckdb") as store:
        job = plan_batch([str(track_path("lattice/riddler"))], store, BatchSettings()).jobs[0]
    out = run_job(job)
    assert (out.status, out.error_kind) == ("error", "limit")
    assert out.error.startswith("the search holds ")
