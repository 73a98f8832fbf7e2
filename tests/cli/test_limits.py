"""Resource limits of `analyze` and `certify` (racecert.cli.limits): a state, memory or
time limit reached ends with exit status 4 and one line naming the limit and what was
reached; no traceback, no output file, no temp file; figures unchanged below the limits.

Runs that must really run out of memory or time are subprocesses, each under a generous
safety timeout that turns a hang into a failure; nothing asserts how long anything took.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np
import pytest

from benchmarks.generate import open_area
from racecert.cli import analyze as analyze_cli
from racecert.cli import limits, main, watchdog
from racecert.cli.limits import (
    MIN_MEMORY,
    Watchdog,
    address_space,
    available_memory,
    cgroup_levels,
    default_memory,
    format_bytes,
    memory_size,
    seconds_since_start,
)

ROOT = Path(__file__).resolve().parents[2]
TRACKS = ROOT / "tracks"
SAFETY_TIMEOUT = 600


def racecert(*argv: str, tmp_path: Path, limit_as: int | None = None,
             before: Callable[[], None] | None = None) -> subprocess.CompletedProcess:
    """`python -m racecert ARGV` in a subprocess (with TMPDIR in tmp_path), optionally
    under an address-space limit set before it starts (as `ulimit -v` would) and after
    `before()` has run in the child."""
    tmp = tmp_path / "tmp"
    tmp.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))

    def cap() -> None:
        if before is not None:
            before()
        if limit_as is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    return subprocess.run([sys.executable, "-m", "racecert", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=SAFETY_TIMEOUT,
                          preexec_fn=cap)


def big_track(tmp_path: Path) -> Path:
    """An open 400 x 400 area: its analysis needs about 1.4 GiB (compiled kernels, numba
    and its address space included) and takes a while.

    The memory tests stop it at a limit of 500 MiB, 175 MiB above the ~325 MiB of address
    space the process holds once its imports are done (the same with 16 or 64 BLAS
    threads asked for): the analysis is well underway there (about 295 MiB resident at
    the peak, where a run of tiny_straight peaks at about 155 MiB), and the limit is
    reached after a fraction of the work a limit near the full 1.4 GiB needs (700 MiB
    cost 0.7 CPU s more per run)."""
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
    assert err == ("error: state limit reached: the yellow search stored 1,005 "
                   "states after settling 967 states (--max-states 1000)\n")
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
    res = racecert("analyze", str(big_track(tmp_path)), "--max-memory", "500M",
                   "-o", str(out / "a.json"), tmp_path=tmp_path)
    assert res.returncode == 4, res.stderr
    assert res.stdout == ""
    line = assert_limit_line(res.stderr, "memory limit reached: ")
    assert line.endswith("(--max-memory 500 MiB); lower --max-states or raise --max-memory")
    assert list(out.iterdir()) == [] and list((tmp_path / "tmp").iterdir()) == []


# -- the process's own cgroup -------------------------------------------------------------------


def write_files(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)


def test_cgroup_v2_levels_are_the_process_own_and_its_ancestors(tmp_path: Path) -> None:
    """v2 (`0::/path`): the limits of the process's own cgroup and of every ancestor up to
    the mount's root, never the root's files alone; "max" is no limit; the tightest room
    may be an ancestor's."""
    mount = tmp_path / "cg2"
    write_files(mount, {"memory.max": "max\n"})  # the root: no limit
    write_files(mount / "user.slice", {"memory.max": "4294967296\n",
                                       "memory.current": "3221225472\n",
                                       "memory.stat": "anon 1\ninactive_file 1073741824\n"})
    own = mount / "user.slice" / "job"
    write_files(own, {"memory.max": "2147483648\n", "memory.current": "536870912\n",
                      "memory.stat": "inactive_file 0\n"})
    mounts = f"cgroup2 {mount} cgroup2 rw,nosuid 0 0\nproc /proc proc rw 0 0\n"
    levels = cgroup_levels("0::/user.slice/job\n", mounts)
    assert [lvl[0] for lvl in levels] == [2**31, 2**32]
    assert [lvl[4] for lvl in levels] == [str(own), str(mount / "user.slice")]
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 16000000 kB\nMemAvailable: 8000000 kB\n")
    # own: 2 GiB - 0.5 GiB = 1.5 GiB; user.slice: 4 GiB - (3 - 1) GiB = 2 GiB
    assert watchdog.room(levels, str(meminfo)) == (3 * 2**29, f"the cgroup {own}")
    (user := mount / "user.slice" / "memory.stat").write_text("inactive_file 0\n")
    assert watchdog.room(levels, str(meminfo)) == (2**30, f"the cgroup {user.parent}")


