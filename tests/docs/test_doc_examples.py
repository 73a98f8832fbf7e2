"""The README's commands that read docs/examples/ run as written (issue #22 item 1).

In-process (`racecert.cli.main`), in a temporary folder, with the README's arguments:
the crosscheck against docs/examples/other-engine.json agrees (exit 0), and the Bekos
import of docs/examples/mini-sprint.xml writes a track that analyses and certifies.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding the README's inputs at their paths, as the working directory."""
    shutil.copytree(ROOT / "docs" / "examples", tmp_path / "docs" / "examples")
    (tmp_path / "tracks").mkdir()
    shutil.copy(ROOT / "tracks" / "ocho.toml", tmp_path / "tracks" / "ocho.toml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_readme_lines_name_the_example_files() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "$ racecert crosscheck tracks/ocho.toml docs/examples/other-engine.json" in readme
    assert "$ racecert import bekos docs/examples/mini-sprint.xml -o mini.toml" in readme
    assert "$ racecert analyze mini.toml --best-start -o s.svg" in readme
    assert "$ racecert certify mini.toml --best-start" in readme


def test_crosscheck_example_agrees(clone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["crosscheck", "tracks/ocho.toml", "docs/examples/other-engine.json"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("3 compared, 0 disagreement(s)")


def test_bekos_example_imports_analyses_and_certifies(
        clone: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "bekos", "docs/examples/mini-sprint.xml", "-o", "mini.toml"]) == 0
    assert main(["analyze", "mini.toml", "--best-start", "-o", "s.svg"]) == 0
    assert (clone / "s.svg").read_text().startswith("<svg")
    assert main(["certify", "mini.toml", "--best-start"]) == 0
    assert "CERTIFIED" in capsys.readouterr().out
