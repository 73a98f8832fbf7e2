"""`racecert crosscheck`: exit status 0 / 1 / 2, the messages, and every figure compared.

For every figure of the schema (docs/crosscheck.md) there is a RESULT file
holding racecert's right value (exit 0) and one holding a wrong value (exit 1).
The right values come from racecert's own JSON report and library record;
`test_every_schema_figure_is_exercised` fails if a figure of the schema is
left out. The analysis of each track is computed once (`cached_analyze`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from racecert.analysis import Analysis, analyze
from racecert.analysis.library import library_entry
from racecert.certification import result_schema as schema
from racecert.certification.result_schema import RESULT, Node
from racecert.cli import main
from racecert.model.parse import load_track
from racecert.model.track import Track

TRACKS = Path(__file__).resolve().parents[2] / "tracks"
TRACK = str(TRACKS / "mini_arcen.toml")
FIGURE_TRACKS = ("mini_arcen", "tiny_circuit_nocont", "tiny_circuit_race_vs_editor",
                 "tiny_spiral_stage")


@cache
def _analysis(sha256: str, mode: str, path: str) -> Analysis:
    return analyze(load_track(path), mode)


def cached_analyze(track: Track, mode: str = "exact", progress: Any = None) -> Analysis:
    """`analyze` once per track file and mode (the comparisons are what is tested)."""
    return _analysis(track.sha256, mode, track.path)


def run(result: Path | str, track: str = TRACK, *options: str) -> tuple[int, str, str]:
    """`racecert crosscheck TRACK RESULT` with the cached analysis: (status, stdout, stderr)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with (mock.patch("racecert.cli.crosscheck.analyze", cached_analyze),
          contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)):
        code = main(["crosscheck", track, str(result), *options])
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path: Path, text: str | bytes) -> Path:
    f = tmp_path / "result.json"
    f.write_bytes(text.encode() if isinstance(text, str) else text)
    return f


# -- exit status and messages ------------------------------------------------------------


def test_agreement_exits_0(tmp_path: Path) -> None:
    code, out, _ = run(_write(tmp_path, json.dumps({"m_star": 4, "optimal_count": 3})))
    assert code == 0
    assert "2 compared, 0 disagreement(s)" in out


def test_wrong_count_exits_1(tmp_path: Path) -> None:
    code, out, _ = run(_write(tmp_path, json.dumps({"m_star": 4, "optimal_count": "2"})))
    assert code == 1
    assert "disagree" in out


def test_unknown_keys_are_reported_not_fatal(tmp_path: Path) -> None:
    code, out, _ = run(_write(tmp_path, json.dumps({"m_star": 4, "colour": "red"})))
    assert code == 0
    assert "colour" in out and "unknown" in out
    assert "1 compared, 0 disagreement(s), 1 unknown key(s) not compared" in out


def test_json_rows(tmp_path: Path) -> None:
    code, out, err = run(_write(tmp_path, json.dumps({"m_star": 5, "x": 1})), TRACK, "--json")
    assert code == 1
    rows = json.loads(out)
    assert [(r["figure"], r["verdict"]) for r in rows] == [("m_star", "disagree"),
                                                            ("x", "unknown")]
    assert err == "1 compared, 1 disagreement(s), 1 unknown key(s) not compared\n"


def _library_file(tmp_path: Path) -> str:
    """What `racecert library TRACK -o FILE` writes (a version and one record per track)."""
    from racecert.analysis.library import build_library

    return json.dumps(build_library([cached_analyze(load_track(TRACK))]))


@pytest.mark.parametrize("option", [[], ["--json"]])
@pytest.mark.parametrize("text, words", [
    (json.dumps({"engine": "x"}), "no figure to compare: 1 unknown key(s) (engine), 0 key(s) "
                                  "ignored"),
    ("{}", "no figure to compare: it is empty"),
    (json.dumps({"m_star": None, "seconds": 1.5}), "0 unknown key(s), 1 key(s) ignored"),
    (_library_file, "a `racecert library` file holds one record per track"),
])
def test_a_result_without_a_figure_exits_2(tmp_path: Path, text: Any, words: str,
                                           option: list[str]) -> None:
    """A RESULT.json that holds nothing racecert compares is bad input, not "0 compared"
    and exit 0: one line naming the file and what it holds."""
    code, out, err = run(_write(tmp_path, text(tmp_path) if callable(text) else text), TRACK,
                         *option)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and "result.json" in err
    assert words in err, err


@pytest.mark.parametrize("text, words", [
    ('{"m_star": 4,,}', "line 1"),
    (json.dumps({"optimal_count": -3}), "optimal_count"),
    (json.dumps({"optimal_count": "\u00b3"}), "optimal_count"),  # superscript three
    (json.dumps({"green": {"length": True}}), "green.length"),
    (json.dumps({"tolerance": 1e308, "blue": -7.0}), "blue.length: -7.0 is out of range"),
    ('{"n": ' + "1" * 4400 + "}", "an integer of 4400 digits"),
    ("[" * 1000 + "]" * 1000, "nested deeper than 16"),
    ('{"blue": NaN}', "NaN"),
    (b'{"m_star": "\xff"}', "not UTF-8"),
])
def test_bad_input_exits_2_with_one_line(tmp_path: Path, text: str | bytes, words: str) -> None:
    code, out, err = run(_write(tmp_path, text))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and "result.json" in err
    assert words in err