def test_cgroup_v1_levels_walk_up_to_the_tightest_limit(tmp_path: Path) -> None:
    """v1 (`N:memory:/path`, the controller's own mount, found in /proc/self/mounts):
    no limit below (v1's huge number), a limit two levels up; and a path of another
    cgroup namespace (missing folder) still reaches the mount's root."""
    mount = tmp_path / "memory"
    huge = "9223372036854771712\n"
    write_files(mount, {"memory.limit_in_bytes": "1073741824\n",
                        "memory.usage_in_bytes": "900000000\n",
                        "memory.stat": "total_inactive_file 100000000\n"})
    write_files(mount / "a", {"memory.limit_in_bytes": huge, "memory.usage_in_bytes": "5\n"})
    write_files(mount / "a" / "b", {"memory.limit_in_bytes": huge,
                                    "memory.usage_in_bytes": "5\n"})
    mounts = (f"cgroup2 {tmp_path / 'unified'} cgroup2 rw 0 0\n"
              f"cgroup {tmp_path / 'cpu'} cgroup rw,relatime,cpu 0 0\n"
              f"cgroup {mount} cgroup rw,relatime,memory 0 0\n")
    cgroup = "9:name=systemd:/\n4:memory:/a/b\n1:cpu:/\n0::/\n"
    levels = cgroup_levels(cgroup, mounts)
    assert [(lvl[0], lvl[4]) for lvl in levels] == [(2**30, str(mount))]
    no_meminfo = str(tmp_path / "none")
    assert watchdog.room(levels, no_meminfo) == (2**30 - 800000000, f"the cgroup {mount}")
    assert [lvl[4] for lvl in cgroup_levels("4:memory:/elsewhere/x\n", mounts)] == [
        str(mount)]
    assert cgroup_levels("0::/\n", "") == [] and cgroup_levels("", mounts) == []


CGROUP_V1 = Path("/sys/fs/cgroup/memory")


def own_v1_memory_cgroup() -> Path | None:
    """The folder of this process's v1 memory cgroup if a child cgroup can be made in it."""
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        hierarchy, controllers, path = line.split(":", 2)
        if "memory" in controllers.split(","):
            folder = CGROUP_V1 / path.lstrip("/")
            return folder if os.access(folder, os.W_OK) else None
    return None


@contextmanager
def memory_cgroup(limit: int) -> Iterator[Callable[[], None]]:
    """A new v1 memory cgroup of `limit` bytes below this process's own (skip where none
    can be made); yields the `before` that moves a child into it; removed afterwards."""
    parent = own_v1_memory_cgroup()
    if parent is None:
        pytest.skip("no writable cgroup v1 memory controller here to make a test cgroup in")
    group = parent / f"racecert-test-{os.getpid()}"
    try:
        group.mkdir()
    except OSError as exc:
        pytest.skip(f"cannot create a memory cgroup here: {exc.strerror}")
    try:
        (group / "memory.limit_in_bytes").write_text(str(limit))
        with suppress(OSError):  # no swapping past the limit either, where swap is on
            (group / "memory.memsw.limit_in_bytes").write_text(str(limit))

        def enter() -> None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

        yield enter
    finally:
        for _ in range(100):  # the children's memory is uncharged shortly after they end
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def test_a_real_cgroup_limit_is_exit_4_not_an_oom_kill(tmp_path: Path) -> None:
    """A run in a memory cgroup of 450 MiB (the machine has far more; the process holds
    about 200 MiB resident once its imports are done, so the analysis is underway when
    its memory runs low there): the default --max-memory comes from that cgroup, so the
    run stops with exit 4 and one line instead of the cgroup's out-of-memory kill
    (137 / -9, as before). Which of the two stops it depends on how fast its memory
    grows: the address-space cap ("... available in the cgroup ...") or the watchdog's
    look at the cgroup ("... left in the cgroup ..."); both name the cgroup."""
    with memory_cgroup(450 * 2**20) as enter:
        res = racecert("analyze", str(big_track(tmp_path)), tmp_path=tmp_path, before=enter)
    assert res.returncode == 4, (res.returncode, res.stderr[-2000:])
    line = assert_limit_line(res.stderr, "memory limit reached: ")
    assert re.search(r" (available|left) in the cgroup \S*racecert-test-", line), line


