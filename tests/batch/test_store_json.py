"""The JSON columns of `results` are of DuckDB's JSON type (issue #22), with nothing to
download (the json extension is built into the wheel); a database an older racecert wrote
with VARCHAR columns is read as it is, changed to JSON on its first write, and resumes;
a malformed JSON text is refused and leaves the file as it was."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import duckdb
import pytest

from racecert.batch.runner import BatchSettings, plan_batch
from racecert.batch.store import COLUMNS, JSON_COLUMNS, ResultStore, StoreError
from racecert.batch.task import TrackJob, TrackOutcome, racecert_version, run_job

TRACK = Path(__file__).resolve().parents[2] / "tracks" / "tiny_straight.toml"
OLD_CREATE = ("CREATE TABLE results ("
              + ", ".join(f"{n} {'VARCHAR' if t == 'JSON' else t}" for n, t in COLUMNS)
              + ", PRIMARY KEY (sha256, mode, version))")


def outcome(mode: str) -> TrackOutcome:
    data = TRACK.read_bytes()
    return run_job(TrackJob(str(TRACK), hashlib.sha256(data).hexdigest(), data, mode,  # type: ignore[arg-type]
                            racecert_version(), cpsat_budget=5.0))


@pytest.fixture(scope="module")
def outcomes() -> tuple[TrackOutcome, TrackOutcome]:
    """One analysis and one certificate of the tiny straight (in-process, no cluster)."""
    return outcome("exact"), outcome("certify")


def types(path: Path) -> dict[str, str]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return dict(con.execute("SELECT column_name, data_type FROM information_schema.columns"
                                " WHERE table_name = 'results'").fetchall())
    finally:
        con.close()


def old_database(path: Path, rows: list[TrackOutcome], json_text: str | None = None) -> None:
    """A file as racecert wrote it before the JSON type: the same columns, VARCHAR text
    (with `json_text` in place of each row's `json`: a VARCHAR column takes any text)."""
    with ResultStore(path.with_suffix(".new.duckdb")) as store:
        for o in rows:
            store.record(o)
        values = [list(v) for v in store.query("SELECT * FROM results")]
    if json_text is not None:
        at = [n for n, _ in COLUMNS].index("json")
        for value in values:
            value[at] = json_text
    con = duckdb.connect(str(path))
    con.execute(OLD_CREATE)
    marks = ", ".join("?" for _ in COLUMNS)
    for value in values:
        con.execute(f"INSERT INTO results VALUES ({marks})", value)
    con.close()


def test_the_json_extension_is_built_in() -> None:
    con = duckdb.connect()
    (mode,) = con.execute("SELECT install_mode FROM duckdb_extensions() "
                          "WHERE extension_name = 'json'").fetchone()
    assert mode == "STATICALLY_LINKED"  # loads with no download, offline


def test_a_new_database_has_json_columns(tmp_path: Path,
                                         outcomes: tuple[TrackOutcome, TrackOutcome]) -> None:
    db = tmp_path / "r.duckdb"
    with ResultStore(db) as store:
        for o in outcomes:
            store.record(o)
        (status,) = store.query("SELECT json_extract_string(json, '$.certificate.status') "
                                "FROM results WHERE mode = 'certify'")[0]
        (steps,) = store.query("SELECT json_array_length(json_keys(timings)) FROM results "
                               "WHERE mode = 'exact'")[0]
    assert set(JSON_COLUMNS) == {"verdicts", "timings", "json"}
    column_types = types(db)
    assert all(column_types[n] == "JSON" for n in JSON_COLUMNS), column_types
    assert status == outcomes[1].status
    assert steps == len(dict(outcomes[0].timings))


def test_malformed_json_is_refused(tmp_path: Path,
                                   outcomes: tuple[TrackOutcome, TrackOutcome]) -> None:
    with ResultStore(tmp_path / "r.duckdb") as store:
        with pytest.raises(StoreError, match="r.duckdb: cannot use the database: .*JSON"):
            store.record(dataclasses.replace(outcomes[0], json='{"m_star": 3'))
        assert store.rows() == []


def test_an_older_varchar_database_reads_migrates_and_resumes(
        tmp_path: Path, outcomes: tuple[TrackOutcome, TrackOutcome]) -> None:
    db = tmp_path / "old.duckdb"
    old_database(db, list(outcomes))
    assert all(types(db)[n] == "VARCHAR" for n in JSON_COLUMNS)
    with ResultStore(db, read_only=True) as store:  # --report: read as it is, not changed
        before = store.rows()
        old_json = dict(store.query("SELECT mode, json FROM results"))
    assert all(types(db)[n] == "VARCHAR" for n in JSON_COLUMNS)
    assert {r.mode for r in before} == {"exact", "certify"}

    with ResultStore(db) as store:  # a batch opens it to write: the columns become JSON
        assert store.rows() == before
        assert dict(store.query("SELECT mode, json FROM results")) == old_json
        for mode in ("exact", "certify"):
            plan = plan_batch([str(TRACK)], store, BatchSettings(mode=mode))  # type: ignore[arg-type]
            assert plan.jobs == () and plan.already == (str(TRACK),)  # resumes: nothing to run
        figures = store.query("SELECT key FROM results, json_each(verdicts) "
                                  "WHERE mode = 'certify' ORDER BY key")
    assert all(types(db)[n] == "JSON" for n in JSON_COLUMNS)
    assert [k for (k,) in figures] == sorted(json.loads(before[0].verdicts or
                                                            before[1].verdicts or "{}"))
    with ResultStore(db) as store:  # a second open has nothing to change
        assert store.rows() == before


def test_an_older_database_with_malformed_json_is_left_as_it_was(
        tmp_path: Path, outcomes: tuple[TrackOutcome, TrackOutcome]) -> None:
    db = tmp_path / "old.duckdb"
    old_database(db, [outcomes[0]], json_text="not json")
    with pytest.raises(StoreError, match="old.duckdb: cannot use the database: .*JSON"):
        ResultStore(db)
    assert all(types(db)[n] == "VARCHAR" for n in JSON_COLUMNS)
    with ResultStore(db, read_only=True) as store:
        assert [r.sha256 for r in store.rows()] == [outcomes[0].sha256]
        assert store.query("SELECT json FROM results") == [("not json",)]