def test_a_fifo_exits_2(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    code, _, err = run(fifo)
    assert code == 2 and "not a regular file" in err


def test_sqrt_of_a_31_digit_prime_is_decided(tmp_path: Path, monkeypatch) -> None:
    from tests.certification.test_radical_text import _no_factoring

    _no_factoring(monkeypatch)  # any factoring of a number above 10^12 fails the test
    text = '{"blue": "sqrt(1000000000000000000000000000057)"}\n'  # 50 bytes, a 31-digit prime
    code, out, _ = run(_write(tmp_path, text))
    assert code == 1 and "blue.length" in out


def test_the_files_tolerance_is_not_used(tmp_path: Path) -> None:
    code, out, _ = run(_write(tmp_path, json.dumps({"tolerance": 1e308, "blue": 8.0})))
    assert code == 1
    assert "the tolerances are the checker's" in out


# -- every figure: the right value agrees, a wrong one disagrees ---------------------------


def leaf_paths(node: Node, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every (path, leaf parser) of the schema."""
    for key, spec in node.fields.items():
        if isinstance(spec, Node):
            yield from leaf_paths(spec, (*prefix, key))
        else:
            yield (*prefix, key), spec


def present(document: dict, node: Node = RESULT, prefix: tuple[str, ...] = ()
            ) -> Iterator[tuple[tuple[str, ...], Any, Any]]:
    """(path, leaf parser, value) for every non-null figure of a racecert document."""
    for key, value in document.items():
        spec = node.fields.get(key)
        if spec is None or value is None:
            continue
        if isinstance(spec, Node):
            yield from present(value, spec, (*prefix, key))
        else:
            yield (*prefix, key), spec, value


def nested(path: tuple[str, ...], value: Any) -> dict:
    out: Any = value
    for key in reversed(path):
        out = {key: out}
    return out


def wrong(spec: Any, value: Any) -> Any:
    """A value of the same type and range that differs from racecert's right one."""
    if spec is schema.count:
        return int(value) + 1
    if spec is schema.boolean:
        return not value
    if spec is schema.sha256:
        return ("0" if value[0] != "0" else "1") + value[1:]
    if spec in (schema.fraction,):
        f = Fraction(value)
        return str(f + Fraction(1, 3) if f <= Fraction(1, 2) else f - Fraction(1, 3))
    if spec in (schema.length, schema.exact_length):
        return f"{value} + 1" if isinstance(value, str) else value + 0.5
    if spec is schema.positions:
        return [*value[:-1], [value[-1][0] + 1, value[-1][1]]]
    if spec is schema.accelerations:
        ax, ay = value[-1]
        return [*value[:-1], [ax - 1 if ax > -1 else ax + 1, ay]]
    for options in (("stage", "circuit"), ("exact", "editor"),
                    ("rejected", "weak", "fair", "good", "excellent")):
        if value in options:
            return options[(options.index(value) + 1) % len(options)]
    return value + 0.5 if value + 0.5 <= (1 if value <= 1 else 100) else value - 0.5


def _documents(name: str) -> dict:
    """racecert's report, library record and the crosscheck-only editor percentage."""
    track = load_track(TRACKS / f"{name}.toml")
    a = cached_analyze(track)
    doc = {**a.to_json(), **library_entry(a)}
    c = a.continuity
    if c is not None and c.applicable:
        doc["continuable_percent_editor"] = float(
            100 * Fraction(c.continuable_count_editor, a.bfs.optimal_count))
    return doc


def _cases() -> list[tuple[str, tuple[str, ...], Any, Any]]:
    seen: set[tuple[str, ...]] = set()
    cases = []
    for name in FIGURE_TRACKS:
        for path, spec, value in present(_documents(name)):
            kind = (path, type(value).__name__)
            if kind in seen and spec not in (schema.count, schema.boolean):
                continue
            seen.add(kind)
            cases.append((name, path, value, wrong(spec, value)))
    return cases


CASES = _cases()


def test_every_schema_figure_is_exercised() -> None:
    exercised = {path for _, path, _, _ in CASES}
    assert {path for path, _ in leaf_paths(RESULT)} <= exercised


@pytest.mark.parametrize("name, path, right, bad", CASES,
                         ids=[f"{c[0]}:{'.'.join(c[1])}" for c in CASES])
def test_a_right_figure_agrees_and_a_wrong_one_disagrees(tmp_path: Path, name: str,
                                                         path: tuple[str, ...], right: Any,
                                                         bad: Any) -> None:
    track = str(TRACKS / f"{name}.toml")
    f = tmp_path / "r.json"
    f.write_text(json.dumps(nested(path, right)))
    code, out, err = run(f, track, "--json")
    rows = json.loads(out)
    assert code == 0, rows
    assert rows and {r["verdict"] for r in rows} == {"agree"}
    f.write_text(json.dumps(nested(path, bad)))
    code, out, err = run(f, track, "--json")
    assert code == 1, (err, out)
    assert "disagree" in {r["verdict"] for r in json.loads(out)}


def test_the_documented_example_is_what_crosscheck_prints(tmp_path: Path) -> None:
    doc = (TRACKS.parent / "docs" / "crosscheck.md").read_text()
    shown = doc.split("```\n$ racecert crosscheck tracks/mini_arcen.toml result.json\n")[1]
    expected = shown.split("```")[0].splitlines()
    result = doc.split("```json\n")[1].split("```")[0]
    code, out, _ = run(_write(tmp_path, result))
    assert code == 1
    assert [line.rstrip() for line in out.splitlines()] == expected
