"""What a long `certify` shows (issue #19): which step runs out of how many, the running
check's work against its budget, an estimate where the total is known, and on a
redirected stderr a plain line at least every `HEARTBEAT` seconds of work."""

from __future__ import annotations

import argparse
import io
import threading

from racecert.certification.certificate import step_count
from racecert.cli.certify import CertifyDisplay, run_certify
from racecert.cli.progress import Heartbeat, PlainProgress
from racecert.model.budget import StateBudget
from racecert.model.parse import load_track


class Clock:
    """A fake monotonic clock."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_display_names_the_step_its_budget_and_an_estimate() -> None:
    clock, out = Clock(), io.StringIO()
    bar = PlainProgress("certify", " steps done", 15, out, delay=0, interval=0, clock=clock)
    d = CertifyDisplay(bar, 15, StateBudget(1000, "--max-states"), clock=clock)
    d.step("analysis")
    d.bfs(3, 10, 42)
    assert "of at most 1,000 (--max-states)" in out.getvalue().splitlines()[-1]
    d.step("continuity by CP-SAT")
    clock.now += 30
    d.work("final states by CP-SAT (budget 60 deterministic time units per solve)", 3, 12)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("certify [2/15] continuity by CP-SAT (1/15 steps done; ")
    assert "budget 60 deterministic time units" in line
    assert "3/12 done, about 90 s left; 30 s in this step" in line


def test_a_silent_step_still_prints_a_line_at_every_heartbeat() -> None:
    """A long solve reports nothing; the heartbeat prints the running step regardless of
    the plain progress's own interval."""
    out = io.StringIO()
    bar = PlainProgress("certify", "", 3, out, delay=0, interval=3600)
    d = CertifyDisplay(bar, 3)
    d.step("m* by SAT")
    beats = threading.Event()
    count = 0

    def beat() -> None:
        nonlocal count
        d.beat()
        count += 1
        if count >= 3:
            beats.set()

    with Heartbeat(0.01, beat):
        assert beats.wait(5.0)
    lines = out.getvalue().splitlines()
    assert len(lines) >= 3 and all(line.startswith("certify [1/3] m* by SAT") for line in lines)


def test_certify_on_a_small_track_prints_every_step_with_its_work() -> None:
    out = io.StringIO()
    bar = PlainProgress("certify", " steps done", step_count(), out, delay=0, interval=0)
    args = argparse.Namespace(cpsat_budget=60.0, count_limit=20_000, best_start=False)
    c = run_certify(load_track("tracks/tiny_straight.toml"), args, None, bar=bar)
    assert c.status == "certified"
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    n = step_count()
    for i in range(1, n + 1):
        assert f"certify [{i}/{n}] " in text
    assert "BFS depth" in text
    assert "CP-SAT solves at T = " in text and "deterministic time units per solve" in text
    assert "conflict budget 20,000,000 per solve" in text
