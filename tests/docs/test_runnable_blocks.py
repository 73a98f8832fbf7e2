"""Every shell block of README.md and docs/*.md runs as written, or says why not (issue #22
item 1).

A shell block is a fenced block in ``sh``, ``console``, ``bash`` or ``shell``, or any
fenced block whose first line starts with ``$ ``. The line right above each one must be
a marker (docs/development.md states the convention):

- ``<!-- runnable -->``: its ``$ racecert ...`` lines run in order, in-process
  (`racecert.cli.main`, no subprocess start-up), in a temporary folder laid out as the
  root of a fresh clone (copies of ``tracks/`` and ``docs/examples/``), shared by the
  page's blocks in page order; each must exit 0 and write the files its ``-o`` options
  name. ``<!-- runnable: in an empty folder -->`` runs the block in an empty folder
  instead (the page's other such blocks share it).
- ``<!-- expected-failure: exit N -->``: the same, but each command must exit N.
- ``<!-- not-runnable: REASON -->``: never run; REASON says why (a server that runs
  until Ctrl-C, minutes of CPU, a placeholder file name, another program).

Lines under a command that are not commands are its output: when a block shows any, the
command's stdout then stderr must be those lines (trailing blanks ignored), so a shown
error message is the one racecert prints. A ``\\`` at a line's end continues the command;
``#`` starts a comment; a word with ``*``, ``?`` or ``[`` is expanded as the shell would
(sorted, left as written when nothing matches). The page's fenced blocks right after a
``<!-- file: NAME -->`` line are written to NAME in its folders first.
"""

from __future__ import annotations

import dataclasses
import glob
import re
import shlex
import shutil
from pathlib import Path

import pytest

from racecert.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "console", "bash", "shell"}
MARKER = re.compile(r"^<!-- (runnable|runnable: in an empty folder|expected-failure: exit (\d+)"
                    r"|not-runnable: (\S.*?)) -->$")
FILE = re.compile(r"^<!-- file: ([\w.-]+) -->$")
EMPTY = "in an empty folder"


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: where it starts (1-based line of the fence), its info string, its
    lines and the line right above the fence."""

    page: Path
    line: int
    lang: str
    body: tuple[str, ...]
    above: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def is_shell(self) -> bool:
        first = next((b for b in self.body if b.strip()), "")
        return self.lang in SHELL or first.startswith("$ ")


def fenced_blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            out.append(Block(page, i + 1, lines[i][3:].strip(), tuple(lines[i + 1:end]),
                             lines[i - 1] if i else ""))
            i = end + 1
        else:
            i += 1
    return out


@dataclasses.dataclass
class Step:
    argv: list[str]
    shown: list[str] = dataclasses.field(default_factory=list)


def steps(block: Block) -> list[Step]:
    """The block's commands, each with the output lines shown under it."""
    out: list[Step] = []
    lines = list(block.body)
    while lines:
        line = lines.pop(0)
        if line.startswith("$ "):
            while line.endswith("\\") and lines:
                line = line[:-1] + " " + lines.pop(0)
            words = shlex.split(line[2:], comments=True)
            assert words[:1] == ["racecert"], f"{block.where}: not a racecert command: {line}"
            out.append(Step(words[1:]))
        else:
            assert out, f"{block.where}: output before any command: {line}"
            out[-1].shown.append(line.rstrip())
    return out


def expand(argv: list[str]) -> list[str]:
    """Glob words expanded as a shell would (in the working directory)."""
    out = []
    for word in argv:
        found = sorted(glob.glob(word)) if re.search(r"[*?\[]", word) else []
        out += found or [word]
    return out


def marked(page: Path) -> list[tuple[Block, str]]:
    return [(b, b.above[5:-4]) for b in fenced_blocks(page)
            if b.is_shell() and MARKER.match(b.above)]


def pages_with_runs() -> list[Path]:
    return [p for p in DOCS if any(not m.startswith("not-runnable") for _, m in marked(p))]


def test_every_shell_block_has_a_marker() -> None:
    unmarked = [b.where for p in DOCS for b in fenced_blocks(p)
                if b.is_shell() and not MARKER.match(b.above)]
    assert unmarked == [], ("shell blocks without <!-- runnable -->, <!-- expected-failure: "
                            f"exit N --> or <!-- not-runnable: reason -->: {unmarked}")


def test_markers_sit_on_shell_blocks() -> None:
    misplaced = [b.where for p in DOCS for b in fenced_blocks(p)
                 if MARKER.match(b.above) and not b.is_shell()]
    assert misplaced == []


def test_the_readme_usage_and_first_circuit_are_run() -> None:
    assert {ROOT / "README.md", ROOT / "docs" / "first-circuit.md"} <= set(pages_with_runs())
    readme = [(b, m) for b, m in marked(ROOT / "README.md")]
    runs = [b for b, m in readme if not m.startswith("not-runnable")]
    assert sum(len(steps(b)) for b in runs) >= 20  # the Usage block, bundled tracks, errors
    assert any(m.startswith("expected-failure") for _, m in readme)


def _folder(tmp_path: Path, kind: str, files: dict[str, str]) -> Path:
    folder = tmp_path / kind.replace(" ", "-")
    if not folder.exists():
        folder.mkdir()
        if kind != EMPTY:  # the root of a fresh clone: the tracks and the docs' inputs
            shutil.copytree(ROOT / "tracks", folder / "tracks")
            shutil.copytree(ROOT / "docs" / "examples", folder / "docs" / "examples")
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("page", pages_with_runs(), ids=lambda p: p.name)
def test_blocks_run_as_written(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    files = {FILE.match(b.above).group(1): "\n".join(b.body) + "\n"  # type: ignore[union-attr]
             for b in fenced_blocks(page) if FILE.match(b.above)}
    ran = 0
    for block, marker in marked(page):
        if marker.startswith("not-runnable"):
            continue
        failure = re.fullmatch(r"expected-failure: exit (\d+)", marker)
        expected = int(failure.group(1)) if failure else 0
        folder = _folder(tmp_path, EMPTY if marker.endswith(EMPTY) else "clone", files)
        monkeypatch.chdir(folder)
        for step in steps(block):
            argv = expand(step.argv)
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse's errors
                status = int(exc.code or 0)
            got = capsys.readouterr()
            said = [line.rstrip() for line in (got.out + got.err).splitlines()]
            what = f"{block.where}: racecert {shlex.join(step.argv)}"
            assert status == expected, f"{what} -> {status}, not {expected}: {got.err}"
            if failure:
                assert step.shown, f"{what}: an expected failure must show its message"
            if step.shown:
                assert "\n".join(said).rstrip() == "\n".join(step.shown).rstrip(), what
            if not failure:
                written = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--out")]
                assert all((folder / w).exists() for w in written), (what, written)
            ran += 1
    assert ran > 0
