"""The bundled track corpus: every track parses, tracks/README.md matches the analysis,
and each track has the property it is bundled for.

The README tables are parsed here independently of tools/make_readme.py (which wrote
them), and every figure in them (m*, counts, computed kind, yellow / green / blue lengths
and ties, coverage, continuity, m_cont, score) is compared, mode by mode, with a fresh
`racecert.analysis.analyze`. Hand-worked tracks are checked against numbers derived by
hand in tracks/README.md, not against the engine.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from racecert.analysis import Analysis, analyze
from racecert.analysis.svg import render_svg
from racecert.model.parse import load_track
from racecert.model.track import Track
from racecert.oracle.bfs import BfsResult, layered_bfs

TRACKS = Path(__file__).resolve().parent.parent / "tracks"
README = TRACKS / "README.md"
IMAGES = TRACKS.parent / "docs" / "img"
TRACK_FILES = sorted(p.name for p in TRACKS.glob("*.toml"))

# The corpus the project promises (issue #2 item 5): file -> declared kind.
REQUIRED = {
    "4_esquinas.toml": "circuit",
    "caleidoscopio.toml": "stage",
    "candelabro.toml": "stage",
    "espiral.toml": "stage",
    "ocho.toml": "circuit",
    "arcenes.toml": "stage",
    "llanura.toml": "stage",
    "apertura.toml": "stage",
}


@cache
def track(name: str) -> Track:
    return load_track(TRACKS / name)


@cache
def full_analysis(name: str, mode: str) -> Analysis:
    return analyze(track(name), mode)  # type: ignore[arg-type]


@cache
def analysis(name: str, mode: str) -> dict[str, Any]:
    return full_analysis(name, mode).to_json()


@cache
def bfs(name: str, mode: str = "exact") -> BfsResult:
    return layered_bfs(track(name), mode)  # type: ignore[arg-type]


# -- the README table ---------------------------------------------------------------------


def _load_make_readme():
    tool = TRACKS.parent / "tools" / "make_readme.py"
    spec = importlib.util.spec_from_file_location("make_readme", tool)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_readme", module)  # dataclasses resolve annotations there
    spec.loader.exec_module(module)
    return module


def parse_table(text: str, marker: str = "track-table") -> dict[str, dict[str, str]]:
    """{file name: {header: cell}} from a generated table of tracks/README.md."""
    m = re.search(rf"<!-- {marker}:begin[^>]*-->\n(.*?)\n<!-- {marker}:end -->", text, re.S)
    assert m, f"tracks/README.md has no generated {marker}"
    lines = [ln for ln in m.group(1).splitlines() if ln.strip()]

    def cells(line: str) -> list[str]:
        parts = re.split(r"(?<!\\)\|", line.strip())
        assert parts[0] == "" and parts[-1] == "", f"not a table row: {line!r}"
        return [c.strip() for c in parts[1:-1]]

    headers = cells(lines[0])
    assert set(cells(lines[1])) == {"---"}
    rows = {}
    for line in lines[2:]:
        row = dict(zip(headers, cells(line), strict=True))
        name = re.fullmatch(r"\[([^\]]+)\]\(([^)]+)\)", row["file"])
        assert name and name.group(1) == name.group(2), row["file"]
        assert name.group(1) not in rows, f"{name.group(1)} listed twice"
        rows[name.group(1)] = row
    return rows


def mode_value(cell: str, mode: str) -> str:
    """The value of `mode` in a cell 'V' or 'V (editor: W)' (exact first; others if shown)."""
    m = re.fullmatch(r"(.+?)(?: \((.*)\))?", cell)
    assert m, cell
    values = {"exact": m.group(1)}
    for part in (m.group(2) or "").split("; ") if m.group(2) else ():
        k, v = part.split(": ", 1)
        values[k] = v
    return values.get(mode, values["exact"])


def test_parse_table_and_mode_value() -> None:
    text = ("<!-- track-table:begin x -->\n| file | m* |\n|---|---|\n"
            "| [a.toml](a.toml) | 7 (editor: 19) |\n| [b.toml](b.toml) | 3 |\n"
            "<!-- track-table:end -->")
    rows = parse_table(text)
    assert mode_value(rows["a.toml"]["m*"], "editor") == "19"
    assert mode_value(rows["a.toml"]["m*"], "exact") == "7"
    assert mode_value(rows["b.toml"]["m*"], "editor") == "3"


TABLE = parse_table(README.read_text(encoding="utf-8"))
PIPELINE = parse_table(README.read_text(encoding="utf-8"), "pipeline-table")


def test_every_track_is_in_the_tables_and_nothing_else() -> None:
    assert sorted(TABLE) == TRACK_FILES
    assert sorted(PIPELINE) == TRACK_FILES


@pytest.mark.parametrize("name", TRACK_FILES)
def test_track_parses(name: str) -> None:
    t = track(name)
    assert t.name and t.width > 0 and t.height > 0


@pytest.mark.parametrize("name", TRACK_FILES)
def test_table_row_matches_analysis(name: str) -> None:
    row = TABLE[name]
    t = track(name)
    modes = [m.strip() for m in row["modes"].split(",")]
    assert modes[0] == "exact"
    assert set(modes) == ({"exact", "editor"} if t.opening else {"exact"})
    assert row["name"] == t.name
    assert row["declared kind"] == (t.kind or "—")
    assert row["size"].split(",")[0] == f"{t.width}×{t.height}"
    for mode in modes:
        j = analysis(name, mode)
        m_star = str(j["m_star"]) if j["reachable"] else "unreachable"
        assert mode_value(row["m*"], mode) == m_star, (name, mode)
        assert mode_value(row["optimal trajectories"], mode) == j["optimal_count"], (name, mode)
        assert mode_value(row["final states"], mode) == str(j["final_states"]), (name, mode)


def radical_text(cell: str) -> str:
    """A table length ("38 + 4√2 + √5") back in `RadicalSum` text form."""
    return re.sub(r"√(\d+)", r"sqrt(\1)", re.sub(r"(\d+)√(\d+)", r"\1*sqrt(\2)", cell))


def test_radical_text() -> None:
    assert radical_text("38 + 4√2 + √5") == "38 + 4*sqrt(2) + sqrt(5)"
    assert radical_text("8") == "8"


def percent_of(cell: str) -> Fraction:
    """'P %' (two decimals) as an exact Fraction."""
    m = re.fullmatch(r"(\d+\.\d\d) %", cell)
    assert m, cell
    return Fraction(m.group(1))


def expected_pipeline_cells(j: dict[str, Any]) -> dict[str, str | None]:
    """Per pipeline column, the value the analysis JSON `j` gives (None: cell must be —)."""
    out: dict[str, str | None] = {"kind (computed)": j["kind"]}
    for name in ("yellow", "green", "blue"):
        d = j[name]
        if name == "yellow":
            out["yellow moves"] = None if d is None else str(d["moves"])
        else:
            out[f"{name} ties"] = None if d is None else d["ties"]
        out[f"{name} length"] = None if d is None else d["length_exact"]
    out["m_cont"] = None if j["m_cont"] is None else str(j["m_cont"])
    return out


@pytest.mark.parametrize("name", TRACK_FILES)
def test_pipeline_row_matches_analysis(name: str) -> None:
    row = PIPELINE[name]
    modes = [m.strip() for m in TABLE[name]["modes"].split(",")]
    for mode in modes:
        j = analysis(name, mode)
        cell = {h: mode_value(row[h], mode) for h in row if h != "file"}
        for header, want in expected_pipeline_cells(j).items():
            got = cell[header]
            if header.endswith("length") and got != "—":
                got = radical_text(got)
            assert got == ("—" if want is None else want), (name, mode, header)
        cov = j["coverage"]
        if cov is None:
            assert cell["red coverage"] == "—"
        else:
            counts, pct = cell["red coverage"].split(" = ")
            assert counts == f"{cov['touched_cells']}/{cov['drivable_cells']}"
            assert Fraction(cov["red"]) == Fraction(cov["touched_cells"], cov["drivable_cells"])
            assert percent_of(pct) == round(100 * Fraction(cov["red"]), 2)  # half to even
        if j["kind"] != "circuit" or j["continuable_count"] is None:
            assert cell["continuable (race rule)"] == "—"
        else:
            m = re.fullmatch(r"(\d+) = (\S+ %)(?:; certification (\d+))?",
                             cell["continuable (race rule)"])
            assert m, cell["continuable (race rule)"]
            assert m.group(1) == j["continuable_count"]
            frac = Fraction(int(j["continuable_count"]), int(j["optimal_count"]))
            assert percent_of(m.group(2)) == round(100 * frac, 2)
            assert (m.group(3) or j["continuable_count"]) == j["continuable_count_editor"]
        s = j["score"]
        if s is None:
            assert cell["score"] == "—"
        else:
            m = re.fullmatch(r"(\d+\.\d\d) (\w+)(, capped)?", cell["score"])
            assert m, cell["score"]
            assert float(m.group(1)) == s["total"] and m.group(2) == s["band"]
            assert bool(m.group(3)) == s["capped"]


def test_table_is_what_the_generator_writes() -> None:
    """Guards columns added later: the whole tables must be regenerated, not hand-edited."""
    mr = _load_make_readme()
    rows = [mr.TrackRow(TRACKS / n, track(n), {m: analysis(n, m) for m in mr.modes_for(track(n))})
            for n in TRACK_FILES]
    text = README.read_text(encoding="utf-8")
    for (begin, end), table in mr.render_tables(rows).items():
        assert mr.table_text(text, begin, end) == table


@pytest.mark.parametrize("name", TRACK_FILES)
def test_docs_image_is_the_current_picture(name: str) -> None:
    """docs/img/NAME.svg exists and is what `racecert analyze T -o NAME.svg` draws now."""
    svg = IMAGES / name.replace(".toml", ".svg")
    assert svg.exists(), f"run: racecert analyze tracks/{name} -o {svg}"
    assert svg.read_text(encoding="utf-8") == render_svg(full_analysis(name, "exact")), (
        f"stale picture: racecert analyze tracks/{name} -o docs/img/{svg.name}")


# -- the corpus the project promises ---------------------------------------------------------


@pytest.mark.parametrize(("name", "kind"), sorted(REQUIRED.items()))
def test_required_tracks_declare_their_kind(name: str, kind: str) -> None:
    assert name in TRACK_FILES
    assert track(name).kind == kind


@pytest.mark.parametrize("name", TRACK_FILES)
def test_declared_kind_is_the_computed_kind(name: str) -> None:
    """docs/report.md: the kind is computed (aptitude); a declared kind must agree with it."""
    declared = track(name).kind
    assert declared is not None, f"{name} declares no kind"
    assert analysis(name, "exact")["kind"] == declared


def _another_lap(name: str, final: int) -> bool:
    """From optimal arrival `final`, can the car cross S and then F again?"""
    r = bfs(name)
    assert r.dag is not None
    state = r.dag.arrive_state.state(final)
    return layered_bfs(track(name), "exact", initial=state).reachable


@pytest.mark.parametrize("name", ["4_esquinas.toml", "ocho.toml"])
def test_circuits_can_go_round_again(name: str) -> None:
    r = bfs(name)
    assert r.reachable and r.dag is not None
    assert any(_another_lap(name, i) for i in range(len(r.dag.arrive_state)))


def test_espiral_cannot_go_round_again() -> None:
    r = bfs("espiral.toml")
    assert r.reachable and r.dag is not None
    assert not any(_another_lap("espiral.toml", i) for i in range(len(r.dag.arrive_state)))


def test_4_esquinas_lines_close_to_the_car() -> None:
    t = track("4_esquinas.toml")
    x, _ = t.car.position
    assert t.start.axis == t.finish.axis == "x" and t.start.direction == t.finish.direction
    assert t.finish.k < x <= t.start.k <= x + 1  # F a little behind the car, S just ahead


def test_ocho_has_a_bridge_that_optimal_trajectories_use() -> None:
    """Ramps, an overpass block, and optimal laps that drive both over and under it."""
    t = track("ocho.toml")
    assert t.elevated is not None
    cells = [(x, y) for y in range(t.height) for x in range(t.width)]
    assert any(t.is_ramp(*c) for c in cells)
    overpass = [c for c in cells if t.drivable(0, *c) and t.drivable(1, *c) and not t.is_ramp(*c)]
    assert overpass
    x0, x1 = min(x for x, _ in overpass), max(x for x, _ in overpass)
    y0, y1 = min(y for _, y in overpass), max(y for _, y in overpass)
    r = bfs("ocho.toml")
    assert r.dag is not None
    states = {(int(x), int(y), int(lay)) for layer in r.dag.layers
              for x, y, lay in zip(layer.x, layer.y, layer.layer, strict=True)}
    # on the ground, in the overpass rows, on both sides of it: the lap drives under it
    assert any(lay == 0 and y0 <= y <= y1 and x < x0 for x, y, lay in states)
    assert any(lay == 0 and y0 <= y <= y1 and x > x1 for x, y, lay in states)
    # elevated, in the overpass columns, above and below it: the lap drives over it
    assert any(lay == 1 and x0 <= x <= x1 and y < y0 for x, y, lay in states)
    assert any(lay == 1 and x0 <= x <= x1 and y > y1 for x, y, lay in states)


def test_arcenes_is_shoulder_heavy() -> None:
    t = track("arcenes.toml")
    cells = [(x, y) for y in range(t.height) for x in range(t.width) if t.drivable(0, x, y)]
    shoulders = sum(t.is_shoulder(0, x, y) for x, y in cells)
    assert 3 * shoulders >= len(cells)  # at least a third of the drivable surface


def test_llanura_count_exceeds_1e23() -> None:
    assert int(analysis("llanura.toml", "exact")["optimal_count"]) > 10**23


@pytest.mark.parametrize("name", ["caleidoscopio.toml", "candelabro.toml"])
def test_symmetric_tracks_have_mirror_image_optimal_routes(name: str) -> None:
    """The track is mirror-symmetric about the car's axis; so are its optimal finals."""
    t = track(name)
    r = bfs(name)
    horizontal = t.car.direction in ("+x", "-x")
    c = t.car.position[1] if horizontal else t.car.position[0]

    def mirror(s: tuple[int, int, int, int, int]) -> tuple[int, int, int, int, int]:
        x, y, vx, vy, layer = s
        return (x, 2 * c - y, vx, -vy, layer) if horizontal else (2 * c - x, y, -vx, vy, layer)

    grid = t.ground if horizontal else tuple("".join(r) for r in zip(*t.ground, strict=True))
    assert grid[c - 1::-1] == grid[c + 1:2 * c + 1]  # the grid itself is symmetric
    finals = dict(r.final_state_list())
    assert {mirror(s): n for s, n in finals.items()} == finals
    off_axis = [s for s in finals if mirror(s) != s]
    assert off_axis  # distinct routes on both sides


