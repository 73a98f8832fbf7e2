"""The shell blocks of the docs marked runnable run as written (issue #22 item 1).

A ```console block right after a ``<!-- runnable -->`` line is run, in a fresh
temporary folder, one ``$ racecert ...`` line at a time, in-process
(`racecert.cli.main`, no subprocess start-up), and each must exit 0 and write
the files its ``-o`` options name. The page's
```toml blocks right after a ``<!-- file: NAME -->`` line are written to NAME there
first. docs/development.md states the convention.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = re.compile(r"^<!-- runnable -->\n```console\n(.*?)^```", re.S | re.M)
FILE = re.compile(r"^<!-- file: ([\w.-]+) -->\n```\w*\n(.*?)^```", re.S | re.M)


def pages() -> list[Path]:
    return [d for d in DOCS if RUNNABLE.search(d.read_text(encoding="utf-8"))]


def commands(block: str) -> list[list[str]]:
    """The argument lists of the block's ``$ racecert ...`` lines."""
    out = []
    for line in block.splitlines():
        words = shlex.split(line)
        if words[:2] == ["$", "racecert"]:
            out.append(words[2:])
        else:
            assert not line.startswith("$"), f"not a racecert command: {line}"
    return out


def test_the_first_circuit_page_is_runnable() -> None:
    assert ROOT / "docs" / "first-circuit.md" in pages()


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_runnable_blocks_exit_0(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    text = page.read_text(encoding="utf-8")
    for name, body in FILE.findall(text):
        (tmp_path / name).write_text(body, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for block in RUNNABLE.findall(text):
        for argv in commands(block):
            status = main(argv)
            err = capsys.readouterr().err
            assert status == 0, f"{page.name}: racecert {shlex.join(argv)} -> {status}: {err}"
            written = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--out")]
            assert all((tmp_path / w).is_file() for w in written), (argv, written)
            ran += 1
    assert ran > 0
