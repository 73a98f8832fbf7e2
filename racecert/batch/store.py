"""Batch results in an embedded DuckDB database: table `results`, one row per
(sha256, mode, version).

Columns (docs/batch.md): `track` (the path as given), `sha256` (of the file's
bytes: the track's name), `mode` (`exact`, `editor`: an analysis in that key;
`certify`: a certificate), `version` (racecert's), `status` (`ok` | `error` |
the certificate status `certified` | `partial` | `disagree`), `error` and
`error_kind` (`input` | `limit` | `lost` | `setup` | `internal`), the figures
`m_star`, `optimal_count` (decimal text: counts exceed 64 bits), `kind`,
`score`, `reachable`, `states_explored`, `width`, `height`, `verdicts` (JSON
object figure -> verdict, certificates only), `seconds` (wall seconds of the
task), `timings` (JSON object step -> seconds), `json` (the full JSON report:
`analyze`'s, or `{"analysis": ..., "certificate": ...}`), `worker` and
`finished_at` (UTC). `verdicts`, `timings` and `json` are of DuckDB's JSON type
(`JSON_COLUMNS`; an older file's VARCHAR columns are changed on its first write).

The client process is the only writer: `record` inserts one row per finished
task and DuckDB commits it at once (auto-commit, write-ahead log), so a crash,
a kill or Ctrl-C loses no finished result, and a re-run skips what is there.
DuckDB would abort a statement on Ctrl-C ("Query interrupted"); every statement
here runs with Ctrl-C deferred to its end (`deferred_interrupt`), so a row is
either written whole and then the KeyboardInterrupt comes, or not started.

A file that cannot be used is one line (`StoreError`) and is never written to: an
existing file is first opened read-only and every column of `results` is read
(`_verify`: DuckDB checks each block's checksum as it reads it), so a truncated or
bit-flipped database is reported as damaged, with a hint to move it aside, before
anything could be written to it. A file another process holds is told apart by
DuckDB's own lock-conflict message (`LOCK_CONFLICT`), not by a word in the text.
"""

from __future__ import annotations

import json
import re
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from racecert.batch.task import TrackOutcome, one_line

