"""The two tracks that hung the first certifier certify fully, within deterministic budgets.

A plain 14x3 straight (here m* = 5, 66 optimal trajectories) and a 16x16 L-shaped stage
with shoulders (m* = 8, 64): the MaxSAT enumeration of green/blue never finished on such
tracks. Every figure
must now be confirmed, and every CP-SAT check must report the deterministic work it
spent (the budgets are work units, so this is the same on any machine).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import racecert
from racecert.model.parse import load_track, parse_track
from tests.certification.test_green_blue import STRAIGHT

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize(("track", "m_star", "count"),
                         [(parse_track(STRAIGHT.encode()), 5, 66),
                          (load_track(HERE / "l_stage_shoulders.toml"), 8, 64)],
                         ids=["straight 14x3", "L stage 16x16"])
def test_certified_with_bounded_work(track, m_star: int, count: int) -> None:
    c = racecert.certify(track)
    assert (c.exact.m_star, c.exact.optimal_count) == (m_star, count)
    assert c.status == "certified", c.unconfirmed
    assert {f.verdict for f in c.figures} <= {"agree", "not-applicable"}
    units = [float(m.group(1)) for r in c.results
             for m in [re.search(r"([0-9.]+) deterministic time units", r.work)] if m]
    assert units and all(u <= 60.0 for u in units)  # each check's total, small here
