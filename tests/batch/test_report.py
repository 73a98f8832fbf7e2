"""The report's plot is legible (issue #22): the log axes of "task time vs states explored"
carry a few labels that never run into each other, whether the batch spans one decade or
eight, and the labels are short (2k, 10M)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from racecert.batch.report import MAX_LOG_TICKS, compact_number, log_ticks, plot_figure
from racecert.batch.store import ResultRow


def rows(lo_states: float, hi_states: float, count: int = 120, seed: int = 1
         ) -> list[ResultRow]:
    """`count` rows with states spread log-uniformly over [lo, hi], seconds growing with them."""
    rnd = random.Random(seed)
    out = []
    for i in range(count):
        states = int(10 ** rnd.uniform(math.log10(lo_states), math.log10(hi_states)))
        seconds = states * 2e-6 * rnd.uniform(0.5, 3.0) + 0.02
        status = ("ok", "partial", "error")[i % 3]
        out.append(ResultRow(f"t{i}.toml", f"{i:064x}", "exact", "0", status, None, None,
                             rnd.randint(5, 80), "1", "stage", rnd.uniform(0, 100), True,
                             states, 40, 40, None, seconds, None, None, None))
    return out


@pytest.mark.parametrize("lo_exp, span", [(e, s) for e in (-3, -1.3, 0, 2.5, 5)
                                          for s in (0.05, 0.4, 1.0, 1.7, 3.2, 6.0, 11.0)])
def test_log_ticks_are_few_and_inside(lo_exp: float, span: float) -> None:
    lo, hi = 10.0**lo_exp, 10.0 ** (lo_exp + span)
    ticks = log_ticks(lo, hi)
    assert 2 <= len(ticks) <= MAX_LOG_TICKS, ticks
    assert ticks == sorted(set(ticks))
    assert all(lo <= t <= hi for t in ticks)
    labels = [compact_number(t) for t in ticks]
    assert len(set(labels)) == len(labels), labels  # no two ticks read the same


def test_log_ticks_prefer_the_finest_mantissas_that_fit() -> None:
    assert log_ticks(1.0, 100.0) == [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
    assert log_ticks(1.0, 1e3) == [1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0]
    assert log_ticks(1.0, 1e6) == [10.0**e for e in range(7)]
    assert log_ticks(1.0, 1e12) == [10.0**e for e in range(0, 13, 2)]


@pytest.mark.parametrize("value, text", [(0.05, "0.05"), (20.0, "20"), (500.0, "500"),
                                         (2000.0, "2k"), (1e7, "10M"), (3e9, "3G")])
def test_compact_number(value: float, text: str) -> None:
    assert compact_number(value) == text


def _visible_labels(axis: object, renderer: object) -> list[object]:
    lo, hi = sorted(axis.get_view_interval())
    return [t.label1 for t in axis.get_major_ticks()
            if t.label1.get_visible() and t.label1.get_text() and lo <= t.get_loc() <= hi]


@pytest.mark.parametrize("lo, hi", [(100, 2e7), (5e3, 3e4), (10, 1e11)])
def test_the_time_panel_labels_never_overlap(lo: float, hi: float) -> None:
    fig = plot_figure(rows(lo, hi), "legibility")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    time_ax = fig.axes[2]
    assert (time_ax.get_xscale(), time_ax.get_yscale()) == ("log", "log")
    for axis in (time_ax.xaxis, time_ax.yaxis):
        labels = _visible_labels(axis, renderer)
        assert 2 <= len(labels) <= MAX_LOG_TICKS, [t.get_text() for t in labels]
        boxes = [t.get_window_extent(renderer) for t in labels]
        for a, b in itertools.combinations(boxes, 2):
            assert not a.overlaps(b), [t.get_text() for t in labels]
        assert all(len(t.get_text()) <= 5 for t in labels), [t.get_text() for t in labels]


def test_an_empty_report_still_draws() -> None:
    fig = plot_figure([], "nothing")
    fig.canvas.draw()
    assert [ax.get_xscale() for ax in fig.axes] == ["linear"] * 3
    assert all("no data" in [t.get_text() for t in ax.texts] for ax in fig.axes)
