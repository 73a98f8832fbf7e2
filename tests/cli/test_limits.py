"""Resource limits of `analyze` and `certify` (racecert.cli.limits): a state, memory or
time limit reached ends with exit status 4 and one line naming the limit and what was
reached; no traceback, no output file, no temp file; figures unchanged below the limits.

Runs that must really run out of memory or time are subprocesses, each under a generous
safety timeout that turns a hang into a failure; nothing asserts how long anything took.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.generate import open_area
from racecert.cli import analyze as analyze_cli
from racecert.cli import main
from racecert.cli.limits import (
    MIN_MEMORY,
    address_space,
    available_memory,
    default_memory,
    format_bytes,
    memory_size,
)

ROOT = Path(__file__).resolve().parents[2]
TRACKS = ROOT / "tracks"
SAFETY_TIMEOUT = 600


def racecert(*argv: str, tmp_path: Path, limit_as: int | None = None
             ) -> subprocess.CompletedProcess:
    """`python -m racecert ARGV` in a subprocess (with TMPDIR in tmp_path), optionally
    under an address-space limit set before it starts (as `ulimit -v` would)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))

    def cap() -> None:
        if limit_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    return subprocess.run([sys.executable, "-m", "racecert", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=SAFETY_TIMEOUT,
                          preexec_fn=cap)


def big_track(tmp_path: Path) -> Path:
    """An open 400 x 400 area: its analysis needs about 1.4 GiB (compiled kernels, numba
    and its address space included) and takes a while."""
    path = tmp_path / "open400.toml"
    path.write_text(open_area(400, 200, 360))
    return path


def assert_limit_line(err: str, start: str) -> str:
    """The last stderr line is the limit's `error:` line; earlier lines are progress only."""
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines and lines[-1].startswith(f"error: {start}"), err
    assert not any(line.startswith("error") for line in lines[:-1]), err
    return lines[-1]


# -- the state limit (deterministic, in-process) -----------------------------------------------


def test_the_state_limit_is_one_line_and_exit_4(capsys: pytest.CaptureFixture[str]) -> None:
    espiral = str(TRACKS / "espiral.toml")
    assert main(["analyze", espiral, "--max-states", "1000"]) == 4
    out, err = capsys.readouterr()
    assert out == ""
    assert err == ("error: state limit reached: the yellow bounding search stored 1,017 "
                   "states after 56 rounds (--max-states 1000)\n")
    assert main(["certify", str(TRACKS / "tiny_straight.toml"), "--max-states", "3"]) == 4
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: state limit reached: the ") and err.endswith(
        "(--max-states 3)\n")


