"""docs/public-tracks.md against fresh analyses and certificates.

The table is parsed here on its own (not with tools/make_public_table.py,
which wrote it) and every cell is re-derived from `analyze_lattice(track,
best_start=True)` and `certify_lattice`. The Bekos XML files are external test data
(no licence: never copied into the repository), read from ../shared/external/
bekos-racetrack/ beside the repository root; their rows are skipped, with that
reason, when the folder is absent.

Cost: by default every row's figures are compared except those of the eight largest
Staircase tracks, and the certificate cells of the tracks in `QUICK_CERTIFY`; with
RACECERT_PUBLIC_FULL=1 every row, every certificate cell, and the whole table
against the generator's output.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from racecert.analysis.lattice.pipeline import LatticeAnalysis, analyze_lattice
from racecert.certification.lattice.certificate import LatticeCertificate, certify_lattice
from racecert.model.bekos_import import read_bekos, to_toml
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import load_track, parse_track
from racecert.model.radicals import RadicalSum

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "public-tracks.md"
BEKOS = ROOT.parent / "shared" / "external" / "bekos-racetrack"
FILES = sorted(p.name for p in BEKOS.glob("*.xml")) if BEKOS.is_dir() else []
FULL = os.environ.get("RACECERT_PUBLIC_FULL") == "1"
LARGE = {f"Staircase-{i}.xml" for i in range(8)}
QUICK_CERTIFY = {"riddler", "nTrack.xml", "RandomZigZag-0.xml", "mTrack.xml", "pTrack.xml",
                 "RandomZigZag-3.xml", "Staircase-8.xml"}
needs_files = pytest.mark.skipif(
    len(FILES) != 27, reason=f"the 27 Bekos XML files are not in {BEKOS} (external test "
                             "data, not part of the repository)")


def parse_table(text: str) -> dict[str, dict[str, str]]:
    m = re.search(r"<!-- public-table:begin[^>]*-->\n(.*?)\n<!-- public-table:end -->",
                  text, re.S)
    assert m, "docs/public-tracks.md has no generated table"
    lines = m.group(1).splitlines()

    def cells(line: str) -> list[str]:
        parts = re.split(r"(?<!\\)\|", line.strip())
        assert parts[0] == "" and parts[-1] == "", line
        return [c.strip().replace("\\|", "|") for c in parts[1:-1]]

    head = cells(lines[0])
    assert set(cells(lines[1])) == {"---"}
    rows = {}
    for line in lines[2:]:
        row = dict(zip(head, cells(line), strict=True))
        assert row["source"] not in rows
        rows[row["source"]] = row
    return rows


TABLE = parse_table(DOC.read_text(encoding="utf-8"))


@cache
def track(key: str) -> LatticeTrack:
    if key == "riddler":
        t = load_track(ROOT / "tracks" / "lattice" / "riddler.toml")
    else:
        t = parse_track(to_toml(read_bekos(BEKOS / key)).encode(), key)
    assert isinstance(t, LatticeTrack)
    return t


@cache
def certificate(key: str) -> LatticeCertificate:
    """`certify_lattice(track, best_start=True)`, as the generator certifies a row."""
    return certify_lattice(track(key), best_start=True)


@cache
def analysis(key: str) -> LatticeAnalysis:
    """`analyze_lattice(track, best_start=True)`; for a Bekos track whose certificate cell is
    compared, the certificate's own (certify_lattice makes that same call)."""
    if key in QUICK_CERTIFY and key != "riddler":
        return certificate(key).analysis
    return analyze_lattice(track(key), best_start=True)


def source(key: str) -> str:
    return "tracks/lattice/riddler.toml" if key == "riddler" else f"bekos {key}"


def test_the_table_lists_the_riddler_and_every_bekos_file() -> None:
    assert "tracks/lattice/riddler.toml" in TABLE
    bekos = sorted(s.removeprefix("bekos ") for s in TABLE if s.startswith("bekos "))
    assert len(bekos) == 27 and len(TABLE) == 28
    if FILES:
        assert bekos == FILES


def test_the_riddler_row_says_the_published_answer() -> None:
    row = TABLE["tracks/lattice/riddler.toml"]
    assert row["m* (best start)"] == "12"  # the puzzle's published fastest lap
    assert row["optimal trajectories"] == "322"


def expected_cells(key: str) -> dict[str, str]:
    t, a = track(key), analysis(key)
    (x0, y0), (x1, y1) = t.bounds_in_file()
    out = {"track": t.name, "bounds": f"x {x0}..{x1}, y {y0}..{y1}",
           "starts": str(len(t.starts))}
    b = a.bfs
    out["m* (best start)"] = str(b.m_star) if b.reachable else "unreachable"
    out["best start"] = ", ".join(str(t.to_file(s.position)) for s in a.starts) or "—"
    out["optimal trajectories"] = str(b.optimal_count)
    return out


def check_row(key: str) -> None:
    row = TABLE[source(key)]
    for header, want in expected_cells(key).items():
        assert row[header] == want, (key, header)
    a = analysis(key)
    exact, approx = row["shortest optimal length"].split(" ≈ ")
    assert a.green is not None
    assert RadicalSum.parse(exact) == a.green.length
    assert float(approx) == round(a.green.length.to_float(), 4)


def test_riddler_row() -> None:
    check_row("riddler")


@needs_files
@pytest.mark.parametrize("name", FILES)
def test_bekos_row(name: str) -> None:
    if name in LARGE and not FULL:
        pytest.skip("one of the eight largest Staircase tracks: set RACECERT_PUBLIC_FULL=1")
    check_row(name)


def _make_table():
    spec = importlib.util.spec_from_file_location(
        "make_public_table", ROOT / "tools" / "make_public_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_public_table", module)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("key", sorted(QUICK_CERTIFY))
def test_certificate_cell(key: str, request: pytest.FixtureRequest) -> None:
    if key != "riddler" and len(FILES) != 27:
        pytest.skip(f"the Bekos XML files are not in {BEKOS}")
    mk = _make_table()
    if key == "riddler":  # the same call, made once for the session (tests/conftest.py)
        c = request.getfixturevalue("riddler_certificate")
        assert c.track == track(key) and c.analysis.best_start
    else:
        c = certificate(key)
    assert c.status == "certified"
    assert TABLE[source(key)]["certificate"] == mk.certificate_cell(c)


@needs_files
@pytest.mark.skipif(not FULL, reason="every certificate: set RACECERT_PUBLIC_FULL=1 (minutes)")
def test_the_whole_table_is_what_the_generator_writes() -> None:
    mk = _make_table()
    text = DOC.read_text(encoding="utf-8")
    assert mk.table_text(text) == mk.render(mk.build_rows())