COLUMNS: tuple[tuple[str, str], ...] = (
    ("track", "VARCHAR NOT NULL"),
    ("sha256", "VARCHAR NOT NULL"),
    ("mode", "VARCHAR NOT NULL"),
    ("version", "VARCHAR NOT NULL"),
    ("status", "VARCHAR NOT NULL"),
    ("error", "VARCHAR"),
    ("error_kind", "VARCHAR"),
    ("m_star", "INTEGER"),
    ("optimal_count", "VARCHAR"),
    ("kind", "VARCHAR"),
    ("score", "DOUBLE"),
    ("reachable", "BOOLEAN"),
    ("states_explored", "BIGINT"),
    ("width", "INTEGER"),
    ("height", "INTEGER"),
    ("verdicts", "JSON"),
    ("seconds", "DOUBLE"),
    ("timings", "JSON"),
    ("json", "JSON"),
    ("worker", "VARCHAR"),
    ("finished_at", "TIMESTAMP"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
JSON_COLUMNS = tuple(name for name, kind in COLUMNS if kind == "JSON")
"""DuckDB's JSON type (its json extension is built into the Python wheel: nothing to
download): the text is checked as JSON on insert. Databases written before these
columns had it hold them as VARCHAR: they are read as they are, and changed to JSON
(`_migrate_json`) the first time a batch opens them to write."""
CREATE = ("CREATE TABLE IF NOT EXISTS results (\n  "
          + ",\n  ".join(f"{n} {t}" for n, t in COLUMNS)
          + ",\n  PRIMARY KEY (sha256, mode, version)\n)")


@contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block ends, then raise KeyboardInterrupt if it came."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came and previous is not signal.SIG_IGN:
        raise KeyboardInterrupt


# DuckDB's message when another process holds the file's lock ("Could not set lock on file
# "PATH": Conflicting lock is held in PROGRAM (PID N) ..."); other lock failures (a file system
# without locks) say "Could not set lock on file" with the system's reason instead.
LOCK_CONFLICT = re.compile(r'Could not set lock on file "[^"]*": Conflicting lock is held')
LOCK_FAILED = re.compile(r'Could not set lock on file "[^"]*"')
# DuckDB's messages for a file whose bytes are not a database it wrote: a block whose
# checksum does not match, a file shorter than its own metadata says, a file that does
# not start with DuckDB's header.
DAMAGE = re.compile(r"Corrupt database file|does not match stored checksum|"
                    r"Could not read enough bytes from file|"
                    r"is not a valid DuckDB database file")


class StoreError(Exception):
    """The database cannot be used; the message is one line naming the file."""


@dataclass(frozen=True)
class ResultRow:
    """One row of `results`, as read back (the columns of COLUMN_NAMES but `json`)."""

    track: str
    sha256: str
    mode: str
    version: str
    status: str
    error: str | None
    error_kind: str | None
    m_star: int | None
    optimal_count: str | None
    kind: str | None
    score: float | None
    reachable: bool | None
    states_explored: int | None
    width: int | None
    height: int | None
    verdicts: str | None
    seconds: float
    timings: str | None
    worker: str | None
    finished_at: datetime | None


READ_COLUMNS = tuple(n for n in COLUMN_NAMES if n != "json")


def _row_values(o: TrackOutcome) -> list[Any]:
    verdicts = json.dumps(dict(o.verdicts)) if o.verdicts else None
    timings = json.dumps(dict(o.timings)) if o.timings else None
    finished = datetime.now(UTC).replace(tzinfo=None)
    return [o.path, o.sha256, o.mode, o.version, o.status, o.error, o.error_kind, o.m_star,
            o.optimal_count, o.kind, o.score, o.reachable, o.states_explored, o.width,
            o.height, verdicts, o.seconds, timings, o.json, o.worker, finished]


class ResultStore:
    """The `results` table of one DuckDB file (module docstring)."""

    def __init__(self, path: str | Path, read_only: bool = False) -> None:
        self.path = str(path)
        exists = Path(path).is_file()
        if read_only and not exists:
            raise StoreError(f"{one_line(self.path)}: no such database file")
        if exists:  # read whole on a read-only connection first: a damaged file is never written
            self.con = self._connect(read_only=True)
            try:
                if read_only or self._columns():
                    self._check_columns()
                    self._verify()
            except BaseException:
                self.con.close()
                raise
            if read_only:
                return
            self.con.close()
        self.con = self._connect(read_only=False)
        try:
            self._sql(CREATE)
            self._check_columns()
            self._migrate_json()
        except BaseException:
            self.con.close()
            raise

    def _connect(self, read_only: bool) -> Any:
        import duckdb  # here, not at the top: the other subcommands need not load it

        try:
            return duckdb.connect(self.path, read_only=read_only)
        except (duckdb.Error, OSError) as exc:
            raise StoreError(_message(self.path, "cannot open the database", exc)) from None

    def _verify(self) -> None:
        """Read every value of every column of `results` (a hash of each, folded), so that
        DuckDB reads, and checks the checksum of, every block that holds the table: damage
        anywhere in it is found here, on a read-only connection, and not half-way through a
        batch that writes (about half a second per 200 MB)."""
        hashes = ", ".join(f"bit_xor(hash({name}))" for name in COLUMN_NAMES)
        self._sql(f"SELECT count(*), {hashes} FROM results")

    def _columns(self) -> list[str]:
        return [r[0] for r in self._sql(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'results' "
            "ORDER BY ordinal_position")]

    def _column_types(self) -> dict[str, str]:
        return dict(self._sql(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_name = 'results'"))

    def _migrate_json(self) -> None:
        """Change the JSON columns that an older racecert wrote as VARCHAR to JSON, in one
        transaction: every value is checked as JSON, and a value that is not leaves the
        file as it was (one line naming the column's trouble)."""
        types = self._column_types()
        old = [n for n in JSON_COLUMNS if types.get(n) != "JSON"]
        if not old:
            return
        alters = "; ".join(f"ALTER TABLE results ALTER COLUMN {n} TYPE JSON" for n in old)
        try:
            self._sql(f"BEGIN TRANSACTION; {alters}; COMMIT")
        except StoreError:
            with suppress(Exception):
                self.con.execute("ROLLBACK")
            raise

    def _check_columns(self) -> None:
        found = self._columns()
        missing = [n for n in COLUMN_NAMES if n not in found]
        if missing:
            what = "has no table 'results'" if not found else \
                f"table 'results' lacks the columns {', '.join(missing)}"
            raise StoreError(f"{one_line(self.path)}: {what} (not a racecert batch database?)")

    def _sql(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run one statement (committed on return: auto-commit) and fetch its rows."""
        import duckdb

        with deferred_interrupt():
            try:
                cursor = self.con.execute(sql, params)
                return cursor.fetchall() if cursor.description else []
            except duckdb.Error as exc:
                raise StoreError(_message(self.path, "cannot use the database", exc)) from None

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def done(self, mode: str, version: str, include_errors: bool = True) -> dict[str, str]:
        """sha256 -> status of the rows already there for this mode and version."""
        sql = "SELECT sha256, status FROM results WHERE mode = ? AND version = ?"
        if not include_errors:
            sql += " AND status <> 'error'"
        return dict(self._sql(sql, [mode, version]))

    def record(self, outcome: TrackOutcome) -> None:
        """Insert (or replace) the row of one finished task; committed when this returns."""
        marks = ", ".join("?" for _ in COLUMN_NAMES)
        self._sql(f"INSERT OR REPLACE INTO results ({', '.join(COLUMN_NAMES)}) "
                  f"VALUES ({marks})", _row_values(outcome))

    def rows(self, keys: Iterable[tuple[str, str, str]] | None = None) -> list[ResultRow]:
        """Rows ordered by track, mode and version; only the (sha256, mode, version) `keys`
        when given."""
        select = f"SELECT {', '.join(READ_COLUMNS)} FROM results ORDER BY track, mode, version"
        found = [ResultRow(*r) for r in self._sql(select)]
        if keys is None:
            return found
        wanted = set(keys)
        return [r for r in found if (r.sha256, r.mode, r.version) in wanted]

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Run one SQL query (the summary queries of docs/batch.md) and fetch every row."""
        return self._sql(sql)


def _message(path: str, doing: str, exc: BaseException) -> str:
    """One line naming the file and what is wrong with it: damaged (with the hint to move
    it aside: racecert never repairs or replaces it), held by another process, or else
    `doing` and DuckDB's reason."""
    name, text = one_line(path), one_line(exc)
    if LOCK_CONFLICT.search(text):
        return (f"{name}: it is in use by another process (one racecert batch per database at "
                f"a time; run the report when the batch has ended, or on a copy): {text}")
    if LOCK_FAILED.search(text):
        return f"{name}: cannot lock the database file: {text}"
    if DAMAGE.search(text):
        return (f"{name}: the database file is damaged or is not a DuckDB database ({text}); "
                f"racecert leaves it as it is: move it aside (e.g. mv {name} {name}.damaged) "
                f"and run again to start a new database")
    return f"{name}: {doing}: {text}"