def test_candelabro_uses_inner_and_outer_candles() -> None:
    r = bfs("candelabro.toml")
    assert r.dag is not None
    xs = {int(x) for layer in r.dag.layers for x in layer.x}
    assert xs & {2, 3, 4} and xs & {8, 9, 10} and xs & {20, 21, 22} and xs & {26, 27, 28}


def test_apertura_editor_and_exact_disagree() -> None:
    ed, ex = analysis("apertura.toml", "editor"), analysis("apertura.toml", "exact")
    assert (ed["m_star"], ed["optimal_count"]) != (ex["m_star"], ex["optimal_count"])


# -- hand-worked tracks (numbers derived in tracks/README.md) ---------------------------------


def _finals(name: str, mode: str = "exact") -> dict[tuple[int, int, int, int, int], int]:
    return dict(bfs(name, mode).final_state_list())


def test_mini_arcen_by_hand() -> None:
    r = bfs("mini_arcen.toml")
    assert (r.m_star, r.optimal_count) == (4, 3)
    assert _finals("mini_arcen.toml") == {(6, 1, 1, 0, 0): 1, (7, 1, 2, 0, 0): 1,
                                          (8, 1, 3, 0, 0): 1}


def test_mini_apertura_by_hand() -> None:
    ex = bfs("mini_apertura.toml", "exact")
    assert (ex.m_star, ex.optimal_count) == (5, 1)
    assert _finals("mini_apertura.toml") == {(5, 2, 0, 1, 0): 1}
    assert not bfs("mini_apertura.toml", "editor").reachable


def test_apertura_exact_by_hand() -> None:
    """1, 1, 1, 1 along the chute, (0, 1) down, then two moves to cross F at y = 8.5."""
    assert bfs("apertura.toml").m_star == 7
    assert _finals("apertura.toml") == {(11, 9, 0, 2, 0): 1, (12, 9, 1, 2, 0): 1,
                                        (11, 9, 0, 1, 0): 1, (12, 9, 1, 1, 0): 1}
