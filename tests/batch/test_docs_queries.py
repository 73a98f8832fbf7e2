"""Every SQL query of docs/batch.md runs on a real batch database and answers sensibly."""

from __future__ import annotations

import json
import re
from pathlib import Path

from racecert.batch.inputs import expand_tracks
from racecert.batch.runner import BatchSettings, ClusterSpec, run_batch
from racecert.batch.store import ResultStore
from tests.batch.conftest import BAD_TRACK

ROOT = Path(__file__).resolve().parents[2]


def doc_queries() -> list[str]:
    text = (ROOT / "docs" / "batch.md").read_text()
    return re.findall(r"```sql\n(.*?)```", text, flags=re.S)


def test_the_documented_queries_answer(track_folder: Path, tmp_path: Path) -> None:
    queries = doc_queries()
    assert len(queries) >= 8
    (track_folder / "broken.toml").write_text(BAD_TRACK)
    threads = ClusterSpec(workers=2, processes=False)
    with ResultStore(tmp_path / "r.duckdb") as store:
        run_batch(expand_tracks([str(track_folder)]), store, BatchSettings(), threads)
        run_batch([str(ROOT / "tracks" / "mini_arcen.toml")], store,
                  BatchSettings(mode="certify", cpsat_budget=20.0), threads)
        total = store.query("SELECT count(*) FROM results")[0][0]
        answers = [store.query(q) for q in queries]
        cert = next(r for r in store.rows() if r.mode == "certify")
    assert total == 8
    per_status, errors, m_star = answers[0], answers[1], answers[2]
    assert sum(n for _, _, n in per_status) == total
    assert ("exact", "error", 1) in per_status
    assert [(Path(t).name, kind) for t, kind, _ in errors] == [("broken.toml", "input")]
    assert sum(n for _, n in m_star) == 7
    assert all(answer for answer in answers[3:7]), answers
    verdicts = json.loads(cert.verdicts)
    unconfirmed = sorted((cert.track, f, v) for f, v in verdicts.items()
                         if v not in ("agree", "not-applicable"))
    assert answers[7] == unconfirmed  # certificates: the figures not confirmed
