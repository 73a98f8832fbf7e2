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
`finished_at` (UTC).

The client process is the only writer: `record` inserts one row per finished
task and DuckDB commits it at once (auto-commit, write-ahead log), so a crash,
a kill or Ctrl-C loses no finished result, and a re-run skips what is there.
DuckDB would abort a statement on Ctrl-C ("Query interrupted"); every statement
here runs with Ctrl-C deferred to its end (`deferred_interrupt`), so a row is
either written whole and then the KeyboardInterrupt comes, or not started.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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
    ("verdicts", "VARCHAR"),
    ("seconds", "DOUBLE"),
    ("timings", "VARCHAR"),
    ("json", "VARCHAR"),
    ("worker", "VARCHAR"),
    ("finished_at", "TIMESTAMP"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
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
        import duckdb  # here, not at the top: the other subcommands need not load it

        self.path = str(path)
        if read_only and not Path(path).is_file():
            raise StoreError(f"{one_line(self.path)}: no such database file")
        try:
            self.con = duckdb.connect(self.path, read_only=read_only)
        except (duckdb.Error, OSError) as exc:
            raise StoreError(f"{one_line(self.path)}: cannot open the database: "
                             f"{_reason(exc)}") from None
        try:
            if not read_only:
                self._sql(CREATE)
            self._check_columns()
        except BaseException:
            self.con.close()
            raise

    def _check_columns(self) -> None:
        found = [r[0] for r in self._sql(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'results' "
            "ORDER BY ordinal_position")]
        missing = [n for n in COLUMN_NAMES if n not in found]
        if missing:
            what = "has no table 'results'" if not found else \
                f"table 'results' lacks the columns {', '.join(missing)}"
            raise StoreError(f"{one_line(self.path)}: {what} (not a racecert batch database?)")

    def _sql(self, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
        """Run one statement (committed on return: auto-commit) and fetch its rows."""
        with deferred_interrupt():
            cursor = self.con.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

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


def _reason(exc: BaseException) -> str:
    text = one_line(exc)
    if "lock" in text.lower():
        return ("it is in use by another process (one racecert batch per database at a "
                f"time): {text}")
    return text
