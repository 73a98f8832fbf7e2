"""The batch report: one table (printed, and the same cells as CSV), a summary, a PNG plot.

`report_cells` turns result rows into text cells once; `table_text` aligns them
for the terminal and `csv_text` writes the very same cells as CSV, so the file
and the printed table cannot drift apart. `summary_text` counts the rows per
mode and status and gives the ranges of m*, the score and the task seconds.
`plot_png` draws three panels with matplotlib's Agg canvas (no display, no
global pyplot state): the score distribution, the m* distribution, and task
seconds against states explored (log-log, one colour per status), whose axes get a
few short labels (`log_ticks`, `compact_number`: 1k, 10M) that never run into each
other, however many decades a batch spans.
"""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from racecert.batch.store import ResultRow

if TYPE_CHECKING:
    from matplotlib.figure import Figure

HEADER = ("track", "mode", "version", "status", "m_star", "optimal_count", "kind", "score",
          "states_explored", "seconds", "error")

MAX_BARS = 30
"""Up to this many distinct m* values get a bar each; more are binned."""
STATUS_COLOURS = {"ok": "tab:green", "certified": "tab:green", "partial": "tab:orange",
                  "disagree": "tab:red", "error": "tab:gray"}


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if value == value else "nan"
    return str(value)


def report_cells(rows: Sequence[ResultRow]) -> list[tuple[str, ...]]:
    """The header and one tuple of text cells per row (the table and the CSV)."""
    out = [HEADER]
    for r in rows:
        out.append(tuple(_cell(getattr(r, name)) for name in HEADER))
    return out


def table_text(cells: list[tuple[str, ...]]) -> str:
    """The cells as aligned columns (two spaces apart, trailing blanks stripped)."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                     for row in cells)


def csv_text(cells: list[tuple[str, ...]]) -> str:
    """The cells as CSV (RFC 4180 quoting, `\\n` line ends)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerows(cells)
    return buf.getvalue()


def _range(values: list[float], fmt: str) -> str:
    if not values:
        return "-"
    return (f"min {min(values):{fmt}}, median {statistics.median(values):{fmt}}, "
            f"max {max(values):{fmt}}")


def summary_text(rows: Sequence[ResultRow]) -> str:
    """Counts per (mode, status) and the ranges of m*, score and task seconds."""
    if not rows:
        return "no results"
    counts = Counter((r.mode, r.status) for r in rows)
    lines = [f"{len(rows)} result(s): " + "; ".join(
        f"{mode} {status} {n}" for (mode, status), n in sorted(counts.items()))]
    m = [float(r.m_star) for r in rows if r.m_star is not None]
    s = [r.score for r in rows if r.score is not None]
    t = [r.seconds for r in rows]
    lines.append(f"m*: {_range(m, '.0f')}")
    lines.append(f"score: {_range(s, '.2f')}")
    lines.append(f"task seconds: {_range(t, '.3f')}, total {sum(t):.2f}")
    errors = Counter(r.error_kind for r in rows if r.status == "error")
    if errors:
        lines.append("errors: " + ", ".join(f"{k} {n}" for k, n in sorted(errors.items())))
    return "\n".join(lines)


LOG_SUBS = ((1.0, 2.0, 5.0), (1.0, 3.0), (1.0,))
"""The mantissas tried for the ticks of a log axis, finest first (`log_ticks`)."""
MAX_LOG_TICKS = 7
"""At most this many labelled ticks on a log axis: ~5 characters each fit a panel's width."""


def log_ticks(lo: float, hi: float, max_ticks: int = MAX_LOG_TICKS) -> list[float]:
    """Tick values for a log axis spanning [lo, hi] (0 < lo <= hi), at most `max_ticks`.

    The finest of 1-2-5, 1-3 and 1 per decade that fits, then every 2nd, 3rd, ...
    decade, so that the labels never run into each other however many decades the
    batch spans (matplotlib's LogLocator with fixed mantissas labels every one of
    them). An axis of less than a decade, where no such value falls twice inside,
    gets plain round values (matplotlib's MaxNLocator) instead.
    """
    from matplotlib.ticker import MaxNLocator

    first, last = math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1
    for step in range(1, last - first + 2):
        for subs in LOG_SUBS if step == 1 else ((1.0,),):
            ticks = [m * 10.0**e for e in range(first, last + 1) if e % step == 0
                     for m in subs if lo <= m * 10.0**e <= hi]
            if 2 <= len(ticks) <= max_ticks:
                return ticks
            if len(ticks) < 2 and step == 1:  # under a decade: round values
                return [v for v in MaxNLocator(nbins=4).tick_values(lo, hi) if lo <= v <= hi]
    return [lo, hi]  # not reached: some step leaves 2 to max_ticks decades


def compact_number(value: float) -> str:
    """`value` in at most ~5 characters: 0.05, 20, 500, 2k, 10M, 1G."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def _log_axis(axis: Any, lo: float, hi: float) -> None:
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(FixedLocator(log_ticks(lo, hi)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: compact_number(v)))
    axis.set_minor_locator(LogLocator(base=10, subs="auto", numticks=100))
    axis.set_minor_formatter(NullFormatter())


def plot_figure(rows: Sequence[ResultRow], title: str) -> Figure:
    """The three-panel plot (module docstring) as a matplotlib Figure on an Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(15, 4.6), layout="constrained")
    FigureCanvasAgg(fig)
    score_ax, m_ax, time_ax = fig.subplots(1, 3)
    fig.suptitle(title)

    scores = [r.score for r in rows if r.score is not None]
    score_ax.hist(scores, bins=20, color="tab:blue")
    score_ax.set(title=f"design score ({len(scores)} tracks)", xlabel="score", ylabel="tracks")

    m_values = [r.m_star for r in rows if r.m_star is not None]
    m_counts = Counter(m_values)
    if len(m_counts) <= MAX_BARS:  # one bar per m*
        m_ax.bar(list(m_counts), list(m_counts.values()), width=0.8, color="tab:purple")
    else:
        m_ax.hist(m_values, bins=MAX_BARS, color="tab:purple")
    m_ax.set(title=f"m* ({sum(m_counts.values())} tracks)", xlabel="m* (moves)",
             ylabel="tracks")

    every: list[tuple[int, float]] = []
    for status, colour in STATUS_COLOURS.items():
        pts = [(r.states_explored, r.seconds) for r in rows
               if r.status == status and r.states_explored and r.seconds > 0]
        if pts:
            every += pts
            time_ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, color=colour,
                            label=f"{status} ({len(pts)})", alpha=0.75)
    time_ax.set(title="task time vs states explored", xlabel="states explored (BFS)",
                ylabel="task seconds")
    if every:
        time_ax.set_xscale("log")
        time_ax.set_yscale("log")
        for axis, limits in ((time_ax.xaxis, time_ax.get_xlim()),
                             (time_ax.yaxis, time_ax.get_ylim())):
            _log_axis(axis, *limits)
        time_ax.legend(loc="lower right")  # time grows with states: that corner is empty
    for ax in (score_ax, m_ax):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    m_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax, data in ((score_ax, scores), (m_ax, m_values), (time_ax, every)):
        if not data:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    return fig


def plot_png(rows: Sequence[ResultRow], title: str) -> bytes:
    """The three-panel plot (module docstring) as PNG bytes."""
    buf = io.BytesIO()
    plot_figure(rows, title).savefig(buf, format="png", dpi=100)
    return buf.getvalue()
