"""CLI conventions: --version, python -m racecert, several files, one-line argument errors
with the allowed range (exit 2), and progress that never writes \\r into a redirected log."""

from __future__ import annotations

import contextlib
import doctest
import gc
import io
import os
import pty
import subprocess
import sys
import termios
import threading
from importlib.metadata import version
from pathlib import Path
from typing import TextIO

import pytest
from tqdm import tqdm

from racecert import collector
from racecert.cli import main
from racecert.cli.progress import PlainProgress, progress
from racecert.collector import GC_THRESHOLDS

ROOT = Path(__file__).resolve().parents[2]
TINY = str(ROOT / "tracks" / "tiny_straight.toml")
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def run(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *argv], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=300, **kwargs)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"racecert {version('racecert')}"


def test_every_command_sets_the_gc_thresholds(capsys: pytest.CaptureFixture[str]) -> None:
    """`main` sets `GC_THRESHOLDS` (from CPython's defaults, as a fresh process has them);
    the suite's own process uses the same, restored afterwards."""
    suite = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        assert main(["validate", TINY]) == 0
        assert gc.get_threshold() == GC_THRESHOLDS != (700, 10, 10)
    finally:
        gc.set_threshold(*suite)
    assert capsys.readouterr().out.startswith(f"{TINY}: ok")


def test_the_collector_doctest() -> None:
    failures, tries = doctest.testmod(collector)
    assert failures == 0 and tries >= 4


def test_python_dash_m_runs_the_cli() -> None:
    res = run("-m", "racecert", "validate", TINY)
    assert res.returncode == 0 and res.stdout.startswith(f"{TINY}: ok")
    res = run("-m", "racecert", "--version")
    assert res.returncode == 0 and res.stdout.startswith("racecert ")


def test_validate_several_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad1, bad2 = tmp_path / "bad1.toml", tmp_path / "bad2.toml"
    bad1.write_text("name = 3\n")
    bad2.write_text("[[[\n")
    good = str(ROOT / "tracks" / "ocho.toml")
    assert main(["validate", TINY, str(bad1), good, str(bad2)]) == 2
    out, err = capsys.readouterr()
    assert [line.split(":")[0] for line in out.splitlines()] == [TINY, good]
    assert all(": ok — " in line for line in out.splitlines())
    errors = err.splitlines()
    assert len(errors) == 2 and errors[0].startswith(f"error: {bad1}")
    assert errors[1].startswith(f"error: {bad2}")
    assert main(["validate", TINY, good]) == 0


@pytest.mark.parametrize("argv, expected", [
    (["certify", TINY, "--cpsat-budget", "-1"], "greater than 0 and at most 1e+06"),
    (["certify", TINY, "--cpsat-budget", "nan"], "greater than 0 and at most 1e+06"),
    (["certify", TINY, "--cpsat-budget", "inf"], "greater than 0 and at most 1e+06"),
    (["certify", TINY, "--cpsat-budget", "0"], "greater than 0 and at most 1e+06"),
    (["certify", TINY, "--cpsat-budget", "soon"], "is not a number of deterministic time units"),
    (["certify", TINY, "--count-limit", "-5"], "from 0 to 100,000,000"),
    (["certify", TINY, "--count-limit", "1.5"], "is not a count"),
    (["explore", "opening", "--sizes", "0x0"], "W from 5 to 40, H from 3 to 40"),
    (["explore", "opening", "--sizes", "100000x100000"], "W from 5 to 40, H from 3 to 40"),
    (["explore", "opening", "--sizes", "7x"], "is not WxH"),
    (["explore", "opening", "--random", "-1"], "from 0 to 1,000,000"),
    (["explore", "opening", "--exhaustive", "30"], "from 0 to 8"),
    (["analyze", TINY, "--mode", "fast"], "invalid choice"),
    (["analyze"], "required"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_argument_is_one_line_exit_2(argv: list[str], expected: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and expected in err
    assert err.startswith("racecert") and "usage:" not in err


def test_argument_ranges_accept_their_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    from racecert.cli import build_parser

    p = build_parser()
    a = p.parse_args(["certify", TINY, "--cpsat-budget", "1e6", "--count-limit", "0"])
    assert (a.cpsat_budget, a.count_limit) == (1e6, 0)
    e = p.parse_args(["explore", "opening", "--sizes", "5x3", "40X40", "--exhaustive", "8"])
    assert e.sizes == [(5, 3), (40, 40)] and e.exhaustive == 8


# -- progress --------------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_tqdm_only_on_a_terminal() -> None:
    assert isinstance(progress("x", stream=FakeTerminal()), tqdm)
    assert isinstance(progress("x", stream=io.StringIO()), PlainProgress)


def test_plain_progress_writes_whole_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    log = io.StringIO()
    bar = PlainProgress("analyze t", " step", 7, log, delay=0.0, interval=0.0)
    for name in ("yellow", "bfs", "laps"):
        bar.set_postfix_str(name)
        bar.update(1)
    bar.set_postfix(depth=3, states=12)
    bar.update(1)
    bar.close()
    text = log.getvalue()
    assert text.splitlines() == ["analyze t (1/7 step; yellow)", "analyze t (2/7 step; bfs)",
                                 "analyze t (3/7 step; laps)",
                                 "analyze t (4/7 step; depth=3, states=12)"]
    assert "\r" not in text and "\x1b" not in text


def test_plain_progress_stays_silent_before_the_delay() -> None:
    log = io.StringIO()
    bar = PlainProgress("x", "", None, log, delay=3600.0, interval=0.0)
    for _ in range(100):
        bar.update(1)
    assert log.getvalue() == ""


# The command as the terminal or the log gets it: progress shown at once (DELAY = 0, no
# rate limit) while `racecert analyze` runs a circuit (the laps and continuity bars of the
# oracle run too), with sys.stderr the stream the test gives. In-process: what decides
# between a bar and plain lines is the stream (`progress.is_terminal(sys.stderr)`), not
# the process (a child each, ~0.85 CPU s, before).
def analyze_with_stderr(stream: TextIO, monkeypatch: pytest.MonkeyPatch) -> int:
    import racecert.cli.progress as p

    with monkeypatch.context() as patch, contextlib.redirect_stdout(io.StringIO()):
        patch.setattr(p, "DELAY", 0.0)
        patch.setattr(p, "PLAIN_INTERVAL", 0.0)
        patch.setattr(sys, "stderr", stream)  # restored before the stream is closed
        return main(["analyze", str(ROOT / "tracks" / "4_esquinas.toml"), "--json"])


def test_redirected_stderr_has_no_carriage_returns(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "stderr.log"
    with open(log, "w") as fh:
        assert analyze_with_stderr(fh, monkeypatch) == 0
    text = log.read_text()
    assert "analyze 4 Esquinas (1/7 step; yellow)\n" in text  # progress was shown
    assert "\r" not in text and "\x1b" not in text


def test_terminal_stderr_gets_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """The positive control: on a terminal (a pty) the same run draws tqdm bars with \\r,
    so the test above would see them if they leaked into a redirected log."""
    leader, follower = pty.openpty()
    termios.tcsetwinsize(follower, (24, 100))  # a new pty is 0 columns wide: tqdm draws nothing
    chunks: list[bytes] = []

    def drain() -> None:  # read the terminal as the run writes it (its buffer is small)
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the terminal was closed
                break
            if not data:
                break
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        with open(follower, "w", encoding="utf-8") as terminal:
            assert terminal.isatty()
            assert analyze_with_stderr(terminal, monkeypatch) == 0
    finally:
        reader.join(timeout=60)
        os.close(leader)
    assert b"\r" in b"".join(chunks)
