"""`racecert analyze` and `racecert library` end to end."""

from __future__ import annotations

import json

from racecert.cli import main

KEYS = {"track", "sha256", "mode", "reachable", "m_star", "optimal_count", "final_states",
        "states_explored", "seconds", "kind", "continuable_count", "continuable_count_editor",
        "continuable_percent", "m_cont", "yellow", "green", "blue", "coverage", "score"}


def test_analyze_table_json_and_svg(tmp_path, capsys) -> None:
    out, svg = tmp_path / "a.json", tmp_path / "t.svg"
    assert main(["analyze", "tracks/4_esquinas.toml", "-o", str(out),
                 "--out", str(svg)]) == 0
    table = capsys.readouterr().out
    assert "m* (minimum moves)" in table and "3,460" in table and "score" in table
    data = json.loads(out.read_text())
    assert KEYS <= set(data)
    assert data["continuable_count"] == "3422" and data["m_cont"] is None
    assert data["continuity_applicable"] is True and "continuable (race rule)" in table
    for name in ("green", "blue"):
        assert {"moves", "length", "length_exact", "ties"} <= set(data[name])
    text = svg.read_text()
    assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    assert text.count("<polyline") == 3 and "m* = 20" in text and "3,460 optimal" in text


def test_analyze_json_stdout(capsys) -> None:
    assert main(["analyze", "tracks/tiny_straight.toml", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["m_star"] == 3 and data["yellow"]["length_exact"] == "6"
    assert data["coverage"]["red"] == "7/8"
    assert data["kind"] == "stage" and data["continuity_applicable"] is False


def test_stage_table_says_continuity_does_not_apply(capsys) -> None:
    assert main(["analyze", "tracks/espiral.toml"]) == 0
    table = capsys.readouterr().out
    assert "not applicable (a stage" in table and "continuable (race rule)" not in table


def test_analyze_bad_file(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("name = 3\n")
    assert main(["analyze", str(bad)]) == 2
    assert "error" in capsys.readouterr().err


def test_library_command(tmp_path) -> None:
    out = tmp_path / "lib.json"
    assert main(["library", "tracks/tiny_straight.toml", "tracks/mini_arcen.toml",
                 "-o", str(out)]) == 0
    lib = json.loads(out.read_text())
    assert lib["version"] == 1 and len(lib["tracks"]) == 2
    e = lib["tracks"][0]
    assert e["tray"]["accelerations"] == [[1, 0], [1, 0], [1, 0]]
    assert e["trai"]["moves"] == e["troi"]["moves"] == e["m_star"] == 3


def test_analyze_all_slots(tmp_path, capsys) -> None:
    """4_esquinas lists three extra slots: one row and one JSON object per grid position,
    each checked against a BFS started there (layered_bfs(initial=...), not the pipeline)."""
    import tomllib

    from racecert.model.parse import load_track
    from racecert.model.rules import CarState
    from racecert.oracle.bfs import layered_bfs

    path = "tracks/4_esquinas.toml"
    car = tomllib.loads(open(path, encoding="utf-8").read())["car"]
    positions = [car["position"], *car["slots"]]
    assert len(positions) == 4
    out = tmp_path / "a.json"
    assert main(["analyze", path, "--all-slots", "-o", str(out)]) == 0
    table = capsys.readouterr().out
    data = json.loads(out.read_text())
    slots = data["slots"]
    assert [s["position"] for s in slots] == positions
    assert [s["slot"] for s in slots] == [0, 1, 2, 3]
    assert [s["configured"] for s in slots] == [True, False, False, False]
    assert (slots[0]["m_star"], slots[0]["optimal_count"]) == (data["m_star"],
                                                              data["optimal_count"])
    track = load_track(path)
    rows = table[table.index("grid slots"):].splitlines()[2:]
    assert len(rows) == 4
    for s, row in zip(slots, rows, strict=True):
        x, y = s["position"]
        ref = layered_bfs(track, initial=CarState(x, y, 0, 0, track.car.layer, 0, 0))
        assert s["reachable"] and s["m_star"] == ref.m_star
        assert s["optimal_count"] == str(ref.optimal_count)
        assert s["final_states"] == ref.final_states
        assert row.split()[1:] == [f"({x},", f"{y})", str(ref.m_star),
                                   f"{ref.optimal_count:,}"]
    assert len({(s["m_star"], s["optimal_count"]) for s in slots}) > 1  # slots differ


def test_analyze_all_slots_without_slots(capsys) -> None:
    assert main(["analyze", "tracks/tiny_straight.toml", "--all-slots", "--json"]) == 0
    slots = json.loads(capsys.readouterr().out)["slots"]
    assert len(slots) == 1 and slots[0]["position"] == [1, 1] and slots[0]["m_star"] == 3