def test_no_output_file_is_written_past_a_limit(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "a.json"
    assert main(["analyze", str(TRACKS / "espiral.toml"), "--max-states", "1000",
                 "-o", str(out)]) == 4
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["espiral", "ocho", "apertura"])
def test_figures_are_unchanged_below_the_limits(name: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = str(TRACKS / f"{name}.toml")
    reports = []
    for extra in ([], ["--max-states", "10000000", "--timeout", "3600"]):
        assert main(["analyze", path, "--json", *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        data.pop("seconds")
        data.pop("timings")
        reports.append(data)
    assert reports[0] == reports[1]


# -- memory ------------------------------------------------------------------------------------


def test_the_memory_limit_is_one_line_and_exit_4(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    res = racecert("analyze", str(big_track(tmp_path)), "--max-memory", "900M",
                   "-o", str(out / "a.json"), tmp_path=tmp_path)
    assert res.returncode == 4, res.stderr
    assert res.stdout == ""
    line = assert_limit_line(res.stderr, "memory limit reached: ")
    assert line.endswith("(--max-memory 900 MiB); lower --max-states or raise --max-memory")
    assert list(out.iterdir()) == [] and list((tmp_path / "tmp").iterdir()) == []


def test_an_address_space_limit_set_outside_is_honoured(tmp_path: Path) -> None:
    """No --max-memory, but the process starts under RLIMIT_AS (ulimit -v): the default
    becomes that limit, and running out of it is still exit 4 with one line."""
    res = racecert("analyze", str(big_track(tmp_path)), tmp_path=tmp_path,
                   limit_as=1000 * 2**20)
    assert res.returncode == 4, res.stderr
    line = assert_limit_line(res.stderr, "memory limit reached: ")
    assert "(the address-space limit of 1000 MiB set outside racecert" in line


def test_a_memory_error_anywhere_in_the_run_is_exit_4(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    def greedy(*args: object, **kwargs: object) -> None:
        np.empty(2**62, dtype=np.uint8)  # numpy refuses at once: _ArrayMemoryError

    monkeypatch.setattr(analyze_cli, "run_analysis", greedy)
    assert main(["analyze", str(TRACKS / "tiny_straight.toml")]) == 4
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: memory limit reached: an allocation of 4096 PiB failed")


def test_a_memory_limit_below_what_the_process_holds_is_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", str(TRACKS / "tiny_straight.toml"), "--max-memory", "64M"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: --max-memory 64 MiB: below the ")


def test_the_address_space_limit_is_restored_after_the_run(
        capsys: pytest.CaptureFixture[str]) -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    assert main(["analyze", str(TRACKS / "tiny_straight.toml")]) == 0
    assert resource.getrlimit(resource.RLIMIT_AS) == before


# -- time --------------------------------------------------------------------------------------


def test_the_timeout_is_one_line_and_exit_4(tmp_path: Path) -> None:
    res = racecert("analyze", str(big_track(tmp_path)), "--timeout", "1", tmp_path=tmp_path)
    assert res.returncode == 4, res.stderr
    assert res.stdout == ""
    line = assert_limit_line(res.stderr, "time limit reached: ")
    assert line == "error: time limit reached: stopped after 1 s (--timeout 1)"


@pytest.mark.parametrize("mode", ["cpsat", "sat"])
def test_the_timeout_stops_a_native_solve(mode: str, tmp_path: Path) -> None:
    """The watchdog stops a CP-SAT or SAT solve that would run for hours; no certificate,
    proof, staging folder or temp file is left."""
    out_dir, tmpdir = tmp_path / "out", tmp_path / "tmp"
    out_dir.mkdir()
    tmpdir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmpdir))
    res = subprocess.run([sys.executable, "-m", "tests.cli.children", f"{mode}-timeout",
                          str(out_dir / "cert.json")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=SAFETY_TIMEOUT)
    assert res.returncode == 4, res.stderr
    assert res.stdout.strip() == "READY"
    assert_limit_line(res.stderr, "time limit reached: stopped after 2 s (--timeout 2)")
    assert list(out_dir.iterdir()) == [] and list(tmpdir.iterdir()) == []


# -- the arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize("argv, expected", [
    (["--max-states", "0"], "--max-states: 0 is out of range: a number of states from 1 to"),
    (["--max-memory", "2X"], "--max-memory: '2X' is not a size (e.g. 2G, 512M, 1.5GiB)"),
    (["--max-memory", "10K"], "--max-memory: 10K is out of range: a size from 64 MiB to 1 PiB"),
    (["--timeout", "0"], "--timeout: 0 is out of range: seconds greater than 0"),
    (["--timeout", "nan"], "--timeout: nan is out of range"),
    (["--timeout", "-1"], "--timeout: -1 is out of range"),
])
@pytest.mark.parametrize("command", ["analyze", "certify"])
def test_limit_arguments_are_checked(command: str, argv: list[str], expected: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, str(TRACKS / "tiny_straight.toml"), *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and expected in err


@pytest.mark.parametrize("text, size", [
    ("2G", 2 * 2**30), ("512M", 512 * 2**20), ("1.5GiB", 3 * 2**29), ("100000000", 10**8),
    ("64mb", 64 * 2**20), (" 1T ", 2**40),
])
def test_memory_sizes(text: str, size: int) -> None:
    assert memory_size(text) == size


def test_sizes_are_shown_in_binary_units() -> None:
    assert [format_bytes(n) for n in (MIN_MEMORY, 3 * 2**29, 2**40, 5000)] == [
        "64 MiB", "1.5 GiB", "1 TiB", "4.9 KiB"]


def test_the_default_memory_limit_adds_a_share_of_what_is_available() -> None:
    held, avail = address_space(), available_memory()
    cap, origin = default_memory()
    if held is None or avail is None:
        pytest.skip("no /proc here: no default memory limit")
    assert cap is not None and held < cap <= held + avail
    assert origin.startswith("the default --max-memory ")
