"""The batch report: one table (printed, and the same cells as CSV), a summary, a PNG plot.

`report_cells` turns result rows into text cells once; `table_text` aligns them
for the terminal and `csv_text` writes the very same cells as CSV, so the file
and the printed table cannot drift apart. `summary_text` counts the rows per
mode and status and gives the ranges of m*, the score and the task seconds.
`plot_png` draws three panels with matplotlib's Agg canvas (no display, no
global pyplot state): the score distribution, the m* distribution, and task
seconds against states explored (log-log, one colour per status).
"""

from __future__ import annotations

import csv
import io
import statistics
from collections import Counter
from collections.abc import Sequence

from racecert.batch.store import ResultRow

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


def plot_png(rows: Sequence[ResultRow], title: str) -> bytes:
    """The three-panel plot (module docstring) as PNG bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

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

    for status, colour in STATUS_COLOURS.items():
        pts = [(r.states_explored, r.seconds) for r in rows
               if r.status == status and r.states_explored and r.seconds > 0]
        if pts:
            time_ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, color=colour,
                            label=f"{status} ({len(pts)})", alpha=0.75)
    time_ax.set(title="task time vs states explored", xlabel="states explored (BFS)",
                ylabel="task seconds")
    if time_ax.collections:
        time_ax.set_xscale("log")
        time_ax.set_yscale("log")
        for axis in (time_ax.xaxis, time_ax.yaxis):
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(NullFormatter())
        time_ax.legend(loc="upper left")
    for ax in (score_ax, m_ax):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    m_ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for ax in (score_ax, m_ax, time_ax):
        if not ax.has_data():
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()