def test_parallel_runs_in_one_cgroup_stop_with_exit_4(tmp_path: Path) -> None:
    """Two runs start together in an 800 MiB cgroup (each needs about 1.2 GiB to finish,
    about 200 MiB once its imports are done), each allowed 75 % of the same free memory:
    the watchdog stops a run whose memory runs low, with one line and exit 4; none is
    killed by the out-of-memory killer (before: both -9)."""
    track = big_track(tmp_path)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with memory_cgroup(800 * 2**20) as enter:
        runs = [subprocess.Popen([sys.executable, "-m", "racecert", "analyze", str(track)],
                                 cwd=ROOT, env=env, preexec_fn=enter, text=True,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                for _ in range(2)]
        results = [(run.wait(SAFETY_TIMEOUT), run.stderr.read()) for run in runs]
        for run in runs:
            run.stderr.close()
    for code, err in results:
        assert code in (0, 4), (code, err[-2000:])
        if code == 4:
            assert_limit_line(err, "memory limit reached: ")
    assert any(code == 4 for code, _ in results)


def test_the_watchdog_doctest() -> None:
    failures, tries = doctest.testmod(watchdog)
    assert failures == 0 and tries >= 2


def test_the_watchdog_keeps_a_margin_for_how_fast_memory_goes() -> None:
    """Below the reserve is low; so is where two more slices like the last would take the
    memory past it (two runs in one cgroup writing large arrays took more than the 64 MiB reserve in
    one slice, and the kernel's out-of-memory killer came first); a steady or freeing
    run is judged by the reserve alone."""
    mib = 2**20
    assert watchdog.running_low(63 * mib, None, 64 * mib)
    assert not watchdog.running_low(65 * mib, None, 64 * mib)
    assert watchdog.running_low(250 * mib, 400 * mib, 64 * mib)  # 150 MiB in one slice
    assert not watchdog.running_low(250 * mib, 270 * mib, 64 * mib)
    assert not watchdog.running_low(100 * mib, 50 * mib, 64 * mib)  # memory freed
    assert watchdog.running_low(127 * mib, 159 * mib, 64 * mib)  # 64 + 2 x 32 > 127
    assert not watchdog.running_low(129 * mib, 161 * mib, 64 * mib)


def test_an_address_space_limit_set_outside_is_honoured(tmp_path: Path) -> None:
    """No --max-memory, but the process starts under RLIMIT_AS (ulimit -v): the default
    becomes that limit, and running out of it is still exit 4 with one line."""
    res = racecert("analyze", str(big_track(tmp_path)), tmp_path=tmp_path,
                   limit_as=500 * 2**20)
    assert res.returncode == 4, res.stderr
    line = assert_limit_line(res.stderr, "memory limit reached: ")
    assert "(the address-space limit of 500 MiB set outside racecert" in line


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


def test_a_memory_limit_below_what_the_process_holds_is_a_limit_reached(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A valid --max-memory that the process already exceeds (it holds some hundreds of
    MiB of address space before any work) is a resource limit, exit 4, not bad input."""
    assert main(["analyze", str(TRACKS / "tiny_straight.toml"), "--max-memory", "64M"]) == 4
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: memory limit reached: --max-memory 64 MiB is below the ")


def test_the_address_space_limit_is_restored_after_the_run(
        capsys: pytest.CaptureFixture[str]) -> None:
    before = resource.getrlimit(resource.RLIMIT_AS)
    assert main(["analyze", str(TRACKS / "tiny_straight.toml")]) == 0
    assert resource.getrlimit(resource.RLIMIT_AS) == before


# -- time --------------------------------------------------------------------------------------


def ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_the_timeout_is_one_line_and_exit_4_even_with_sigint_ignored(tmp_path: Path) -> None:
    """`trap "" INT; exec racecert ...` (or nohup, or a background job): the watchdog's
    signal is its own (SIGUSR1, whatever SIGINT's disposition), so the run still stops at
    the timeout, with one line, exit 4 and nothing on stdout. (One process for both: with
    SIGINT at its default the watchdog's signal and handler are the same; the timeout's
    path in-process is test_the_timeout_counts_the_loading_of_the_track's.)"""
    res = racecert("analyze", str(big_track(tmp_path)), "--timeout", "1", tmp_path=tmp_path,
                   before=ignore_sigint)
    assert res.returncode == 4, res.stderr
    assert res.stdout == ""
    line = assert_limit_line(res.stderr, "time limit reached: ")
    assert line == "error: time limit reached: stopped after 1 s (--timeout 1)"


def test_the_timeout_counts_from_the_start_of_the_process() -> None:
    code = ("import time; time.sleep(1.5); from racecert.cli.limits import seconds_since_start;"
            " print(seconds_since_start())")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         timeout=SAFETY_TIMEOUT)
    assert res.returncode == 0, res.stderr
    assert float(res.stdout) >= 1.5
    assert 0 <= seconds_since_start()


def test_the_timeout_counts_the_loading_of_the_track(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    """A track that takes long to read is within the timeout (the timer no longer starts
    only after it is loaded)."""
    def slow_load(path: str) -> None:
        while True:
            time.sleep(0.05)

    monkeypatch.setattr(analyze_cli, "load_named_track", slow_load)
    monkeypatch.setattr(limits, "seconds_since_start", lambda: 0.0)
    assert main(["analyze", str(TRACKS / "tiny_straight.toml"), "--timeout", "0.5"]) == 4
    assert capsys.readouterr().err == ("error: time limit reached: stopped after 0.5 s "
                                       "(--timeout 0.5)\n")


@pytest.mark.parametrize("deadline, keep_free, fired", [
    (0.3, None, "timeout"), (None, 2**60, "memory")])
def test_the_watchdog_signals_the_run(deadline: float | None, keep_free: int | None,
                                      fired: str) -> None:
    before = signal.getsignal(watchdog.TIMEOUT_SIGNAL), signal.getsignal(
        watchdog.MEMORY_SIGNAL)
    dog = Watchdog(None if deadline is None else time.monotonic() + deadline, keep_free, [])
    with pytest.raises(KeyboardInterrupt), dog:
        for _ in range(SAFETY_TIMEOUT * 20):
            time.sleep(0.05)
    assert dog.fired == fired
    assert (signal.getsignal(watchdog.TIMEOUT_SIGNAL),
            signal.getsignal(watchdog.MEMORY_SIGNAL)) == before


def test_a_run_that_would_not_fit_does_not_start(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(limits, "reserve", lambda levels: 2**60)
    assert main(["analyze", str(TRACKS / "tiny_straight.toml")]) == 4
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: memory limit reached: only ") and "available in " in err


def test_memory_running_low_during_the_run_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """Another run (here: a reserve the watchdog finds unmet once the run is going) takes
    the memory this one counted on: exit 4 with one line, before the OOM killer's 137."""
    calls = iter([2**20, 2**60])
    monkeypatch.setattr(limits, "reserve", lambda levels: next(calls))

    def waiting(*args: object, **kwargs: object) -> None:
        while True:
            time.sleep(0.05)

    monkeypatch.setattr(analyze_cli, "run_analysis", waiting)
    monkeypatch.setattr(limits.Watchdog, "__init__", _unmet(limits.Watchdog.__init__))
    assert main(["analyze", str(TRACKS / "tiny_straight.toml")]) == 4
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith("error: memory limit reached: the memory available ran low")


def _unmet(init: Callable[..., None]) -> Callable[..., None]:
    """Watchdog.__init__ with a reserve no machine has."""
    def patched(self: Watchdog, deadline: float | None, keep_free: int | None,
                levels: list[list]) -> None:
        init(self, deadline, 2**60, levels)
    return patched


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
    limit = res.stderr.splitlines()[0].removeprefix("timeout ")
    assert_limit_line(res.stderr,
                      f"time limit reached: stopped after {limit} s (--timeout {limit})")
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
