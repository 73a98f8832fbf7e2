"""The Bekos XML importer: every public file imports and validates; bad XML is one line.

The 27 XML files of michaelbekos/racetrack carry no licence, so they are read from
``../shared/external/bekos-racetrack/`` (relative to the repository root) and never
copied into the project; the tests that need them skip with the reason when absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from racecert.model.bekos_import import parse_bekos, read_bekos, to_toml
from racecert.model.errors import TrackError
from racecert.model.lattice.track import LatticeTrack
from racecert.model.parse import parse_track

ROOT = Path(__file__).resolve().parents[2]
BEKOS = ROOT.parent / "shared" / "external" / "bekos-racetrack"
FILES = sorted(BEKOS.glob("*.xml")) if BEKOS.is_dir() else []
needs_files = pytest.mark.skipif(
    len(FILES) != 27, reason=f"the 27 Bekos XML files are not in {BEKOS} (external test data, "
                             "not part of the repository)")

SPRINT = b"""<?xml version="1.0" encoding="UTF-8"?>
<Track name="mini" type="Sprint">
<OuterBoundaries><Point id="1" x="2" y="2"/><Point id="0" x="5" y="2"/>
<Point id="2" x="2" y="8"/><Point id="3" x="9" y="8"/></OuterBoundaries>
<InnerBoundaries><Point id="0" x="5" y="2"/><Point id="1" x="9" y="2"/>
<Point id="2" x="9" y="5"/></InnerBoundaries>
<Dimension width="12" height="10"/>
<StartingPositions><Point x="3" y="3"/><Point x="4" y="3"/></StartingPositions>
</Track>"""


def test_a_sprint_finishes_from_the_last_inner_to_the_last_outer_point() -> None:
    b = parse_bekos(SPRINT, "mini.xml")
    assert b.outer == ((5, 2), (2, 2), (2, 8), (9, 8))  # joined in id order
    assert b.finish == ((9, 5), (9, 8))
    t = parse_track(to_toml(b).encode(), "mini.toml")
    assert isinstance(t, LatticeTrack)
    assert (t.width, t.height, t.origin) == (12, 10, (0, 0))
    assert t.starts == ((3, 3), (4, 3))
    assert t.finish.direction is None and t.finish.laps is None
    assert "sha256 " + b.sha256 in t.description


def test_a_circuit_reads_its_finish_line() -> None:
    xml = SPRINT.replace(b'type="Sprint"', b'type="Circuit"').replace(
        b"</Track>", b'<FinishLine x1="9" y1="5" x2="9" y2="8"/></Track>')
    assert parse_bekos(xml).finish == ((9, 5), (9, 8))


@pytest.mark.parametrize(("xml", "message"), [
    (b"<Track", "malformed XML"),
    (b"", "malformed XML"),
    (b"<Track name='a' type='Sprint'></Trak>", "malformed XML: mismatched tag"),
    (b'<?xml version="1.0"?><!DOCTYPE Track [<!ENTITY a "b">]><Track/>', "refused: the XML "
     "contains a document type declaration"),
    (b'<?xml version="1.0"?><!DOCTYPE Track SYSTEM "http://example.com/t.dtd"><Track/>',
     "refused"),
    (b"<Other/>", "the root element must be <Track>"),
    (SPRINT.replace(b'type="Sprint"', b'type="Race"'), "type must be 'Sprint' or 'Circuit'"),
    (SPRINT.replace(b'width="12"', b'width="twelve"'), "width='twelve' is not an integer"),
    (SPRINT.replace(b'<Point id="2" x="9" y="5"/>', b'<Point id="1" x="9" y="5"/>'),
     "point id 1 is given twice"),
    (SPRINT.replace(b'<Dimension width="12" height="10"/>', b""), "<Dimension>: missing"),
    (SPRINT.replace(b'type="Sprint"', b'type="Circuit"'), "needs exactly one <FinishLine>"),
    (SPRINT.replace(b'<Point x="4" y="3"/>', b'<Point x="4"/>'), "missing attribute 'y'"),
])
def test_bad_xml_is_one_line(xml: bytes, message: str) -> None:
    with pytest.raises(TrackError) as e:
        parse_bekos(xml, "bad.xml")
    text = str(e.value)
    assert "\n" not in text and text.startswith("bad.xml")
    assert message in text, text


def test_a_billion_laughs_is_refused_before_expansion() -> None:
    lol = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
           + b"".join(b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1
                                                  else b"&lol;" * 10) for i in range(1, 10))
           + b']><Track name="&lol9;" type="Sprint"/>')
    with pytest.raises(TrackError, match="refused"):
        parse_bekos(lol, "lol.xml")


def test_files_above_the_size_cap_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.xml"
    big.write_bytes(b" " * (4 << 20) + b"<Track/>")
    with pytest.raises(TrackError, match=r"larger than the limit of 4,194,304 bytes \(4 MiB\)"):
        read_bekos(big)
    with pytest.raises(TrackError, match="cannot read file"):
        read_bekos(tmp_path / "missing.xml")


@needs_files
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_public_file_imports_and_validates(path: Path) -> None:
    b = read_bekos(path)
    t = parse_track(to_toml(b).encode(), path.stem + ".toml")
    assert isinstance(t, LatticeTrack)
    assert t.name == b.name and len(t.starts) == len(b.starts) >= 1
    assert (t.width, t.height) == (b.width, b.height)
    assert t.polylines == (b.outer, b.inner)
    if b.kind == "Sprint":
        assert (t.finish.a, t.finish.b) == (b.inner[-1], b.outer[-1])
    assert to_toml(b) == to_toml(read_bekos(path))  # deterministic text
