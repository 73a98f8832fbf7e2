"""Freed memory goes back to the system between the analysis's steps (racecert.model.heap)."""

from __future__ import annotations

import doctest

from racecert.analysis import pipeline
from racecert.model import heap
from racecert.model.parse import load_track


def test_heap_doctest() -> None:
    failures, tries = doctest.testmod(heap)
    assert tries > 0 and failures == 0


def test_the_analysis_trims_the_heap_before_every_step(monkeypatch) -> None:
    """One trim before each step the analysis runs, and the steps see the heap trimmed
    before they start (the trim comes before the step callback)."""
    events: list[str] = []
    monkeypatch.setattr(pipeline, "trim_heap", lambda: events.append("trim") or True)
    pipeline.analyze(load_track("tracks/ocho.toml"), step=events.append)
    steps = [e for e in events if e != "trim"]
    assert steps == list(pipeline.STEPS)
    assert events == [x for s in steps for x in ("trim", s)]
