"""Issue #22 item 7: the small frictions of a first hour with the CLI.

`import -o` says what it wrote; a mistyped subcommand gets "did you mean"; `analyse`
is `analyze`; crosscheck's table has no trailing blanks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from racecert.certification.crosscheck import Comparison
from racecert.cli import did_you_mean, main
from racecert.cli.crosscheck import format_comparisons

TINY = str(Path(__file__).resolve().parents[2] / "tracks" / "tiny_straight.toml")

SPRINT = (Path(__file__).resolve().parents[2] / "docs" / "examples" / "mini-sprint.xml"
          ).read_text()  # the docs' example, already read by the import tests of docs/


def test_import_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml, toml = tmp_path / "mini.xml", tmp_path / "mini.toml"
    xml.write_text(SPRINT)
    assert main(["import", "bekos", str(xml), "-o", str(toml)]) == 0
    out, err = capsys.readouterr()
    assert toml.is_file() and out == ""
    assert err == f"wrote {toml} (from the bekos file {xml})\n"


def test_import_to_stdout_writes_only_the_track(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    xml = tmp_path / "mini.xml"
    xml.write_text(SPRINT)
    assert main(["import", "bekos", str(xml)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "rules" in out


@pytest.mark.parametrize(("word", "hint"), [
    ("anlyze", "did you mean 'analyze'?"),
    ("analize", "did you mean 'analyze'?"),
    ("certfy", "did you mean 'certify'?"),
    ("raec", "did you mean 'race' or 'tracks'?"),  # two close names: both offered
    ("frobnicate", ""),
    ("analyze", ""),
    ("analyse", ""),
    ("", ""),
])
def test_did_you_mean(word: str, hint: str) -> None:
    assert did_you_mean(word) == hint


def test_mistyped_subcommand_is_one_line_with_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["anlyze", TINY])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "invalid choice: 'anlyze'" in err and "did you mean 'analyze'?" in err


def test_analyse_is_analyze(capsys: pytest.CaptureFixture[str]) -> None:
    def figures() -> dict[str, object]:
        data = json.loads(capsys.readouterr().out)
        return {k: v for k, v in data.items() if "seconds" not in k and k != "timings"}

    assert main(["analyse", TINY, "--json"]) == 0
    british = figures()
    assert main(["analyze", TINY, "--json"]) == 0
    assert figures() == british and "m_star" in british


def test_crosscheck_table_has_no_trailing_blanks() -> None:
    rows = [Comparison("m_star", "12", "12", "agree", ""),
            Comparison("optimal_count", "322", "320", "disagree", "theirs is higher")]
    lines = format_comparisons(rows).split("\n")
    assert len(lines) == 3 and all(line == line.rstrip() for line in lines)
    assert lines[1].split() == ["m_star", "12", "12", "agree"]
    assert lines[2].endswith("disagree  theirs is higher")
    assert lines[0].index("verdict") == lines[1].index("agree")
